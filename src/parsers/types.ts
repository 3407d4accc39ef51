/** Public types shared by every tool-call parser. */

/** A function tool: Chat Completions (`{type, function: {name, parameters}}`) or Responses (`{type, name, parameters}`). */
export type ToolShape =
  | { type?: 'function'; function: { name: string; description?: string | null; parameters?: unknown } }
  | { type?: 'function'; name: string; description?: string | null; parameters?: unknown };

/**
 * What `tools` accepts: function tools, and any other tool type the openai
 * package has (`{type: 'custom', custom: {...}}` in `ChatCompletionTool`,
 * built-in tools), which are accepted and ignored for schema lookups.
 */
export type AnyTool = ToolShape | { type: 'custom'; custom: { name: string; description?: string; format?: unknown } } | { type: string };

export interface ParsedToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ParseResult {
  content: string | null;
  tool_calls: ParsedToolCall[];
}

export interface ParseOptions {
  /** A vLLM `--tool-call-parser` name, e.g. `hermes`, `gemma4`. */
  parser: string;
  /** The request's tools, Chat Completions or Responses shape (other tool types are ignored). */
  tools?: readonly AnyTool[];
  /** Deterministic ids for tests; defaults to the parser's vLLM id style. */
  idGenerator?: () => string;
}

export interface ToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
}

export interface StreamDelta {
  content?: string;
  tool_calls?: ToolCallDelta[];
  finish_reason?: 'tool_calls' | 'stop' | 'length';
}

export interface EndOptions {
  /**
   * Why the engine stopped generating. 'length' (the output was cut off) is
   * reported as finish_reason 'length' even when calls were opened, so an
   * agent does not run a half-formed call; vLLM itself reports 'tool_calls'.
   */
  finishReason?: 'stop' | 'length';
}

export interface StreamingToolParser {
  push(chunk: string): StreamDelta[];
  end(options?: EndOptions): StreamDelta[];
}

export { ToolParseError } from '../errors';
