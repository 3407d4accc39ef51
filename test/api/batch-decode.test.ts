/** The batch case-line decode gives parsePyJson's value (and errors) on every line. */
import { describe, expect, it } from 'vitest';
import { decodeCaseLine } from '../../src/cli/batch-decode';
import { parsePyJson, PyFloat, pyKeys, serializePyJson } from '../../src/protocol/pyjson';

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
  deep(50),
  deep(150),
  deep(1200),
];

describe('batch case-line decode', () => {
  it.each(LINES.map((l) => [l.length > 80 ? l.slice(0, 60) + '...' : l, l]))('%s', (_name, line) => {
    expect(outcome(() => decodeCaseLine(line))).toEqual(outcome(() => parsePyJson(line)));
  });
});
