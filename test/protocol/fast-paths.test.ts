/**
 * The allocation-light fast paths must agree with the reference behaviour:
 * isCertainlyValidRequest never accepts what zod rejects, and the serializer
 * writes exactly what the straightforward implementation wrote.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ChatCompletionRequestSchema, isCertainlyValidRequest, validateRequest,
} from '../../src/protocol/schemas';
import { makePyDict, parsePyJson, pyEntries, PyFloat, serializePyJson } from '../../src/protocol/pyjson';
import { RequestValidationError } from '../../src/errors';
import { rng } from '../support/random';

const casesDir = join(__dirname, '..', 'golden', 'cases');
const requests: unknown[] = readdirSync(casesDir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => (JSON.parse(readFileSync(join(casesDir, f), 'utf8')) as { request: unknown }).request);
// every field the schemas look at, valid
const KITCHEN_SINK = {
  messages: [
    { role: 'system', content: [{ type: 'text', text: 's' }, 'plain', { type: 'input_text', text: null }], name: 'n' },
    { role: 'developer', content: 'd', tools: [{ any: 1 }] },
    { role: 'user', content: [{ type: 'output_text', text: 'o' }, { type: 'refusal', refusal: 'r' }, { type: 'thinking', thinking: 't' },
      { type: 'tool_reference', name: 'tr' }, { type: 'image_url', image_url: { url: 'u' } }, { no_type: 1 }], task: 'x' },
    { role: 'assistant', content: null, reasoning: 'r', reasoning_content: null,
      tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}', extra: 1 }, more: 2 }] },
    { role: 'tool', content: 'out', tool_call_id: 'c' },
    { role: 'function', content: 'x', tool_calls: null, tool_call_id: null, reasoning: 'y', tools: [] },
  ],
  tools: [{ type: 'function', defer_loading: true, function: { name: 'f', description: 'd', parameters: { type: 'object' }, strict: false, defer_loading: null } }],
  tool_choice: 'auto',
  add_generation_prompt: true,
  continue_final_message: false,
  chat_template: null,
  chat_template_kwargs: { enable_thinking: false },
  documents: [{ title: 't', text: 'x' }],
  reasoning_effort: 'low',
};
for (let i = 0; i < 8; i++) requests.push(KITCHEN_SINK);


const REPLACEMENTS: Array<() => unknown> = [
  () => null, () => undefined, () => 1, () => 0, () => new PyFloat(1, '1.0'), () => 2n ** 70n, () => '', () => 'x',
  () => 'function', () => 'text', () => 'assistant', () => 'tool', () => true, () => false, () => [], () => [1], () => ({}),
  () => ({ type: 'text' }), () => ({ type: 'text', text: 3 }), () => ({ type: 'tool_reference' }), () => new Map(),
  () => ({ then: () => 0, catch: () => 0 }), () => new Date(0), () => ({ role: 'user' }),
  () => [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } }],
  () => [{ type: 'function', function: { name: 'f' } }],
];

function clone(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v));
}

/** All container paths of v. */
function containers(v: unknown, path: Array<string | number> = [], out: Array<Array<string | number>> = []): Array<Array<string | number>> {
  if (typeof v === 'object' && v !== null) {
    out.push(path);
    for (const [k, x] of Array.isArray(v) ? v.entries() : Object.entries(v)) containers(x, [...path, k], out);
  }
  return out;
}

function at(v: unknown, path: Array<string | number>): Record<string | number, unknown> {
  let cur = v as Record<string | number, unknown>;
  for (const p of path) cur = cur[p] as Record<string | number, unknown>;
  return cur;
}

const KEYS = ['role', 'content', 'text', 'type', 'name', 'arguments', 'function', 'id', 'tool_calls', 'tools', 'messages',
  'reasoning', 'reasoning_content', 'tool_call_id', 'refusal', 'thinking', 'parameters', 'strict', 'defer_loading',
  'description', 'documents', 'chat_template', 'chat_template_kwargs', 'add_generation_prompt', 'continue_final_message',
  'reasoning_effort', 'task', 'extra'];

describe('isCertainlyValidRequest', () => {
  it('accepts the valid golden requests (so the fast path is taken)', () => {
    let accepted = 0;
    for (const req of requests) {
      const ok = ChatCompletionRequestSchema.safeParse(req).success;
      const fast = isCertainlyValidRequest(req);
      if (fast) expect(ok).toBe(true);
      if (fast) accepted++;
    }
    expect(accepted).toBeGreaterThan(requests.length * 0.8);
  });

  it('never accepts a mutated request that zod rejects', () => {
    const rand = rng(12345);
    let rejectedByZod = 0;
    for (let n = 0; n < 6000; n++) {
      const req = clone(requests[Math.floor(rand() * requests.length)]);
      const edits = 1 + Math.floor(rand() * 2);
      for (let e = 0; e < edits; e++) {
        const paths = containers(req);
        const target = at(req, paths[Math.floor(rand() * paths.length)]!);
        if (typeof target !== 'object' || target === null || target instanceof Map || target instanceof Date) continue;
        const keys = Object.keys(target);
        const key = Array.isArray(target)
          ? Math.floor(rand() * (target.length + 1))
          : rand() < 0.7 && keys.length ? keys[Math.floor(rand() * keys.length)]! : KEYS[Math.floor(rand() * KEYS.length)]!;
        if (rand() < 0.15 && !Array.isArray(target)) delete target[key];
        else target[key] = REPLACEMENTS[Math.floor(rand() * REPLACEMENTS.length)]!();
      }
      const ok = ChatCompletionRequestSchema.safeParse(req).success;
      if (!ok) rejectedByZod++;
      if (isCertainlyValidRequest(req) && !ok) expect.fail(serializePyJson(req));
    }
    expect(rejectedByZod).toBeGreaterThan(1000);
  });

  it('errors still come from zod with the JSON path', () => {
    const req = { messages: [{ role: 'user', content: [{ type: 'text', text: 5 }] }] };
    expect(isCertainlyValidRequest(req)).toBe(false);
    expect(() => validateRequest(ChatCompletionRequestSchema, req)).toThrow(RequestValidationError);
    expect(() => validateRequest(ChatCompletionRequestSchema, req)).toThrow(/^messages\[0\]\.content\[0\]\.text: /);
  });
});

// The serializer as it was written before the fast paths (reference).
function refEscape(s: string): string {
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let rep: string | null = null;
    if (c === 0x22) rep = '\\"';
    else if (c === 0x5c) rep = '\\\\';
    else if (c < 0x20) {
      rep = c === 0x0a ? '\\n' : c === 0x0d ? '\\r' : c === 0x09 ? '\\t' : c === 0x08 ? '\\b' : c === 0x0c ? '\\f'
        : '\\u' + c.toString(16).padStart(4, '0');
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const d = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
      rep = '\\u' + c.toString(16);
    }
    if (rep !== null) {
      out += s.slice(start, i) + rep;
      start = i + 1;
    }
  }
  return out + s.slice(start) + '"';
}
function refNumber(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  if (Object.is(v, -0)) return '-0.0';
  if (Number.isInteger(v)) return Number.isSafeInteger(v) ? String(v) : BigInt(v).toString();
  return String(v);
}
function refSerialize(v: unknown): string {
  if (typeof v === 'string') return refEscape(v);
  if (typeof v === 'number') return refNumber(v);
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (v === undefined || v === null) return 'null';
  if (v instanceof PyFloat) {
    if (!Number.isFinite(v.value)) return refNumber(v.value);
    if (v.text !== undefined) return v.text;
    if (Object.is(v.value, -0)) return '-0.0';
    const t = String(v.value);
    return /[.eE]/.test(t) ? t : t + '.0';
  }
  if (Array.isArray(v)) return '[' + v.map(refSerialize).join(', ') + ']';
  const entries: Array<[string, unknown]> = v instanceof Map ? [...v.entries()].map(([k, x]) => [String(k), x]) : pyEntries(v as object);
  return '{' + entries.filter(([, x]) => x !== undefined).map(([k, x]) => refEscape(k) + ': ' + refSerialize(x)).join(', ') + '}';
}

const STRINGS = ['', 'plain', 'quote " and \\ backslash', 'ctl \x00\x01\x1f\n\r\t\b\f', '\ud83d\ude00 pair', 'lone \ud800 x',
  'lone low \udc00', 'end high \ud83d', 'ünïcödé', '\u2028\u2029', '12', '__proto__', 'é"'];

function randomValue(rand: () => number, depth: number): unknown {
  const r = rand();
  if (depth > 3 || r < 0.45) {
    const p = [
      () => STRINGS[Math.floor(rand() * STRINGS.length)], () => Math.floor(rand() * 1000) - 500, () => rand() * 10,
      () => -0, () => NaN, () => Infinity, () => -Infinity, () => 2 ** 60, () => 2n ** 80n, () => new PyFloat(3),
      () => new PyFloat(-0), () => new PyFloat(1e300), () => new PyFloat(2, '2.000'), () => true, () => false, () => null,
      () => undefined,
    ];
    return p[Math.floor(rand() * p.length)]!();
  }
  const n = Math.floor(rand() * 4);
  if (r < 0.65) return Array.from({ length: n }, () => randomValue(rand, depth + 1));
  const entries: Array<[string, unknown]> = Array.from({ length: n }, () => [STRINGS[Math.floor(rand() * STRINGS.length)]!, randomValue(rand, depth + 1)]);
  if (r < 0.75) return new Map(entries);
  return makePyDict(entries);
}

describe('serializePyJson fast paths', () => {
  it('writes byte-for-byte what the reference serializer wrote', () => {
    const rand = rng(7);
    for (let n = 0; n < 3000; n++) {
      const v = randomValue(rand, 0);
      expect(serializePyJson(v)).toBe(refSerialize(v));
    }
    for (const req of requests) expect(serializePyJson(req)).toBe(refSerialize(req));
    const parsed = parsePyJson('{"b": 1, "2": [1.0, -0.0, 1e400], "a": {"1": "x", "0": null}}');
    expect(serializePyJson(parsed)).toBe(refSerialize(parsed));
    expect(serializePyJson(parsed)).toBe('{"b": 1, "2": [1.0, -0.0, Infinity], "a": {"1": "x", "0": null}}');
  });

  it('still detects cycles, also below the top level', () => {
    const a: unknown[] = [];
    a.push({ x: a });
    expect(() => serializePyJson(a)).toThrow(/Circular reference/);
    const shared = { k: 1 };
    expect(serializePyJson([shared, shared])).toBe('[{"k": 1}, {"k": 1}]');
  });
});
