/**
 * Round trip: render an assistant tool call with a chat template, take the
 * text the template produced for it, parse it back with the matching
 * tool-call parser, and compare the arguments as Python values. Reports the
 * pairs where the template itself loses information (key order, number type).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { packageRoot } from '../native/loader';
import { pyReprOfJson } from '../native/embedded';
import { makePyDict, isPyDict, pyEntries, parsePyJson, serializePyJson } from '../protocol/pyjson';
import { parseToolCalls } from '../parsers';
import { renderChat, type ChatFunctionTool } from '../render';

export interface RoundTripPair {
  /** A template path. */
  template: string;
  parser: string;
  /** The call id the history carries (templates that render ids need their model's style). */
  callId?: (tool: string) => string;
}

export interface RoundTripVector {
  id: string;
  tool: string;
  /** Arguments as the client sends them: a JSON text. */
  arguments: string;
}

/** Tools the vectors call, with schemas so parsers can type bare values. */
export const ROUND_TRIP_TOOLS: ChatFunctionTool[] = [
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
          note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
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

/** Length of the common prefix, backed off so it never ends inside a `<...>` special token. */
function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const open = b.lastIndexOf('<', i - 1);
  if (open >= 0 && b.lastIndexOf('>', i - 1) < open) i = open;
  return i;
}

export function roundTrip(pair: RoundTripPair, v: RoundTripVector): RoundTripResult {
  const source = fs.readFileSync(pair.template, 'utf8');
  const user = { role: 'user', content: 'Please do it.' };
  const call = { id: pair.callId?.(v.tool) ?? 'call_rt_1', type: 'function', function: { name: v.tool, arguments: v.arguments } };
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

export function roundTripReport(
  pairs: Array<RoundTripPair & { known?: Known }>,
  vectors = ROUND_TRIP_VECTORS,
): { results: RoundTripResult[]; unexpected: number; text: string } {
  const results: RoundTripResult[] = [];
  for (const p of pairs) for (const v of vectors) results.push(roundTrip(p, v));
  const lines = ['round trip: template -> rendered tool call -> parser -> arguments (compared as Python values)'];
  let unexpected = 0;
  for (const p of pairs) {
    const rs = results.filter((r) => r.template === p.template && r.parser === p.parser);
    const count = (s: RoundTripStatus) => rs.filter((r) => r.status === s).length;
    lines.push(`  ${p.template.split('/').pop()} + ${p.parser}: exact ${count('exact')}, reordered ${count('reordered')}, lossy ${count('lossy')}, failed ${count('failed')} / ${rs.length}`);
    for (const r of rs.filter((x) => x.status !== 'exact')) {
      const known = p.known?.[r.vector];
      const why = known && known[0] === r.status ? `known: ${known[1]}` : 'UNEXPECTED';
      if (why === 'UNEXPECTED') unexpected++;
      lines.push(`    ${r.vector}: ${r.status} [${why}]: expected ${r.expected}${r.actual ? `, got ${r.actual}` : ''}`);
    }
  }
  lines.push(unexpected ? `${unexpected} unexpected outcome(s)` : 'no unexpected losses');
  return { results, unexpected, text: lines.join('\n') + '\n' };
}

/** Our own small templates for formats no shared template renders (DSML). */
function ownTemplatesDir(): string {
  return path.join(packageRoot(), 'test', 'roundtrip');
}

// Known, explained losses: [status, reason] per vector id.
export type Known = Record<string, [RoundTripStatus, string]>;
// Gemma 4 templates emit arguments through `dictsort` (keys sorted case-insensitively)
// and print None with Python's str() — the key order and null are not recoverable.
const GEMMA_DICTSORT: Known = Object.fromEntries(
  ['code', 'windows_path', 'unicode', 'numbers', 'nested', 'key_order'].map((id) => [id, ['reordered', 'dictsort']]),
);
const GEMMA: Known = {
  ...GEMMA_DICTSORT,
  bool_null: ['lossy', 'the template prints None, which the format reads back as the string "None"'],
  float_integral: ['lossy', "vLLM's schema coercion turns an integral float into an int for `number` parameters"],
};
// vLLM's schema coercion (coerce_to_schema_type) turns 1.0 into 1 for `number` parameters.
const SCHEMA_COERCION: Known = {
  float_integral: ['lossy', "vLLM's schema coercion turns an integral float into an int for `number` parameters"],
};

// vLLM's Hermes example template closes the JSON object after the name
// (`{"name": "f"}, "arguments": {...}`), so its own output is not valid
// Hermes JSON; Python renders it the same way (see the hermes goldens).
const HERMES_EXAMPLE_MALFORMED: Known = Object.fromEntries(
  ROUND_TRIP_VECTORS.map((v) => [v.id, ['failed', 'template emits {"name": ...}, "arguments": ... (malformed JSON)']]),
);

const allVectors = (status: RoundTripStatus, why: string): Known =>
  Object.fromEntries(ROUND_TRIP_VECTORS.map((v) => [v.id, [status, why]]));
// The DeepSeek V3 template concatenates `arguments` as a string, but vLLM
// hands templates a mapping: rendering raises TypeError (in Python too).
const ARGS_AS_STRING = allVectors('failed', 'template concatenates arguments as a string; vLLM passes a mapping (TypeError, as in Python)');
// vLLM's ToolACE example template formats values with "%sr" (unquoted, plus an `r`), not %r.
// A call without arguments (`now()`) has no value to mangle and comes back exact.
const { no_args: _exactWithoutArgs, ...TOOLACE_UNQUOTED } = allVectors('failed', 'template prints values unquoted with a trailing r ("%sr"), not Python literals');
// vLLM's Phi-4-mini example template renders past calls without `functools[` and with Python-repr arguments.
const PHI4_HISTORY = allVectors('failed', 'template renders history calls without functools[...] and with Python-repr arguments');
// FunctionGemma renders arguments through `dictsort` and prints None as `None`, like Gemma 4.
const FUNCTIONGEMMA: Known = {
  ...GEMMA_DICTSORT,
  bool_null: ['lossy', 'the template prints None, which the format reads back as the string "None"'],
};

export interface KnownPair {
  name: string;
  template: string;
  parser: string;
  callId?: (tool: string) => string;
  /** Explained, expected non-exact outcomes per vector id. */
  known: Known;
  /** The template lives in the shared templates directory (absent -> skipped). */
  needsShared: boolean;
}

/** The supported template/parser pairs, with the losses each template is known to cause. */
export function roundTripPairs(templatesDir: string): KnownPair[] {
  const shared = (f: string) => path.join(templatesDir, f);
  const own = (f: string) => path.join(ownTemplatesDir(), f);
  return [
  { name: 'gemma4 official v4', template: shared('gemma4__official_v4.jinja'), parser: 'gemma4', known: GEMMA, needsShared: true },
  { name: 'gemma4 vLLM example', template: shared('gemma4__vllm_example.jinja'), parser: 'gemma4', known: GEMMA, needsShared: true },
  { name: 'qwen3-coder', template: shared('qwen3coder__vllm_example.jinja'), parser: 'qwen3_coder', known: {}, needsShared: true },
  { name: 'qwen3.6', template: shared('qwen3_6__official.jinja'), parser: 'qwen3_coder', known: {}, needsShared: true },
  { name: 'qwen3.5', template: shared('qwen3_5__official_think.jinja'), parser: 'qwen3_coder', known: {}, needsShared: true },
  { name: 'hermes', template: shared('hermes__vllm_example.jinja'), parser: 'hermes', known: HERMES_EXAMPLE_MALFORMED, needsShared: true },
  { name: 'qwen3 (hermes format)', template: shared('qwen3__official.jinja'), parser: 'hermes', known: {}, needsShared: true },
  // vLLM's DeepSeek V3.2 example template renders the V3.1 wire format.
  { name: 'deepseek v3.2 vLLM example', template: shared('deepseek_v3_2__vllm_example.jinja'), parser: 'deepseek_v31', known: {}, needsShared: true },
  { name: 'deepseek v3.1 vLLM example', template: shared('deepseek_v3_1__vllm_example.jinja'), parser: 'deepseek_v31', known: {}, needsShared: true },
  { name: 'deepseek v3.2 DSML', template: own('deepseek_v32_dsml.jinja'), parser: 'deepseek_v32', known: SCHEMA_COERCION, needsShared: false },
  { name: 'deepseek v3 official', template: shared('deepseek_v3__official.jinja'), parser: 'deepseek_v3', known: ARGS_AS_STRING, needsShared: true },
  { name: 'functiongemma', template: shared('functiongemma__official.jinja'), parser: 'functiongemma', known: FUNCTIONGEMMA, needsShared: true },
  { name: 'glm-4.5', template: shared('glm4_5__official_glm4moe.jinja'), parser: 'glm45', known: {}, needsShared: true },
  { name: 'gpt-oss', template: shared('gpt_oss__official.jinja'), parser: 'openai', known: {}, needsShared: true },
  { name: 'granite', template: shared('granite__vllm_example.jinja'), parser: 'granite', known: {}, needsShared: true },
  { name: 'hunyuan a13b', template: shared('hunyuan_a13b__vllm_example.jinja'), parser: 'hunyuan_a13b', known: {}, needsShared: true },
  { name: 'internlm2', template: shared('internlm2__vllm_tool.jinja'), parser: 'internlm', known: {}, needsShared: true },
  // The Kimi template renders only the call id, which carries the name (`functions.NAME:N`).
  { name: 'kimi k2', template: shared('kimi_k2__thinking.jinja'), parser: 'kimi_k2', known: {}, needsShared: true, callId: (tool) => `functions.${tool}:0` },
  { name: 'llama 3.1 json', template: shared('llama3_1__vllm_json.jinja'), parser: 'llama3_json', known: {}, needsShared: true },
  { name: 'llama 3.2', template: shared('llama3_2__official_3b_instruct.jinja'), parser: 'llama3_json', known: {}, needsShared: true },
  { name: 'llama 4 json', template: shared('llama4__vllm_json.jinja'), parser: 'llama4_json', known: {}, needsShared: true },
  { name: 'minimax m2', template: shared('minimax_m2__unsloth.jinja'), parser: 'minimax_m2', known: {}, needsShared: true },
  { name: 'mistral 7b v0.3', template: shared('mistral__7b_instruct_v0_3.jinja'), parser: 'mistral', known: {}, needsShared: true },
  { name: 'phi-4-mini', template: shared('phi4_mini__vllm_example.jinja'), parser: 'phi4_mini_json', known: PHI4_HISTORY, needsShared: true },
  { name: 'toolace (pythonic)', template: shared('toolace__vllm_example.jinja'), parser: 'pythonic', known: TOOLACE_UNQUOTED, needsShared: true },
  ];
}

