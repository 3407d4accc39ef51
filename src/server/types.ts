/** What the HTTP layer needs from a generation backend. */
import type { GenerateOptions, SamplingParams, TextGenerator, Usage } from '../engine/types';

/** Options the server passes with every chat call. */
export interface ChatCallOptions extends GenerateOptions {
  /** The completion id to use (`chatcmpl-<request id>`, vLLM's scheme). */
  requestId?: string;
}

/** The parts of an OpenAI ChatCompletion the server looks at; the rest passes through unchanged. */
export interface ChatCompletionLike {
  id?: string;
  usage?: Partial<Usage> | null;
  [key: string]: unknown;
}

/** The parts of an OpenAI ChatCompletionChunk the server looks at. */
export interface ChatCompletionChunkLike {
  id?: string;
  usage?: Partial<Usage> | null;
  choices?: unknown[];
  [key: string]: unknown;
}

/**
 * A chat backend: the libvllm `Engine`, or a `ChatPipeline` over any
 * TextGenerator (e.g. an upstream completions endpoint).
 */
export interface ChatBackend {
  /** The request is the decoded JSON body (or, where the backend accepts it, the raw body text). */
  chat(request: unknown, options?: ChatCallOptions): Promise<ChatCompletionLike>;
  chatStream(request: unknown, options?: ChatCallOptions): AsyncIterable<ChatCompletionChunkLike>;
}

/** Everything the server serves: chat, raw-prompt completions, and a model name. */
export interface ServerBackend extends ChatBackend {
  /** Turns a raw prompt into text for `/v1/completions`. */
  readonly generator: TextGenerator;
  /** The default served model name. */
  readonly modelName: string;
  /** Longest context, reported by `/v1/models` as `max_model_len` when known. */
  readonly maxModelLen?: number;
  /** Whether the backend passes the raw body text to `chat()` (lossless numbers and key order). */
  readonly acceptsRequestText?: boolean;
  /** `false` when the backend cannot serve (a dead engine); `/health` answers 503 then. */
  healthy?(): boolean;
  close?(): Promise<void> | void;
}

/** The request fields that are sampling parameters, passed to a generator as given (the token limits aside). */
export const SAMPLING_FIELDS: ReadonlyArray<keyof SamplingParams> = [
  'temperature',
  'top_p',
  'top_k',
  'min_p',
  'stop',
  'seed',
  'presence_penalty',
  'frequency_penalty',
  'repetition_penalty',
  'min_tokens',
  'ignore_eos',
  'skip_special_tokens',
  'response_format',
  'structured_outputs',
];
