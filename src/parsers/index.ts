/**
 * Tool-call output parsers: raw model text -> OpenAI `tool_calls`, both
 * whole-text and streaming. Parser names follow vLLM's `--tool-call-parser`.
 */
import { accumulateDeltas } from './accumulate';
import { DeepSeekV3Parser } from './deepseek-v3';
import { DsmlParser } from './deepseek';
import { Gemma4Parser } from './gemma4';
import { HermesParser } from './hermes';
import { TextMachine } from './machine';
import { Qwen3CoderParser } from './qwen3coder';
import { ToolParseError } from './types';
import type { ParseOptions, ParseResult, StreamingToolParser } from './types';

export { accumulateDeltas } from './accumulate';
export { ToolParseError } from './types';
export type {
  EndOptions,
  ParseOptions,
  ParseResult,
  ParsedToolCall,
  StreamDelta,
  StreamingToolParser,
  ToolCallDelta,
  ToolShape,
} from './types';

const FACTORIES: Record<string, (opts: ParseOptions) => TextMachine> = {
  gemma4: (o) => new Gemma4Parser(o),
  deepseek_v32: (o) => new DsmlParser(o),
  deepseek_v4: (o) => new DsmlParser(o),
  deepseek_v3: (o) => new DeepSeekV3Parser(o, 'v3'),
  deepseek_v31: (o) => new DeepSeekV3Parser(o, 'v31'),
  hermes: (o) => new HermesParser(o),
  qwen3_coder: (o) => new Qwen3CoderParser(o),
  // vLLM's separate streaming-XML parser for the same wire format.
  qwen3_xml: (o) => new Qwen3CoderParser(o),
};

export const TOOL_PARSERS: readonly string[] = Object.freeze(Object.keys(FACTORIES));

function machineFor(opts: ParseOptions): TextMachine {
  const factory = Object.prototype.hasOwnProperty.call(FACTORIES, opts.parser) ? FACTORIES[opts.parser] : undefined;
  if (!factory) {
    throw new ToolParseError(`Unknown tool parser "${String(opts.parser)}". Known parsers: ${TOOL_PARSERS.join(', ')}`);
  }
  return factory(opts);
}

/**
 * Parse a complete model output. Implemented as the streaming parser fed
 * the whole text, so whole-text and streamed results are always identical.
 */
export function parseToolCalls(text: string, opts: ParseOptions): ParseResult {
  const machine = machineFor(opts);
  return accumulateDeltas([...machine.push(text), ...machine.end()]);
}

export function createStreamingToolParser(opts: ParseOptions): StreamingToolParser {
  return machineFor(opts);
}
