/**
 * `parse --parser NAME [--tools tools.json] [--stream [--chunk-size N]]`
 *
 * Parses raw model output (given as `input`) into one OpenAI message object
 * `{"content", "tool_calls"}` printed as a single JSON line. With `--stream`
 * the input goes through the streaming parser in chunks of N code points
 * (default 1) and the printed object is what an OpenAI client accumulates
 * from the deltas.
 */
import * as fs from 'fs';
import { parseArgs, str, UsageError } from './args';
import { accumulateDeltas, createStreamingToolParser, parseToolCalls } from '../parsers';
import type { ParseResult, StreamDelta, ToolShape } from '../parsers';

function readTools(file: string): ToolShape[] {
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new UsageError(`--tools: cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const list = Array.isArray(data) ? data : typeof data === 'object' && data !== null ? (data as { tools?: unknown }).tools : undefined;
  if (!Array.isArray(list)) throw new UsageError('--tools: expected a list of tools or an object with a "tools" list');
  return list as ToolShape[];
}

export function runParse(args: string[], input: string): { stdout: string; exitCode: number } {
  const a = parseArgs(args, new Set(['parser', 'tools', 'chunk-size']), new Set(['stream']));
  if (a.positionals.length) throw new UsageError(`parse: unexpected argument ${JSON.stringify(a.positionals[0])}`);
  const parser = str(a, 'parser');
  if (!parser) throw new UsageError('parse: --parser NAME is required');
  const toolsFile = str(a, 'tools');
  const tools = toolsFile ? readTools(toolsFile) : undefined;
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
