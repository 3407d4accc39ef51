/**
 * `parse --tool-call-parser NAME [--tools tools.json] [--stream [--chunk-size N]]`
 *
 * Parses raw model output (given as `input`) into one OpenAI message object
 * `{"content", "tool_calls"}` printed as a single JSON line. With `--stream`
 * the input goes through the streaming parser in chunks of N code points
 * (default 1) and the printed object is what an OpenAI client accumulates
 * from the deltas.
 */
import { parseArgs, readToolsFile, str, UsageError } from './args';
import { accumulateDeltas, createStreamingToolParser, parseToolCalls, TOOL_PARSERS } from '../parsers';
import type { ParseResult, StreamDelta, ToolShape } from '../parsers';

export const PARSE_USAGE = `usage: node-vllm-cpp parse --tool-call-parser NAME [--tools tools.json] [--stream [--chunk-size N]] < output.txt

  --tool-call-parser NAME  vLLM's parser name (alias --parser)
  --tools FILE             a JSON list of tools, or a request body with "tools"
  --stream                 feed the input through the streaming parser
  --chunk-size N           code points per chunk with --stream (default 1)`;

export function runParse(args: string[], input: string | (() => string)): { stdout: string; exitCode: number } {
  const a = parseArgs(args, new Set(['tool-call-parser', 'tools', 'chunk-size']), new Set(['stream']), { parser: 'tool-call-parser' });
  if (a.help) return { stdout: PARSE_USAGE + '\n', exitCode: 0 };
  if (a.positionals.length) throw new UsageError(`parse: unexpected argument ${JSON.stringify(a.positionals[0])}`);
  const parser = str(a, 'tool-call-parser');
  if (!parser) throw new UsageError('parse: --tool-call-parser NAME is required');
  if (!TOOL_PARSERS.includes(parser)) throw new UsageError(`parse: unknown --tool-call-parser ${JSON.stringify(parser)}; known: ${TOOL_PARSERS.join(', ')}`);
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
  if (stream) {
    const p = createStreamingToolParser({ parser, tools });
    const deltas: StreamDelta[] = [];
    const codePoints = Array.from(input);
    for (let i = 0; i < codePoints.length; i += chunkSize) deltas.push(...p.push(codePoints.slice(i, i + chunkSize).join('')));
    deltas.push(...p.end());
    result = accumulateDeltas(deltas);
  } else {
    result = parseToolCalls(input, { parser, tools });
  }
  return { stdout: JSON.stringify({ content: result.content, tool_calls: result.tool_calls }) + '\n', exitCode: 0 };
}
