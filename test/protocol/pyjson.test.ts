import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  parsePyJson, PyFloat, PyJsonDecodeError, pyKeys, serializePyJson, pyFloatRepr, makePyDict, PY_KEYS, pyJsonDumps,
} from '../../src/protocol/pyjson';
import { tagOf } from './canonical';

const vectors = JSON.parse(readFileSync(join(__dirname, 'vectors.json'), 'utf8'));

describe('parsePyJson matches python json.loads', () => {
  for (const { input, value } of vectors.decode as Array<{ input: string; value: unknown }>) {
    it(`decodes ${JSON.stringify(input).slice(0, 60)}`, () => {
      expect(tagOf(parsePyJson(input))).toEqual(value);
    });
  }
  for (const { input, type, message } of vectors.errors as Array<{ input: string; type: string; message: string }>) {
    it(`rejects ${JSON.stringify(input).slice(0, 60)}`, () => {
      let err: unknown;
      try {
        parsePyJson(input);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(PyJsonDecodeError);
      expect((err as PyJsonDecodeError).message).toBe(message);
      expect((err as PyJsonDecodeError).pythonType).toBe(type);
    });
  }
});

describe('round trip', () => {
  it('parse -> serialize -> parse keeps the Python value', () => {
    for (const { input, value } of vectors.decode as Array<{ input: string; value: unknown }>) {
      expect(tagOf(parsePyJson(serializePyJson(parsePyJson(input))))).toEqual(value);
    }
  });

  it('python json.loads of the serialized text equals json.loads of the original', () => {
    let python = '';
    for (const exe of ['python3', 'python']) {
      try {
        execFileSync(exe, ['-c', 'pass']);
        python = exe;
        break;
      } catch {
        /* try the next */
      }
    }
    if (!python) return; // no interpreter: the previous test covers the same ground
    const pairs = (vectors.decode as Array<{ input: string }>).map(({ input }) => [input, serializePyJson(parsePyJson(input))]);
    const script =
      'import json,sys\n' +
      'pairs=json.loads(sys.stdin.read())\n' +
      'bad=[a for a,b in pairs if repr(json.loads(a))!=repr(json.loads(b))]\n' +
      'print(json.dumps(bad))';
    const out = execFileSync(python, ['-c', script], { input: JSON.stringify(pairs) }).toString();
    expect(JSON.parse(out)).toEqual([]);
  });
});

describe('value model', () => {
  it('keeps integer-like key order in a hidden symbol', () => {
    const v = parsePyJson('{"b":1,"10":2,"2":3}') as Record<string, unknown>;
    expect(Object.keys(v)).toEqual(['2', '10', 'b']);
    expect(pyKeys(v)).toEqual(['b', '10', '2']);
    expect(Object.prototype.propertyIsEnumerable.call(v, PY_KEYS)).toBe(false);
    expect(serializePyJson(v)).toBe('{"b": 1, "10": 2, "2": 3}');
  });
  it('wraps integral floats and big ints only', () => {
    const v = parsePyJson('[1, 1.0, 1.5, 123456789012345678901, -0.0, 1e3]') as unknown[];
    expect(v[0]).toBe(1);
    expect(v[1]).toBeInstanceOf(PyFloat);
    expect(v[2]).toBe(1.5);
    expect(v[3]).toBe(123456789012345678901n);
    expect(serializePyJson(v)).toBe('[1, 1.0, 1.5, 123456789012345678901, -0.0, 1e3]');
  });
  it('serializes plain JS values with float markers and surrogate escapes', () => {
    expect(serializePyJson({ a: 1, b: 0.5, c: -0, d: NaN, e: -Infinity, f: 1e-7, g: '\ud800x\ud83d\ude00', h: undefined, i: [undefined] }))
      .toBe('{"a": 1, "b": 0.5, "c": -0.0, "d": NaN, "e": -Infinity, "f": 1e-7, "g": "\\ud800x\ud83d\ude00", "i": [null]}');
    expect(serializePyJson(new Map([['2', 1], ['1', true]]))).toBe('{"2": 1, "1": true}');
    expect(serializePyJson('\u0001"\\\n')).toBe('"\\u0001\\"\\\\\\n"');
  });
  it('treats __proto__ as an ordinary key', () => {
    const v = parsePyJson('{"__proto__": {"x": 1}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(pyKeys(v)).toEqual(['__proto__']);
    expect(serializePyJson(makePyDict([['__proto__', 1]]))).toBe('{"__proto__": 1}');
  });
  it('pythonDumps mode prints json.dumps(json.loads(text), ensure_ascii=False)', () => {
    // Expected strings printed by CPython 3 for the same inputs.
    const nums = '[1e5, 2.50, 1E16, 1.5e-7, -0.0, 0.0, 1e400, NaN, -Infinity, 123456789012345678901234567890, -9007199254740993, 1.0, 1e-5]';
    expect(pyJsonDumps(parsePyJson(nums))).toBe(
      '[100000.0, 2.5, 1e+16, 1.5e-07, -0.0, 0.0, Infinity, NaN, -Infinity, 123456789012345678901234567890, -9007199254740993, 1.0, 1e-05]',
    );
    expect(serializePyJson(parsePyJson(nums), { pythonDumps: true })).toBe(pyJsonDumps(parsePyJson(nums)));
    // Lone surrogates stay raw (Python keeps them in the str); controls escape as Python spells them.
    expect(pyJsonDumps(parsePyJson('{"b":1,"2":"\\ud800\\u001f\\u007f\\"\\\\/","1":[]}'))).toBe('{"b": 1, "2": "\ud800\\u001f\x7f\\"\\\\/", "1": []}');
    // The default mode still keeps the source text of floats.
    expect(serializePyJson(parsePyJson('[1e5, 2.50]'))).toBe('[1e5, 2.5]');
  });
  it('pyFloatRepr matches Python repr', () => {
    for (const [hex, repr] of vectors.floatRepr as Array<[string, string]>) {
      const x = Buffer.from(hex, 'hex').readDoubleBE(0);
      expect(pyFloatRepr(x)).toBe(repr);
    }
  });
});
