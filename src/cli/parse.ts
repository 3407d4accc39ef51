/**
 * `parse --tool-call-parser NAME [--reasoning-parser NAME] [--tools tools.json] [--stream [--chunk-size N]]`
 *
 * Parses raw model output (given as `input`) into one OpenAI message object
 * `{"content", "tool_calls"}` printed as a single JSON line. With
 * `--reasoning-parser` the reasoning is split off first (as vLLM does) and
 * the object also has `"reasoning"`; the tool-call parser sees the content.
 * With `--stream` the input goes through the streaming parsers in chunks of
 * N code points (default 1) and the printed object is what an OpenAI client
 * accumulates from the deltas.
 */
import { parseArgs, readToolsFile, str, UsageError } from './args';
import {
  accumulateDeltas,
  createStreamingReasoningParser,
  createStreamingToolParser,
  parseReasoning,
  parseToolCalls,
  REASONING_PARSERS,
  TOOL_PARSERS,
} from '../parsers';
import type { ParseResult, StreamDelta, ToolShape } from '../parsers';

export const PARSE_USAGE = `usage: node-vllm-cpp parse --tool-call-parser NAME [--reasoning-parser NAME] [--tools tools.json] [--stream [--chunk-size N]] < output.txt

  --tool-call-parser NAME  vLLM's parser name (alias --parser)
  --reasoning-parser NAME  vLLM's reasoning parser name; adds "reasoning" to the output
  --tools FILE             a JSON list of tools, or a request body with "tools"
  --stream                 feed the input through the streaming parser
  --chunk-size N           code points per chunk with --stream (default 1)`;

export function runParse(args: string[], input: string | (() => string)): { stdout: string; exitCode: number } {
  const a = parseArgs(args, new Set(['tool-call-parser', 'reasoning-parser', 'tools', 'chunk-size']), new Set(['stream']), { parser: 'tool-call-parser' });
  if (a.help) return { stdout: PARSE_USAGE + '\n', exitCode: 0 };
  if (a.positionals.length) throw new UsageError(`parse: unexpected argument ${JSON.stringify(a.positionals[0])}`);
  const parser = str(a, 'tool-call-parser');
  if (!parser) throw new UsageError('parse: --tool-call-parser NAME is required');
  if (!TOOL_PARSERS.includes(parser)) throw new UsageError(`parse: unknown --tool-call-parser ${JSON.stringify(parser)}; known: ${TOOL_PARSERS.join(', ')}`);
  const reasoningParser = str(a, 'reasoning-parser');
  if (reasoningParser !== undefined && !REASONING_PARSERS.includes(reasoningParser)) {
    throw new UsageError(`parse: unknown --reasoning-parser ${JSON.stringify(reasoningParser)}; known: ${REASONING_PARSERS.join(', ')}`);
  }
  const toolsFile = str(a, 'tools');
  if (toolsFile === '-') throw new UsageError('parse: --tools cannot be standard input (the model output is read from it)');
  const tools = toolsFile ? (readToolsFile(toolsFile, () => '', false) as ToolShape[]) : undefined;
  if (typeof input === 'function') input = input();
  const stream = a.flags.has('stream');
  const chunkText = str(a, 'chunk-size');
  if (chunkText !== undefined && !stream) throw new UsageError('parse: --chunk-size needs --stream');
  const chunkSize = chunkText === undefined ? 1 : Number(chunkText);
  if (!Number.isInteger(chunkSize) || chunkSize < 1) throw new UsageError('parse: --chunk-size must be a positive integer');

  let result: ParseResult;
  let reasoning: string | null = null;
  if (stream) {
    const p = createStreamingToolParser({ parser, tools });
    const r = reasoningParser ? createStreamingReasoningParser({ parser: reasoningParser }) : null;
    const deltas: StreamDelta[] = [];
    let reasoningText = '';
    const feed = (text: string, last: boolean): void => {
      if (!r) {
        deltas.push(...p.push(text));
        return;
      }
      const d = last ? r.end() : r.push(text);
      if (d.reasoning) reasoningText += d.reasoning;
      if (d.content) deltas.push(...p.push(d.content));
    };
    const codePoints = Array.from(input);
    for (let i = 0; i < codePoints.length; i += chunkSize) feed(codePoints.slice(i, i + chunkSize).join(''), false);
    feed('', true);
    deltas.push(...p.end());
    result = accumulateDeltas(deltas);
    reasoning = reasoningText || null;
  } else {
    let content: string | null = input;
    if (reasoningParser) ({ reasoning, content } = parseReasoning(input, { parser: reasoningParser }));
    result = parseToolCalls(content ?? '', { parser, tools });
  }
  const out = reasoningParser
    ? { reasoning, content: result.content, tool_calls: result.tool_calls }
    : { content: result.content, tool_calls: result.tool_calls };
  return { stdout: JSON.stringify(out) + '\n', exitCode: 0 };
}
