/**
 * When a request given as a JS object can go the raw-text way: its
 * JSON.stringify text, decoded as the request text is (Python's json.loads
 * semantics), gives back exactly the value the object stands for. Then the
 * text path's work (native decode, plans, reuse of a continued
 * conversation) applies to objects too; JSON.stringify runs natively.
 *
 * The object is taken as the package reads an object request: numbers that
 * are integers are Python ints, others floats; keys in JS order. The text
 * gives the same for:
 * - null, booleans, strings (a lone surrogate is written `\udXXX`, which the
 *   text's decoder reads back as that code unit, and rejects as the object
 *   path does);
 * - safe integers other than `-0`, and finite non-integral numbers
 *   (JSON.stringify writes the shortest text that reads back as the same
 *   double, as Python's float repr does);
 * - arrays and objects whose prototype is Array's, Object's or null, with
 *   no `toJSON` and no recorded Python key order: own enumerable string keys
 *   in JS order (for-in sees inherited ones too, so a request is only taken
 *   while Object.prototype has no enumerable key).
 * Anything else declines: undefined (a member JSON.stringify drops, an item
 * it writes as null), functions, symbols, bigints, `-0`, unsafe integers,
 * non-finite numbers, PyFloat and other class instances, Maps, boxed
 * primitives, nesting at MAX_STRINGIFY_DEPTH or more (and so cycles).
 */

import { PY_KEYS, stringifiesAsPython } from './pyjson';

/** Containers nested this deep or deeper decline (a cycle reaches it too). */
export const MAX_STRINGIFY_DEPTH = 64;

const EMPTY: Record<string, unknown> = {};

function exact(v: unknown, depth: number): boolean {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return stringifiesAsPython(v);
    case 'object':
      break;
    default:
      return false;
  }
  if (v === null) return true;
  if (depth >= MAX_STRINGIFY_DEPTH || (v as { toJSON?: unknown }).toJSON !== undefined) return false;
  if (Array.isArray(v)) {
    if (Object.getPrototypeOf(v) !== Array.prototype) return false;
    for (let i = 0; i < v.length; i++) if (!exact(v[i], depth + 1)) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(v);
  if ((proto !== Object.prototype && proto !== null) || (v as { [PY_KEYS]?: unknown })[PY_KEYS] !== undefined) return false;
  for (const k in v) if (!exact((v as Record<string, unknown>)[k], depth + 1)) return false;
  return true;
}

/**
 * The JSON text of the plain object `value` when decoding it gives back
 * exactly that value (see above); undefined otherwise.
 */
export function stringifyIfExact(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  for (const _ in EMPTY) return undefined;
  try {
    // (a getter may throw, a cycle is cut by the depth)
    return exact(value, 0) ? JSON.stringify(value) : undefined;
  } catch {
    return undefined;
  }
}
