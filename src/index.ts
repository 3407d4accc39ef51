/**
 * node-vllm-cpp: OpenAI Chat Completions histories -> the exact prompt pinned
 * Python vLLM builds, and model output -> OpenAI tool_calls.
 *
 * Data flow: request -> protocol (validate) -> conversation (vLLM
 * post-processing) -> native (marshal, lex, parse, evaluate) -> prompt.
 */
export { renderChat, renderChatAsync } from './render';
export type { Backend, RenderChatOptions, RenderChatResult } from './render';
export type {
  ChatContent,
  ChatContentPart,
  ChatCustomTool,
  ChatCustomToolCall,
  ChatFunctionDefinition,
  ChatFunctionTool,
  ChatFunctionToolCall,
  ChatMessage,
  ChatMessageToolCall,
  ChatRequest,
  ChatRequestInput,
  ChatTextPart,
  ChatTool,
} from './render';
export { compileTemplate, CompiledTemplate, pyReprOfJson } from './native/embedded';
export type { RenderLimits } from './native/embedded';
export { loadTemplateFromPath } from './templates/load';
export type { LoadedTemplate } from './templates/load';
export { buildTemplateContext, cutContinueFinal } from './conversation';
export type { ArgumentsPolicy, BuildOptions, BuiltContext, ContentFormat, TemplateFacts } from './conversation';
export * from './protocol/schemas';
export { parsePyJson, serializePyJson } from './protocol/pyjson';
export { Engine, ChatPipeline, resolveSampling, VLLM_DEFAULTS, LIBRARY_ENV } from './engine';
export type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionChunkDelta,
  ChatCompletionMessage,
  ChatFinishReason,
  ChatOptions,
  ChatPipelineOptions,
  ChatToolCall,
  CompletionResult,
  EngineLoadOptions,
  FinishReason,
  GenerateOptions,
  GenerationChunk,
  GenerationOptions,
  PipelineGenerateOptions,
  SamplingParams,
  TextGenerator,
  Usage,
} from './engine';
export { parseToolCalls, createStreamingToolParser, accumulateDeltas, TOOL_PARSERS } from './parsers';
export {
  parseReasoning,
  createStreamingReasoningParser,
  accumulateReasoning,
  REASONING_PARSERS,
  detectParsers,
} from './parsers';
export type { AnyTool, DetectedParsers, ReasoningDelta, ReasoningOptions, ReasoningResult, StreamingReasoningParser } from './parsers';
export type {
  EndOptions,
  ParseResult,
  ParsedToolCall,
  StreamDelta,
  StreamingToolParser,
  ToolCallDelta,
  ToolShape,
} from './parsers';
export {
  AbortError,
  BackendError,
  EngineClosedError,
  EngineDeadError,
  EngineError,
  EngineUnavailableError,
  LimitError,
  NodeVllmError,
  RequestValidationError,
  SecurityError,
  TemplateError,
  TemplateLoadError,
  TemplateRaisedError,
  TemplateRuntimeError,
  TemplateSyntaxError,
  ToolArgumentsError,
  ToolParseError,
} from './errors';
