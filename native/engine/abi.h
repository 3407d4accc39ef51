// The libvllm C ABI (version 5), declared from its documentation: the struct
// layouts and entry-point signatures this package calls through dlopen. Only
// what is declared here is used; the library itself is never needed at build
// time, so one prebuilt addon serves CPU, CUDA and Metal builds of libvllm.
#pragma once

#include <cstddef>
#include <cstdint>

namespace nvc::abi {

constexpr int32_t kAbiVersion = 5;

// Status codes returned by every fallible entry point (0 = OK).
enum Status : int32_t {
  kOk = 0,
  kInvalidArgument = 1,
  kModelLoad = 2,
  kRuntime = 3,
  kUnknown = 4,
};

const char* StatusName(int32_t status);

struct Engine;   // opaque
struct Request;  // opaque

struct ModelParams {
  const char* model_path;
  const char* tokenizer_config_path;
  int32_t block_size;
  int32_t num_blocks;
  int32_t max_model_len;
  int32_t max_num_seqs;
  const char* tool_parser;       // v4
  const char* reasoning_parser;  // v5
};

struct SamplingParams {
  float temperature;
  float top_p;
  int32_t top_k;
  float min_p;
  int32_t max_tokens;
  uint64_t seed;
  int32_t has_seed;
  float presence_penalty;
  float frequency_penalty;
  float repetition_penalty;
  int32_t min_tokens;
  int32_t ignore_eos;
  const char* const* stop;
  int32_t n_stop;
  // v2: structured output, at most one set.
  const char* structured_json;
  const char* structured_regex;
  const char* const* structured_choice;
  int32_t n_structured_choice;
  const char* structured_grammar;
  int32_t structured_json_object;
};

struct Completion {
  char* text;
  const char* finish_reason;
  int32_t prompt_tokens;
  int32_t completion_tokens;
};

// Called per delta; return false to stop. delta_text is borrowed for the call.
using TokenCallback = bool (*)(const char* delta_text, bool finished, void* user_data);

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
