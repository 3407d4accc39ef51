/**
 * The allocation-light fast paths must agree with the reference behaviour:
 * isCertainlyValidRequest never accepts what zod rejects, and Python reads
 * back exactly the values the serializer was given.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ChatCompletionRequestSchema, isCertainlyValidRequest, validateRequest,
} from '../../src/protocol/schemas';
import { makePyDict, parsePyJson, pyEntries, PyFloat, PreEncoded, serializePyJson } from '../../src/protocol/pyjson';
import { RequestValidationError } from '../../src/errors';
import { rng } from '../support/random';
import { tagOf } from './canonical';

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

// Python reads what we write: json.loads of each serialized random value,
// tagged by type, must equal the value's own Python meaning (tagOf).
const PY_TAGS = `
import json, sys
def tag(v):
    if v is None: return ["none"]
    if isinstance(v, bool): return ["bool", v]
    if isinstance(v, int): return ["int", str(v)]
    if isinstance(v, float): return ["float", repr(v)]
    if isinstance(v, str): return ["str", v]
    if isinstance(v, list): return ["list", [tag(x) for x in v]]
    return ["dict", [[k, tag(x)] for k, x in v.items()]]
print(json.dumps([tag(json.loads(t)) for t in json.loads(sys.stdin.read())]))
`;

function withoutUndefined(v: unknown): unknown {
  if (v === undefined) return null;
  if (Array.isArray(v)) return v.map(withoutUndefined);
  if (v instanceof Map) return new Map([...v.entries()].filter(([, x]) => x !== undefined).map(([k, x]) => [k, withoutUndefined(x)]));
  if (v && typeof v === 'object' && !(v instanceof PyFloat)) {
    return makePyDict(pyEntries(v).filter(([, x]) => x !== undefined).map(([k, x]) => [k, withoutUndefined(x)] as const));
  }
  return v;
}

describe('serializePyJson', () => {
  it('Python json.loads reads back the same values (3000 random values and the golden requests)', () => {
    const rand = rng(7);
    const values: unknown[] = [...requests];
    for (let n = 0; n < 3000; n++) values.push(withoutUndefined(randomValue(rand, 0)));
    const texts = values.map((v) => serializePyJson(v));
    const out = execFileSync('python3', ['-c', PY_TAGS], { input: JSON.stringify(texts), maxBuffer: 1 << 28 }).toString();
    const tags = JSON.parse(out) as unknown[];
    for (let i = 0; i < values.length; i++) expect(tags[i], texts[i]).toEqual(tagOf(values[i]));
    const parsed = parsePyJson('{"b": 1, "2": [1.0, -0.0, 1e400], "a": {"1": "x", "0": null}}');
    expect(serializePyJson(parsed)).toBe('{"b": 1, "2": [1.0, -0.0, Infinity], "a": {"1": "x", "0": null}}');
  });

  it('compact output: the containers handed to JSON.stringify are written as the encoder writes them (4000 random values)', () => {
    // The separators are the only difference between the two modes for these
    // values (no string holds ", " or ": "), and the spaced mode never takes
    // the JSON.stringify path; Python reads the compact texts back too.
    class Box {
      x = 1;
    }
    const extras: Array<() => unknown> = [
      () => ({ plain: 'object', n: 1 }), () => Object.assign(Object.create(null), { a: 1 }), () => new Date(0), () => new Box(),
      () => new PreEncoded('[1,2]'), () => ({ toJSON: () => 'x' }), () => Object.assign([1], { toJSON: () => 'y' }),
      () => 1e21, () => -(2 ** 53), () => 2 ** 53 - 1, () => 0.1, () => -1.5e-7,
      () => { let v: unknown = ['leaf', 2 ** 60]; for (let i = 0; i < 70; i++) v = i % 2 ? [v] : { k: v }; return v; },
      () => { const shared = { s: [1, 'x'] }; return [shared, { again: shared }]; },
    ];
    const rand = rng(11);
    const values: unknown[] = [];
    const withExtras = (v: unknown, depth: number): unknown => {
      if (Array.isArray(v)) return v.map((x) => withExtras(x, depth + 1));
      if (v && typeof v === 'object' && !(v instanceof PyFloat) && !(v instanceof Map) && depth < 4 && rand() < 0.3) {
        return { ...(v as object), extra: extras[Math.floor(rand() * extras.length)]!() };
      }
      return v;
    };
    for (let n = 0; n < 4000; n++) values.push(withExtras(randomValue(rand, 0), 0));
    for (const make of extras) values.push({ messages: [make()], tools: [{ t: make() }] }, [make()]);
    const strip = (t: string) => t.replaceAll(', ', ',').replaceAll(': ', ':');
    const outcome = (f: () => string): string => {
      try {
        return f();
      } catch (e) {
        return `throws ${(e as Error).name}: ${(e as Error).message}`;
      }
    };
    let thrown = 0;
    const readable: unknown[] = [];
    for (const v of values) {
      const spaced = outcome(() => strip(serializePyJson(v)));
      expect(outcome(() => serializePyJson(v, { compact: true })), spaced).toBe(spaced);
      if (spaced.startsWith('throws ')) thrown++;
      else if (!spaced.includes('[1,2]')) readable.push(v);
    }
    expect(thrown).toBeGreaterThan(0);
    expect(readable.length).toBeGreaterThan(3000);
    const texts = readable.map((v) => serializePyJson(withoutUndefined(v), { compact: true }));
    const out = execFileSync('python3', ['-c', PY_TAGS], { input: JSON.stringify(texts), maxBuffer: 1 << 28 }).toString();
    const tags = JSON.parse(out) as unknown[];
    for (let i = 0; i < readable.length; i++) expect(tags[i], texts[i]).toEqual(tagOf(parsePyJson(strip(serializePyJson(withoutUndefined(readable[i]))))));
  });

  it('still detects cycles, also below the top level', () => {
    const a: unknown[] = [];
    a.push({ x: a });
    expect(() => serializePyJson(a)).toThrow(/Circular reference/);
    const shared = { k: 1 };
    expect(serializePyJson([shared, shared])).toBe('[{"k": 1}, {"k": 1}]');
    expect(() => serializePyJson(a, { compact: true })).toThrow(/Circular reference/);
    const b: Record<string, unknown> = { ok: [1, 2] };
    b.self = { deeper: [b] };
    expect(() => serializePyJson({ top: b }, { compact: true })).toThrow(/Circular reference/);
  });
});
