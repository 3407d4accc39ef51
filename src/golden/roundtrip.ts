/**
 * Round trip: render an assistant tool call with a chat template, take the
 * text the template produced for it, parse it back with the matching
 * tool-call parser, and compare the arguments as Python values. Reports the
 * pairs where the template itself loses information (key order, number type).
 */
import * as fs from 'node:fs';
import { pyReprOfJson } from '../native/embedded';
import { makePyDict, isPyDict, pyEntries, parsePyJson, serializePyJson } from '../protocol/pyjson';
import { parseToolCalls, type ToolShape } from '../parsers';
import { renderChat } from '../render';

export interface RoundTripPair {
  /** A template path. */
  template: string;
  parser: string;
}

export interface RoundTripVector {
  id: string;
  tool: string;
  /** Arguments as the client sends them: a JSON text. */
  arguments: string;
}

/** Tools the vectors call, with schemas so parsers can type bare values. */
export const ROUND_TRIP_TOOLS: ToolShape[] = [
  {
    type: 'function' as const,
    function: {
      name: 'terminal',
      description: 'Run a shell command',
      parameters: { type: 'object', properties: { command: { type: 'string' }, timeout: { type: 'integer' } }, required: ['command'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'write_file',
      description: 'Write a file',
      parameters: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'search',
      description: 'Search the code base',
      parameters: {
        type: 'object',
        properties: {
          query: { type: 'string' },
          limit: { type: 'integer' },
          ratio: { type: 'number' },
          exact: { type: 'boolean' },
          filters: { type: 'object' },
          tags: { type: 'array' },
          note: { type: ['string', 'null'] },
        },
      },
    },
  },
  { type: 'function', function: { name: 'now', description: 'Current time', parameters: { type: 'object', properties: {} } } },
];

export const ROUND_TRIP_VECTORS: RoundTripVector[] = [
  { id: 'simple', tool: 'terminal', arguments: '{"command": "date"}' },
  { id: 'int', tool: 'terminal', arguments: '{"command": "sleep 1", "timeout": 30}' },
  { id: 'code', tool: 'write_file', arguments: JSON.stringify({ path: 'src/a.py', content: 'def f(x):\n    return "quoted" + \'single\' + "\\n"\n\tprint({"k": [1, 2]})\n' }) },
  { id: 'windows_path', tool: 'write_file', arguments: JSON.stringify({ path: 'C:\\new\\temp\\file.txt', content: 'x' }) },
  { id: 'unicode', tool: 'search', arguments: '{"query": "café 😀 日本語 \\"q\\"", "limit": 10}' },
  { id: 'numbers', tool: 'search', arguments: '{"query": "n", "ratio": 0.25, "limit": 12345678901234567890}' },
  { id: 'float_integral', tool: 'search', arguments: '{"query": "n", "ratio": 1.0}' },
  { id: 'bool_null', tool: 'search', arguments: '{"exact": true, "note": null, "query": "q"}' },
  { id: 'nested', tool: 'search', arguments: '{"query": "q", "filters": {"lang": "ts", "paths": ["src", "test"], "depth": 2}, "tags": ["a", "b"]}' },
  { id: 'key_order', tool: 'search', arguments: '{"query": "z", "exact": false, "limit": 1}' },
  { id: 'no_args', tool: 'now', arguments: '{}' },
];

export type RoundTripStatus = 'exact' | 'reordered' | 'lossy' | 'failed';

export interface RoundTripResult {
  template: string;
  parser: string;
  vector: string;
  status: RoundTripStatus;
  expected: string;
  actual?: string;
  detail?: string;
}

/** Deep copy with every dict's keys sorted (Python-style, by code point). */
function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (isPyDict(v)) {
    const entries = pyEntries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return makePyDict(entries.map(([k, x]) => [k, sortKeys(x)] as const));
  }
  return v;
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

export function roundTrip(pair: RoundTripPair, v: RoundTripVector): RoundTripResult {
  const source = fs.readFileSync(pair.template, 'utf8');
  const user = { role: 'user', content: 'Please do it.' };
  const call = { id: 'call_rt_1', type: 'function', function: { name: v.tool, arguments: v.arguments } };
  const expected = pyReprOfJson(v.arguments);
  const base = { template: pair.template, parser: pair.parser, vector: v.id, expected };
  try {
    const opts = { template: source, bosToken: '<bos>', eosToken: '<eos>', now: '2026-01-15T10:30:00' };
    const prefix = renderChat({ messages: [user], tools: ROUND_TRIP_TOOLS }, { ...opts, addGenerationPrompt: true }).prompt;
    const full = renderChat(
      { messages: [user, { role: 'assistant', content: '', tool_calls: [call] }], tools: ROUND_TRIP_TOOLS },
      { ...opts, addGenerationPrompt: false },
    ).prompt;
    const generated = full.slice(commonPrefix(prefix, full));
    const parsed = parseToolCalls(generated, { parser: pair.parser, tools: ROUND_TRIP_TOOLS });
    if (parsed.tool_calls.length !== 1) {
      return { ...base, status: 'failed', detail: `parsed ${parsed.tool_calls.length} calls from ${JSON.stringify(generated)}` };
    }
    const got = parsed.tool_calls[0].function;
    if (got.name !== v.tool) return { ...base, status: 'failed', detail: `name ${got.name}` };
    const actual = pyReprOfJson(got.arguments);
    if (actual === expected) return { ...base, status: 'exact', actual };
    const sortedExpected = pyReprOfJson(serializePyJson(sortKeys(parsePyJson(v.arguments))));
    const sortedActual = pyReprOfJson(serializePyJson(sortKeys(parsePyJson(got.arguments))));
    if (sortedActual === sortedExpected) return { ...base, status: 'reordered', actual, detail: 'same values, key order not preserved' };
    return { ...base, status: 'lossy', actual, detail: `rendered as ${JSON.stringify(generated)}` };
  } catch (e) {
    return { ...base, status: 'failed', detail: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  }
}

export function roundTripReport(pairs: RoundTripPair[], vectors = ROUND_TRIP_VECTORS): { results: RoundTripResult[]; text: string } {
  const results: RoundTripResult[] = [];
  for (const p of pairs) for (const v of vectors) results.push(roundTrip(p, v));
  const lines = ['round trip: template -> rendered tool call -> parser -> arguments (compared as Python values)'];
  for (const p of pairs) {
    const rs = results.filter((r) => r.template === p.template && r.parser === p.parser);
    const count = (s: RoundTripStatus) => rs.filter((r) => r.status === s).length;
    lines.push(`  ${p.template.split('/').pop()} + ${p.parser}: exact ${count('exact')}, reordered ${count('reordered')}, lossy ${count('lossy')}, failed ${count('failed')} / ${rs.length}`);
    for (const r of rs.filter((x) => x.status !== 'exact')) {
      lines.push(`    ${r.vector}: ${r.status}: expected ${r.expected}${r.actual ? `, got ${r.actual}` : ''}${r.detail ? ` (${r.detail})` : ''}`);
    }
  }
  return { results, text: lines.join('\n') + '\n' };
}
