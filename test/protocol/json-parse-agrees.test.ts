/**
 * parsePyJson takes JSON.parse's value only where it is the lossless
 * decoder's: on every text, both give the same value (and the same errors).
 * The lossless decoder itself is checked against CPython's json.loads
 * (test/protocol/pyjson.test.ts, vectors.json).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { compileTemplate } from '../../src';
import { DROPPED_VALUE_RISK, parseIfAgrees } from '../../src/protocol/json-parse-agrees';
import { decodePyJson, decodePyJsonExact, parsePyJson, PyFloat, pyKeys, serializePyJson, SharedMembers } from '../../src/protocol/pyjson';
import { rng } from '../support/random';

/** Everything the lossless value model can tell apart: types, key order, PyFloat, bigint, -0. */
function shape(v: unknown): unknown {
  if (v instanceof PyFloat) return ['PyFloat', Object.is(v.value, -0) ? '-0' : v.value];
  if (typeof v === 'bigint') return ['bigint', String(v)];
  if (typeof v === 'number') return ['number', Object.is(v, -0) ? '-0' : Number.isNaN(v) ? 'NaN' : v];
  if (Array.isArray(v)) return v.map(shape);
  if (v !== null && typeof v === 'object') return pyKeys(v).map((k) => [k, shape((v as Record<string, unknown>)[k])]);
  return v;
}

function outcome(f: () => unknown): unknown {
  try {
    const v = f();
    return { ok: shape(v), text: serializePyJson(v) };
  } catch (e) {
    return { error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  }
}

const deep = (n: number) => '{"a":' + '['.repeat(n) + ']'.repeat(n) + '}';

const LINES = [
  '{"id":0,"template":"t.jinja","messages":[{"role":"user","content":"hi"}]}',
  '{"id":1.0,"template":"t"}',
  '{"id":1,"x":1e3}',
  '{"id":1,"x":1.5,"s":"January 15, 2026."}',
  '{"id":1,"s":"a \\", 2.0 b","x":[1, 2.5e1]}',
  '{"id":1,"s":"\\\\", "x": 2.0}',
  '{"id":1,"s":"x: 1.0"}',
  '{"id":-0}',
  '{"id":-0.0}',
  '{"id":9007199254740991}',
  '{"id":9007199254740992}',
  '{"id":123456789012345678901234567890}',
  '{"id":1' + '0'.repeat(4400) + '}',
  '{"x":1e400}',
  '{"x":NaN}',
  '{"x":-Infinity}',
  '{"2":"b","1":"a","x":1}',
  '{"a":1,"b":2,"a":3}',
  '{"__proto__":{"x":1}}',
  '{"s":"\\ud800 lone"}',
  '{"s":"\u00e9\u4e2d"}',
  '{"k":"v"} x',
  '{"k":01}',
  '[1.0]',
  '1.0',
  '"str"',
  'null',
  '{ "id" : 7 , "x" : [ 1 , 2 ] }',
  '{"id":1,"x":[ 3.25 ]}',
  '{"n":1,"t":0.7,"f":1.0}',
  '{"n":1,"t":0.7,"f":1e-400}',
  '{"n":1,"t":0.7,"f":2.5E+2}',
  '{"n":1,"t":0.7,"f":-3.0e0}',
  '{"n":1,"t":[0.7, 1.25e1, 1e-3]}',
  '{"n":1,"s":"\\\"","f":[ 4.0 ]}',
  '{"s":"\udc00 raw low"}',
  '{"s":"\\udc00 escaped low"}',
  '{"s":"\\uDFFF escaped low"}',
  '{"s":"\\\\ud800 not one"}',
  '\ufeff{"a":1}',
  ' \t\n\r{"a":1} \n',
  '{"a":"\u0000\u001f"}',
  '{"a":"\\u0000\\u001f"}',
  deep(50),
  deep(150),
  deep(1200),
];

const decodedShape = (f: () => { value: unknown; surrogates: boolean }) => {
  try {
    const d = f();
    return { ok: shape(d.value), surrogates: d.surrogates };
  } catch (e) {
    return { error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  }
};

describe('parsePyJson: JSON.parse where it agrees', () => {
  it.each(LINES.map((l) => [l.length > 80 ? l.slice(0, 60) + '...' : l, l]))('%s', (_name, line) => {
    expect(outcome(() => parsePyJson(line))).toEqual(outcome(() => decodePyJsonExact(line).value));
    const exact = decodedShape(() => decodePyJsonExact(line));
    const fast = decodedShape(() => decodePyJson(line));
    expect(fast.ok ?? fast.error).toEqual(exact.ok ?? exact.error);
    // the surrogate report may only err on the safe side
    if (exact.surrogates) expect(fast.surrogates).toBe(true);
  });

  it('agrees on 3000 random texts built from number, string and key spellings', () => {
    const rand = rng(5);
    const NUMS = ['0', '-0', '1', '-1', '1.0', '1.5', '0.7', '1e3', '1E-2', '2.5e+1', '1e400', '-0.0', '9007199254740993', '12345678901234567890', '3.0e-400', '100'];
    const STRS = ['"a"', '"1.0"', '"x\\"', '"q\\\"1.0"', '"\\ud800"', '"\ud83d\ude00"', '"\u00e9"', '": 2.0, "', '"[1.0"'];
    const KEYS = ['"k"', '"0"', '"1"', '"__proto__"', '"k"', '"a b"', '"0x"'];
    const gen = (d: number): string => {
      const r = rand();
      if (d > 3 || r < 0.4) return rand() < 0.6 ? NUMS[Math.floor(rand() * NUMS.length)]! : STRS[Math.floor(rand() * STRS.length)]!;
      const n = Math.floor(rand() * 4);
      const ws = () => (rand() < 0.2 ? ' ' : '');
      if (r < 0.7) return '[' + Array.from({ length: n }, () => ws() + gen(d + 1) + ws()).join(',') + ']';
      return '{' + Array.from({ length: n }, () => KEYS[Math.floor(rand() * KEYS.length)]! + ws() + ':' + ws() + gen(d + 1)).join(',') + '}';
    };
    let fastTaken = 0;
    let valid = 0;
    for (let i = 0; i < 3000; i++) {
      const text = rand() < 0.5 ? '{"m":' + gen(0) + ',"n":1}' : gen(0);
      expect(outcome(() => parsePyJson(text)), text).toEqual(outcome(() => decodePyJsonExact(text).value));
      let v: unknown;
      try {
        v = JSON.parse(text);
      } catch {
        continue;
      }
      valid++;
      if (shape(v) !== null && JSON.stringify(shape(v)) === JSON.stringify(shape(decodePyJsonExact(text).value))) fastTaken++;
    }
    // most texts are valid JSON, and on many of them JSON.parse is already right
    expect(valid).toBeGreaterThan(2500);
    expect(fastTaken).toBeGreaterThan(300);
  });

  it('shares a top-level member by value: equal tools give the kept value, different ones do not', () => {
    const shared = new SharedMembers('tools');
    const tools = '[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"x":{"type":"integer"}}}}}]';
    const a = decodePyJson(`{"messages":[],"tools":${tools}}`, shared);
    const b = decodePyJson(`{"tools": ${tools.replaceAll(',', ', ')}, "messages":[{"role":"user","content":"hi"}]}`, shared);
    expect(a.shared).toBeDefined();
    expect(b.shared).toBe(a.shared);
    expect((b.value as Record<string, unknown>).tools).toBe(a.shared!.value);
    const c = decodePyJson(`{"messages":[],"tools":${tools.replace('"integer"', '"string"')}}`, shared);
    expect(c.shared).not.toBe(a.shared);
    expect(shape((c.value as Record<string, unknown>).tools)).toEqual(shape(parsePyJson(tools.replace('"integer"', '"string"'))));
    // the lossless decoder keeps (and finds) its entries by text, the JSON.parse path finds any entry by value
    const d = decodePyJsonExact(`{"messages":[],"tools":${tools}}`, shared);
    expect(d.shared?.text).toBe(tools);
    const e = decodePyJson(`{"messages":[],"x":1.0,"n":1,"tools":${tools}}`, shared);
    expect(e.shared).toBe(d.shared);
    expect((e.value as Record<string, unknown>).x).toBeInstanceOf(PyFloat);
    expect(decodePyJson(`{"tools":${tools}}`, shared).shared).toBe(d.shared);
  });
});

describe('parsePyJson: a value a duplicate key drops', () => {
  // (loading the addon gives json-parse-agrees its native member count)
  beforeAll(() => void compileTemplate('x'));
  const PY_LIMIT = 'Exceeds the limit (4300 digits) for integer string conversion: value has 4301 digits; use sys.set_int_max_str_digits() to increase the limit';

  it('is refused as Python refuses it, though JSON.parse keeps only the last value', () => {
    // json.loads converts every value it reads, the dropped one included
    const big = '{"a": ' + '1'.repeat(4301) + ', "b": 2, "a": 3}';
    expect(JSON.parse(big)).toEqual({ a: 3, b: 2 });
    expect(() => parsePyJson(big)).toThrow(PY_LIMIT);
    // nested past the lossless decoder's bound: its error, as without the duplicate
    const nested = '{"a": ' + '['.repeat(1001) + ']'.repeat(1001) + ', "a": 1}';
    expect(outcome(() => parsePyJson(nested))).toEqual(outcome(() => decodePyJsonExact(nested).value));
    expect(outcome(() => parsePyJson(nested))).toHaveProperty('error');
  });

  it('leaves a long text with a duplicate key to the lossless decoder, and takes one without', () => {
    const long = 'x'.repeat(DROPPED_VALUE_RISK);
    const dup = `{"a": "${long}", "b": {"c": 1, "c": 2}}`;
    expect(parseIfAgrees(dup, 100)).toBeUndefined();
    expect(outcome(() => parsePyJson(dup))).toEqual(outcome(() => decodePyJsonExact(dup).value));
    // colons, quotes and backslashes inside strings are not members
    const plain = `{"a": "${long}", "k:": "v: \\\": x", "b": {"c": 1, "d": [{"e": ":"}]}}`;
    expect(parseIfAgrees(plain, 100)).toEqual(JSON.parse(plain));
    // a short text with a duplicate key can drop nothing Python refuses: JSON.parse is taken
    expect(parseIfAgrees('{"a": 1, "a": 2}', 100)).toEqual({ a: 2 });
  });

  it('agrees on 400 random long texts with and without duplicate keys', () => {
    const rand = rng(9);
    const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const VALUES = ['1', '"a:b"', '"\\\\"', '"\\\":"', '[1, {"x": 2}]', '{"y": ":"}', '1.0', '"' + 'z'.repeat(DROPPED_VALUE_RISK) + '"'];
    let taken = 0;
    for (let i = 0; i < 400; i++) {
      const names = ['"a"', '"b"', '"c"', '"d"', '"e"', '"f"', '"g"', '"h"'];
      // (half of them with distinct keys)
      const keys = rand() < 0.5 ? names.slice(0, 3 + Math.floor(rand() * 6)) : Array.from({ length: 3 + Math.floor(rand() * 6) }, () => pick(names));
      const text = '{' + keys.map((k) => `${k}: ${pick(VALUES)}`).join(', ') + '}';
      expect(outcome(() => parsePyJson(text)), text.slice(0, 100)).toEqual(outcome(() => decodePyJsonExact(text).value));
      const duplicate = new Set(keys).size !== keys.length;
      if (text.length >= DROPPED_VALUE_RISK && duplicate) expect(parseIfAgrees(text, 100)).toBeUndefined();
      if (text.length >= DROPPED_VALUE_RISK && !duplicate && !text.includes('1.0') && parseIfAgrees(text, 100) !== undefined) taken++;
    }
    expect(taken).toBeGreaterThan(20);
  });
});

