/*
 * The libvllm C ABI (version 5), declared from its documentation: the struct
 * layouts and the callback type every caller of the library shares. Plain C,
 * so the addon (native/engine/abi.h), the standalone driver
 * (native/tools/vllm-driver.c) and the test double
 * (test/support/fake-libvllm/fake-libvllm.c) read one declaration. Nothing
 * from vllm.cpp is needed to build against it.
 */
#ifndef NVC_VLLM_ABI_H
#define NVC_VLLM_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { NVC_VLLM_ABI_VERSION = 5 };

/* Status codes returned by every fallible entry point. */
enum {
  NVC_VLLM_OK = 0,
  NVC_VLLM_ERR_INVALID_ARGUMENT = 1,
  NVC_VLLM_ERR_MODEL_LOAD = 2,
  NVC_VLLM_ERR_RUNTIME = 3,
  NVC_VLLM_ERR_UNKNOWN = 4
};

typedef struct nvc_vllm_model_params {
  const char* model_path;
  const char* tokenizer_config_path;
  int32_t block_size;
  int32_t num_blocks;
  int32_t max_model_len;
  int32_t max_num_seqs;
  const char* tool_parser;      /* v4 */
  const char* reasoning_parser; /* v5 */
} nvc_vllm_model_params;

typedef struct nvc_vllm_sampling_params {
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
  /* v2: structured output, at most one set */
  const char* structured_json;
  const char* structured_regex;
  const char* const* structured_choice;
  int32_t n_structured_choice;
  const char* structured_grammar;
  int32_t structured_json_object;
} nvc_vllm_sampling_params;

typedef struct nvc_vllm_completion {
  char* text;
  const char* finish_reason;
  int32_t prompt_tokens;
  int32_t completion_tokens;
} nvc_vllm_completion;

/* Called per delta; return false to stop. delta_text is borrowed for the call. */
typedef bool (*nvc_vllm_token_cb)(const char* delta_text, bool finished, void* user_data);

#ifdef __cplusplus
}
#endif

#endif /* NVC_VLLM_ABI_H */
