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
import { Glm45Parser } from './glm45';
import { granite } from './granite';
import { hunyuanA13b } from './hunyuan-a13b';
import { internlm } from './internlm';
import { jamba } from './jamba';
import { KimiK2Parser } from './kimi-k2';
import { llama3Json } from './llama3-json';
import { MinimaxM2Parser } from './minimax-m2';
import { mistral } from './mistral';
import { openai } from './openai';
import { phi4MiniJson } from './phi4mini';
import { lfm2, llama4Pythonic, olmo3, pythonic } from './pythonic';
import { xlam } from './xlam';
import { ToolParseError } from './types';
import type { ParseOptions, ParseResult, StreamingToolParser } from './types';

export { accumulateDeltas } from './accumulate';
export { detectParsers } from './detect';
export type { DetectedParsers } from './detect';
export { REASONING_PARSERS, accumulateReasoning, createStreamingReasoningParser, parseReasoning } from './reasoning';
export type { ReasoningDelta, ReasoningOptions, ReasoningResult, StreamingReasoningParser } from './reasoning';
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
  AnyTool,
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
  seed_oss: (o) => new Qwen3CoderParser(o, { open: '<seed:tool_call>', close: '</seed:tool_call>' }),
  functiongemma: (o) =>
    new Gemma4Parser(o, {
      start: '<start_function_call>',
      end: '<end_function_call>',
      quote: '<escape>',
      stops: ['<start_function_response>'],
      repairEscapes: false,
      keepFloats: true,
      acceptUnclosed: true,
    }),
  llama3_json: llama3Json,
  llama4_json: llama3Json,
  pythonic,
  llama4_pythonic: llama4Pythonic,
  olmo3,
  mistral,
  granite,
  internlm,
  kimi_k2: (o) => new KimiK2Parser(o),
  glm45: (o) => new Glm45Parser(o),
  glm47: (o) => new Glm45Parser(o),
  minimax_m2: (o) => new MinimaxM2Parser(o),
  phi4_mini_json: phi4MiniJson,
  hunyuan_a13b: hunyuanA13b,
  jamba,
  xlam,
  openai,
  lfm2,
  // Hermes-style JSON blocks under other names.
  granite4: (o) => new HermesParser(o),
  ernie45: (o) => new HermesParser(o),
  longcat: (o) => new HermesParser(o, { start: '<longcat_tool_call>', end: '</longcat_tool_call>' }),
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
