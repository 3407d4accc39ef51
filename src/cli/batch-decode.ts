/**
 * The decode of a batch case line. The lossless decoder (parsePyJson) is
 * what defines the value; V8's JSON.parse gives the very same value for
 * most lines at a fraction of the cost (it runs natively, and a fresh
 * process does not have to warm the decoder up), so it is used wherever it
 * provably agrees, and the lossless decoder everywhere else, including every
 * line either of them rejects (so error lines are the lossless decoder's).
 *
 * For a line JSON.parse accepts, the two differ only in:
 * - integral numbers written as floats (`1.0`, `1e3`): Python floats, which
 *   JSON.parse turns into ints. A line holding an integral number and a
 *   float literal outside its strings is left to the lossless decoder;
 * - ints beyond 2^53 - 1 (bigints there), `-0` (an int 0 there), numbers
 *   JSON.parse rounds to infinity (`1e400`; ints over 4300 digits, which
 *   Python refuses): any unsafe, negative-zero or non-finite number;
 * - keys starting with a digit, whose order JS objects do not keep: any;
 * - nesting deeper than the lossless decoder allows: anything nested
 *   deeper than PLAIN_MAX_DEPTH is left to it.
 * Everything else (strings with lone surrogates, duplicate keys keeping the
 * first position and the last value, `__proto__` as an own key, non-integral
 * floats rounded correctly) is the same in both.
 */
import { MAX_DEPTH, parsePyJson } from '../protocol/pyjson';

/** Below the lossless decoder's own limit, so that a line near it is decoded (and refused) there. */
const PLAIN_MAX_DEPTH = Math.min(100, MAX_DEPTH - 1);

/**
 * Where a float literal outside strings may start: in valid JSON a number
 * follows `:`, `,` or `[` (and whitespace), and a float has a fraction or an
 * exponent after its leading digits. Matches inside strings are possible.
 */
const FLOAT_TOKEN = /[:,[][ \t\n\r]*-?[0-9]+[.eE]/g;

/** The `"` at `i` is escaped (an odd run of backslashes before it). */
function escapedQuote(raw: string, i: number): boolean {
  let k = i - 1;
  while (k >= 0 && raw.charCodeAt(k) === 0x5c) k--;
  return (i - 1 - k) % 2 === 1;
}

/** `raw` (valid JSON) holds a float literal outside its strings. */
function hasFloatLiteral(raw: string): boolean {
  FLOAT_TOKEN.lastIndex = 0;
  let q = 0; // the string state below is that of position q
  let inString = false;
  for (let m = FLOAT_TOKEN.exec(raw); m !== null; m = FLOAT_TOKEN.exec(raw)) {
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

interface Walk {
  /** An integral number was seen. */
  ints: boolean;
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
  if (v === null || typeof v !== 'object') return true;
  if (depth >= PLAIN_MAX_DEPTH) return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!agrees(v[i], depth + 1, w)) return false;
    return true;
  }
  for (const k in v) {
    const c = k.charCodeAt(0);
    if (c >= 0x30 && c <= 0x39) return false;
    if (!agrees((v as Record<string, unknown>)[k], depth + 1, w)) return false;
  }
  return true;
}

/** The case line's value, as parsePyJson(raw) gives it (and its errors). */
export function decodeCaseLine(raw: string): unknown {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return parsePyJson(raw);
  }
  // a case is an object; anything else is left to the lossless decoder (a bare `1.0` is a PyFloat there)
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return parsePyJson(raw);
  const w: Walk = { ints: false };
  if (!agrees(v, 0, w) || (w.ints && hasFloatLiteral(raw))) return parsePyJson(raw);
  return v;
}
