/**
 * The generation bridge: vllm.cpp's libvllm loaded at run time, and OpenAI
 * chat completions served as render (ours) -> generate (libvllm) -> parse (ours).
 */
export { Engine } from './engine';
export type { EngineLoadOptions, GenerationOptions } from './engine';
export { ChatPipeline } from './chat';
export type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionChunkDelta,
  ChatCompletionMessage,
  ChatFinishReason,
  ChatOptions,
  ChatPipelineOptions,
  ChatToolCall,
  PipelineGenerateOptions,
} from './chat';
export { resolveSampling, VLLM_DEFAULTS } from './sampling';
export type { NativeSampling, ResolvedSampling } from './sampling';
export { LIBRARY_ENV } from './library';
export type { CompletionResult, FinishReason, GenerateOptions, GenerationChunk, SamplingParams, TextGenerator, Usage } from './types';
