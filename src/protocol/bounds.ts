/**
 * Structural bounds every request passes before anything else looks at it:
 * the nesting depth of its containers and the well-formedness of its text.
 *
 * - Depth: Python's `json.loads` gives up (RecursionError) about 1000
 *   containers deep, and a JS object can nest arbitrarily deep or even refer
 *   to itself, which would overflow the stack of every recursive walk after
 *   this one. Requests nested deeper than `MAX_DEPTH` containers are refused
 *   with the JSON path of the first container past the bound.
 * - Lone surrogates: a JSON `"\ud800"` escape (or a JS string holding an
 *   unpaired UTF-16 surrogate) decodes to text that has no UTF-8 form. Python
 *   keeps it in the str, renders it into the prompt, and then fails when the
 *   prompt is encoded for the tokenizer; our engine works in UTF-8 and would
 *   have to substitute something. Neither a different prompt nor a late
 *   failure is acceptable, so such a string is refused here, naming its path
 *   and the offending code unit.
 */

import { RequestValidationError } from '../errors';
import { MAX_DEPTH, PyFloat } from './pyjson';
import { formatPath } from './schemas';

export { MAX_DEPTH };

/** Index of the first unpaired surrogate code unit in `s`, or -1. */
export function loneSurrogateIndex(s: string): number {
  // fast path: most strings have no surrogate at all
  if (!SURROGATE.test(s)) return -1;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
    }
    return i;
  }
  return -1;
}

function surrogateError(path: Array<string | number>, s: string, at: number, what: string): RequestValidationError {
  const unit = s.charCodeAt(at).toString(16).padStart(4, '0');
  const where = formatPath(path);
  const message =
    `${where ? where + ': ' : ''}${what} holds a lone surrogate \\u${unit} at index ${at}; ` +
    'text must be valid Unicode (a prompt containing it cannot be encoded as UTF-8)';
  return new RequestValidationError(message, where, [{ path: where, message }]);
}

function depthError(path: Array<string | number>): RequestValidationError {
  const where = formatPath(path);
  const message = `${where ? where + ': ' : ''}nested deeper than ${MAX_DEPTH} levels (or a reference cycle)`;
  return new RequestValidationError(message, where, [{ path: where, message }]);
}

class Walker {
  readonly path: Array<string | number> = [];

  walk(v: unknown, depth: number): void {
    if (typeof v === 'string') {
      const at = loneSurrogateIndex(v);
      if (at >= 0) throw surrogateError(this.path, v, at, 'the string');
      return;
    }
    if (typeof v !== 'object' || v === null || v instanceof PyFloat) return;
    if (depth >= MAX_DEPTH) throw depthError(this.path);
    const path = this.path;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x = v[i];
        if (typeof x === 'object' ? x !== null : typeof x === 'string') {
          path.push(i);
          this.walk(x, depth + 1);
          path.pop();
        }
      }
      return;
    }
    if (v instanceof Map) {
      for (const [k, x] of v) {
        path.push(String(k));
        this.key(String(k));
        this.walk(x, depth + 1);
        path.pop();
      }
      return;
    }
    for (const k in v) {
      if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
      const x = (v as Record<string, unknown>)[k];
      path.push(k);
      this.key(k);
      if (typeof x === 'object' ? x !== null : typeof x === 'string') this.walk(x, depth + 1);
      path.pop();
    }
  }

  private key(k: string): void {
    const at = loneSurrogateIndex(k);
    if (at >= 0) throw surrogateError(this.path, k, at, 'the key');
  }
}

const SURROGATE = /[\ud800-\udfff]/;

/** No surrogate code unit in `s` (short strings by a loop, which beats a regex call there). */
function noSurrogate(s: string): boolean {
  if (s.length > 24) return !SURROGATE.test(s);
  for (let i = 0; i < s.length; i++) if ((s.charCodeAt(i) & 0xf800) === 0xd800) return false;
  return true;
}

/**
 * True when `v` is within the bounds. Allocation-free and without path
 * bookkeeping; a string holding any surrogate (paired or not) is left to the
 * Walker, which tells pairs from lone ones and names the path.
 */
function withinBounds(v: unknown, depth: number): boolean {
  if (typeof v === 'string') return noSurrogate(v);
  if (typeof v !== 'object' || v === null) return true;
  if (depth >= MAX_DEPTH) return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!withinBounds(v[i], depth + 1)) return false;
    return true;
  }
  if (v instanceof PyFloat) return true;
  if (v instanceof Map) return false;
  for (const k in v) {
    if (!noSurrogate(k)) return false;
    if (!withinBounds((v as Record<string, unknown>)[k], depth + 1)) return false;
  }
  return true;
}

/**
 * Throws RequestValidationError (with the JSON path) when `value` nests more
 * than MAX_DEPTH containers deep (a cycle counts as unbounded depth) or holds
 * a string or key with an unpaired surrogate. The request object itself is
 * depth 1, as in the raw-text decoder.
 */
export function checkRequestBounds(value: unknown): void {
  // the common case costs one quick walk; the Walker re-walks to name the problem
  if (withinBounds(value, 0)) return;
  new Walker().walk(value, 0);
}
