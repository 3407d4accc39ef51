// Loading libvllm at run time (dlopen / LoadLibrary) and resolving its entry
// points. A library, once loaded, stays loaded for the life of the process:
// its own threads may still run code from it while engines shut down.
#pragma once

#include <memory>
#include <string>

#include "engine/abi.h"

namespace nvc {

struct Library {
  std::string path;
  std::string version;
  int32_t abi_version = 0;
  abi::Api api{};
};

// Loads (or returns the already-loaded) library at `path`. Throws
// LibraryError with a message saying what is wrong and how to fix it.
std::shared_ptr<const Library> OpenLibvllm(const std::string& path);

struct LibraryError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace nvc
