/**
 * When V8's JSON.parse gives exactly the value the lossless decoder
 * (protocol/pyjson) gives for a text. JSON.parse runs natively, so the
 * decoder uses it wherever these checks prove the two agree.
 *
 * For a text JSON.parse accepts, the two differ only in:
 * - integral numbers written as floats (`1.0`, `1e3`, `1e-400`): Python
 *   floats, which JSON.parse turns into ints. When the value holds an
 *   integral number, the text's float literals outside strings are read
 *   and any integral one is reported;
 * - ints beyond 2^53 - 1 (bigints there), `-0` (an int 0 there), numbers
 *   JSON.parse rounds to infinity (`1e400`; ints over 4300 digits, which
 *   Python refuses): any unsafe, negative-zero or non-finite number;
 * - keys starting with a digit, whose order JS objects do not keep: any;
 * - nesting deeper than the lossless decoder allows: anything nested deeper
 *   than `maxDepth` is reported;
 * - a bare number at the top level (`1.0`): only containers are taken.
 * - a value a duplicate key drops (JSON.parse and Python both keep the
 *   last one) that the lossless decoder refuses: an int over 4300 digits,
 *   nesting past its MAX_DEPTH. Such a value takes DROPPED_VALUE_RISK
 *   characters or more, so a text that long is taken only when it has no
 *   duplicate key: its members (counted natively) are the value's.
 * Everything else (strings with lone surrogates, duplicate keys keeping the
 * first position and the last value, `__proto__` as an own key, JSON's
 * whitespace, non-integral floats rounded correctly) is the same in both.
 */

import { escapedQuote } from './json-spans';

/**
 * Where a float literal outside strings may start: in valid JSON a number
 * follows `:`, `,` or `[` (and whitespace), and a float has a fraction or an
 * exponent after its leading digits. Matches inside strings are possible.
 */
const FLOAT_TOKEN = /[:,[][ \t\n\r]*(-?[0-9]+[.eE][0-9eE.+-]*)/g;

/** `raw` (valid JSON) holds a float literal with an integral value outside its strings. */
function hasIntegralFloatLiteral(raw: string): boolean {
  FLOAT_TOKEN.lastIndex = 0;
  let q = 0; // the string state below is that of position q
  let inString = false;
  for (let m = FLOAT_TOKEN.exec(raw); m !== null; m = FLOAT_TOKEN.exec(raw)) {
    // outside strings the capture is the whole literal (JSON.parse accepted
    // it), so a non-integral one needs no string state
    if (!Number.isInteger(Number(m[1]))) continue;
    for (;;) {
      const quote = raw.indexOf('"', q);
      if (quote < 0 || quote >= m.index) break;
      if (!inString || !escapedQuote(raw, quote)) inString = !inString;
      q = quote + 1;
    }
    if (!inString) return true;
  }
  return false;
}

/**
 * Texts this long or longer may hide, behind a duplicate key, a value the
 * lossless decoder refuses: nesting past its MAX_DEPTH (1000) takes 2002
 * characters, an int over 4300 digits more.
 */
export const DROPPED_VALUE_RISK = 2000;

/**
 * The addon's count of a valid JSON text's members (native/addon/json_spans:
 * the `:` outside strings), given once the addon is loaded (native/loader);
 * without it a text of DROPPED_VALUE_RISK characters or more is left to the
 * lossless decoder. -1: not counted.
 */
let nativeMemberCount: ((text: string) => number) | undefined;

/** @internal Gives this module the addon's member count (undefined: none). */
export function useNativeMemberCount(count: ((text: string) => number) | undefined): void {
  nativeMemberCount = count;
}

interface Walk {
  /** An integral number was seen. */
  ints: boolean;
  /** Object members seen. */
  members: number;
  readonly maxDepth: number;
  /** A string value to count (keys included). */
  readonly mark: string | undefined;
  marks: number;
}

/** True when every node of `v` is one JSON.parse and the lossless decoder agree on. */
function agrees(v: unknown, depth: number, w: Walk): boolean {
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return false;
    if (Number.isInteger(v)) {
      if (!Number.isSafeInteger(v) || Object.is(v, -0)) return false;
      w.ints = true;
    }
    return true;
  }
  if (v === null || typeof v !== 'object') {
    if (v === w.mark) w.marks++;
    return true;
  }
  if (depth >= w.maxDepth) return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!agrees(v[i], depth + 1, w)) return false;
    return true;
  }
  for (const k in v) {
    w.members++;
    const c = k.charCodeAt(0);
    if (c >= 0x30 && c <= 0x39) return false;
    if (k === w.mark) w.marks++;
    if (!agrees((v as Record<string, unknown>)[k], depth + 1, w)) return false;
  }
  return true;
}

/**
 * `JSON.parse(raw)` when it is a container the lossless decoder would give
 * as is, nested less than `maxDepth` deep; undefined otherwise (including
 * every text JSON.parse rejects). With `mark`, also undefined unless exactly
 * one string of the value (keys included) equals `mark`.
 */
export function parseIfAgrees(raw: string, maxDepth: number, mark?: string): object | undefined {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (v === null || typeof v !== 'object') return undefined;
  const w: Walk = { ints: false, members: 0, maxDepth, mark, marks: 0 };
  if (!agrees(v, 0, w) || (mark !== undefined && w.marks !== 1) || (w.ints && hasIntegralFloatLiteral(raw))) return undefined;
  // (a long text with a duplicate key: the lossless decoder sees the value the key drops)
  if (raw.length >= DROPPED_VALUE_RISK && (nativeMemberCount === undefined || nativeMemberCount(raw) !== w.members)) return undefined;
  return v;
}

/** Any surrogate code unit in a string of the (valid JSON) text, raw or escaped; may report one that is not there. */
const SURROGATE_IN_TEXT = /[\ud800-\udfff]|\\u[dD][89a-fA-F]/;

export function mayHoldSurrogates(raw: string): boolean {
  return SURROGATE_IN_TEXT.test(raw);
}
