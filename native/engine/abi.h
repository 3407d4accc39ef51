// The libvllm C ABI (version 5) as the addon calls it through dlopen: the
// shared C declarations (vllm_abi.h) and the table of entry points. Only
// what is declared here is used; the library itself is never needed at build
// time, so one prebuilt addon serves CPU, CUDA and Metal builds of libvllm.
#pragma once

#include <cstddef>
#include <cstdint>

#include "vllm_abi.h"

namespace nvc::abi {

constexpr int32_t kAbiVersion = NVC_VLLM_ABI_VERSION;

// Status codes returned by every fallible entry point (0 = OK).
enum Status : int32_t {
  kOk = NVC_VLLM_OK,
  kInvalidArgument = NVC_VLLM_ERR_INVALID_ARGUMENT,
  kModelLoad = NVC_VLLM_ERR_MODEL_LOAD,
  kRuntime = NVC_VLLM_ERR_RUNTIME,
  kUnknown = NVC_VLLM_ERR_UNKNOWN,
};

const char* StatusName(int32_t status);

struct Engine;   // opaque
struct Request;  // opaque

using ModelParams = nvc_vllm_model_params;
using SamplingParams = nvc_vllm_sampling_params;
using Completion = nvc_vllm_completion;
using TokenCallback = nvc_vllm_token_cb;

// The entry points, resolved by name from the loaded library.
struct Api {
  ModelParams (*model_params_default)();
  SamplingParams (*sampling_params_default)();
  int32_t (*engine_load)(const ModelParams*, Engine**);
  void (*engine_free)(Engine*);
  int32_t (*complete)(Engine*, const char*, const SamplingParams*, Completion*);
  int32_t (*request_submit)(Engine*, const char*, const SamplingParams*, TokenCallback, void*, Request**);
  int32_t (*request_cancel)(Request*);
  int32_t (*request_wait)(Request*);
  bool (*request_done)(const Request*);
  const char* (*request_error)(const Request*);
  void (*request_free)(Request*);
  int32_t (*chat_stream)(Engine*, const char*, TokenCallback, void*);
  void (*string_free)(char*);
  void (*completion_free)(Completion*);
  const char* (*last_error)();
  const char* (*version)();
  int32_t (*abi_version)();
};

}  // namespace nvc::abi
