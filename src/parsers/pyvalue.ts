/**
 * Python value helpers the tool parsers share, over the value model of
 * `protocol/pyjson` (the one JSON codec of the project): `int(s)` /
 * `float(s)` of model-written text, and `json.loads` as the parsers use it
 * (a failure is an answer, not an error).
 */

import { PyJsonDecodeError, PyValue, makePyInt, parsePyJson } from '../protocol/pyjson';

/** Python's `str.strip()` whitespace set is Unicode-wide; `\s` is close enough. */
export function pyStrip(s: string): string {
  return s.replace(/^\s+|\s+$/gu, '');
}

const PY_INT_RE = /^[+-]?\d+(?:_\d+)*$/;
const PY_FLOAT_RE = /^[+-]?(?:(?:\d+(?:_\d+)*)?\.\d+(?:_\d+)*|\d+(?:_\d+)*\.?)(?:[eE][+-]?\d+(?:_\d+)*)?$/;
const PY_FLOAT_SPECIAL_RE = /^([+-]?)(inf|infinity|nan)$/i;

/** `int(s)` for a str argument, as a model int; null when Python would raise ValueError. */
export function pyInt(s: string): number | bigint | null {
  const t = pyStrip(s);
  if (!PY_INT_RE.test(t)) return null;
  const v = BigInt(t.replace(/^\+/, '').replace(/_/g, ''));
  return makePyInt(v);
}

/** `float(s)` for a str argument; null when Python would raise ValueError. */
export function pyFloat(s: string): number | null {
  const t = pyStrip(s);
  const special = PY_FLOAT_SPECIAL_RE.exec(t);
  if (special) {
    if (special[2]!.toLowerCase() === 'nan') return NaN;
    return special[1] === '-' ? -Infinity : Infinity;
  }
  if (!PY_FLOAT_RE.test(t)) return null;
  return Number(t.replace(/_/g, ''));
}

/** `int(x) if x.is_integer() else x` for a finite float: vLLM's number coercion. */
export function intIfWhole(x: number): number | bigint {
  return Number.isInteger(x) ? makePyInt(BigInt(x)) : x;
}

/** `json.loads(text)`, or undefined where Python raises (JSONDecodeError or ValueError). */
export function tryLoads(text: string): PyValue | undefined {
  try {
    return parsePyJson(text);
  } catch (e) {
    if (e instanceof PyJsonDecodeError) return undefined;
    throw e;
  }
}
