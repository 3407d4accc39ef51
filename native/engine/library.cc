#include "engine/library.h"

#include <map>
#include <mutex>
#include <stdexcept>

#if defined(_WIN32)
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
#else
#include <dlfcn.h>
#endif

namespace nvc {

namespace abi {
const char* StatusName(int32_t status) {
  switch (status) {
    case kOk: return "VLLM_OK";
    case kInvalidArgument: return "VLLM_ERR_INVALID_ARGUMENT";
    case kModelLoad: return "VLLM_ERR_MODEL_LOAD";
    case kRuntime: return "VLLM_ERR_RUNTIME";
    case kUnknown: return "VLLM_ERR_UNKNOWN";
  }
  return "VLLM_ERR_UNKNOWN";
}
}  // namespace abi

namespace {

struct Handle {
#if defined(_WIN32)
  HMODULE h = nullptr;
  void* sym(const char* name) const { return reinterpret_cast<void*>(GetProcAddress(h, name)); }
#else
  void* h = nullptr;
  void* sym(const char* name) const { return dlsym(h, name); }
#endif
};

std::string OpenError() {
#if defined(_WIN32)
  return "LoadLibrary failed with error " + std::to_string(GetLastError());
#else
  const char* e = dlerror();
  return e ? e : "dlopen failed";
#endif
}

template <typename Fn>
void Resolve(const Handle& h, const std::string& path, const char* name, Fn& out) {
  void* p = h.sym(name);
  if (p == nullptr) {
    throw LibraryError(path + " does not export " + name +
                       ": it is not a libvllm of C ABI version 5 (build vllm.cpp's `vllm_shared` target)");
  }
  out = reinterpret_cast<Fn>(p);
}

std::mutex g_mutex;
std::map<std::string, std::shared_ptr<const Library>> g_loaded;

}  // namespace

std::shared_ptr<const Library> OpenLibvllm(const std::string& path) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (auto it = g_loaded.find(path); it != g_loaded.end()) return it->second;

  Handle h;
#if defined(_WIN32)
  h.h = ::LoadLibraryA(path.c_str());
#else
  h.h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
#endif
  if (h.h == nullptr) throw LibraryError("cannot load libvllm from " + path + ": " + OpenError());

  auto lib = std::make_shared<Library>();
  lib->path = path;
  abi::Api& a = lib->api;
  Resolve(h, path, "vllm_abi_version", a.abi_version);
  lib->abi_version = a.abi_version();
  if (lib->abi_version != abi::kAbiVersion) {
    throw LibraryError(path + " implements libvllm C ABI version " + std::to_string(lib->abi_version) +
                       "; this package speaks version " + std::to_string(abi::kAbiVersion));
  }
  Resolve(h, path, "vllm_model_params_default", a.model_params_default);
  Resolve(h, path, "vllm_sampling_params_default", a.sampling_params_default);
  Resolve(h, path, "vllm_engine_load", a.engine_load);
  Resolve(h, path, "vllm_engine_free", a.engine_free);
  Resolve(h, path, "vllm_complete", a.complete);
  Resolve(h, path, "vllm_request_submit", a.request_submit);
  Resolve(h, path, "vllm_request_cancel", a.request_cancel);
  Resolve(h, path, "vllm_request_wait", a.request_wait);
  Resolve(h, path, "vllm_request_done", a.request_done);
  Resolve(h, path, "vllm_request_error", a.request_error);
  Resolve(h, path, "vllm_request_free", a.request_free);
  Resolve(h, path, "vllm_chat_stream", a.chat_stream);
  Resolve(h, path, "vllm_string_free", a.string_free);
  Resolve(h, path, "vllm_completion_free", a.completion_free);
  Resolve(h, path, "vllm_last_error", a.last_error);
  Resolve(h, path, "vllm_version", a.version);
  const char* v = a.version();
  lib->version = v ? v : "";
  g_loaded.emplace(path, lib);
  return lib;
}

}  // namespace nvc
