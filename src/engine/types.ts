/**
 * Public types of the generation bridge: load a libvllm model, generate from
 * a prompt, and run OpenAI chat completions (our render -> the engine -> our
 * parsers).
 */

/** Why a generation ended. `abort`: cancelled; `error`: the engine ended it abnormally. */
export type FinishReason = 'stop' | 'length' | 'abort' | 'error' | 'repetition' | 'unknown';

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/**
 * Sampling fields, named as in the OpenAI request, plus vLLM's extensions.
 * Unset fields take vLLM's defaults (temperature 1, top_p 1, top_k 0 (all),
 * min_p 0, no max_tokens limit beyond the model length, ...), never libvllm's
 * own struct defaults.
 */
export interface SamplingParams {
  temperature?: number;
  top_p?: number;
  top_k?: number;
  min_p?: number;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  stop?: string | string[] | null;
  seed?: number | null;
  presence_penalty?: number;
  frequency_penalty?: number;
  repetition_penalty?: number;
  min_tokens?: number;
  ignore_eos?: boolean;
  /** Default true, as in vLLM. Special tokens' text is removed from the output. */
  skip_special_tokens?: boolean;
  response_format?:
    | { type: 'text' }
    | { type: 'json_object' }
    | { type: 'json_schema'; json_schema: { name?: string; schema?: Record<string, unknown>; strict?: boolean | null } };
  /** vLLM's structured outputs: exactly one of these. */
  structured_outputs?: {
    json?: string | Record<string, unknown>;
    regex?: string;
    choice?: string[];
    grammar?: string;
    json_object?: boolean;
  };
}

export interface GenerateOptions {
  /** Aborting cancels the request inside the engine (`vllm_request_cancel`). */
  signal?: AbortSignal;
}

/** One streamed piece of a completion. The last one carries `finishReason` and `usage`. */
export interface GenerationChunk {
  /** Text produced since the previous chunk (may be empty). */
  text: string;
  finishReason?: FinishReason;
  usage?: Usage;
}

export interface CompletionResult {
  text: string;
  finishReason: FinishReason;
  usage: Usage;
}

/**
 * Anything that turns a prompt into streamed text: the libvllm engine, or an
 * OpenAI-compatible completions endpoint. The chat pipeline runs on top of it.
 */
export interface TextGenerator {
  stream(prompt: string, params: SamplingParams, options?: GenerateOptions): AsyncIterable<GenerationChunk>;
}
