/**
 * What crosses the boundary between the main thread and a render worker.
 *
 * Structured clone keeps plain objects, arrays, strings, numbers, bigints and
 * booleans, but drops what the Python value model adds on top of them: the
 * `PyFloat` class (an integral Python float such as `30.0`) and the
 * `PY_KEYS` order of dicts with integer-like keys. So trees travel as they
 * are plus a short list of patches naming where those were; the receiver
 * puts them back. Errors travel as data (class name + own properties) and are
 * rebuilt as the public classes, so `instanceof`, `.code`, `.path` and the
 * rest read exactly as from the synchronous API.
 */
import * as errors from '../errors';
import { PY_KEYS, PyFloat, PyJsonDecodeError } from '../protocol/pyjson';
import { Utf8DecodeError } from '../protocol/utf8';

type Key = string | number;

/** A place in a tree where a PyFloat stood, or where a dict kept its Python key order. */
export type Patch = [path: Key[], kind: 'f', value: number, text: string | undefined] | [path: Key[], kind: 'k', keys: string[]];

/** Collects the patches of a tree (no copy is made; the tree itself is sent as is). */
export function collectPatches(root: unknown): Patch[] {
  const out: Patch[] = [];
  const path: Key[] = [];
  const walk = (v: unknown): void => {
    if (typeof v !== 'object' || v === null) return;
    if (v instanceof PyFloat) {
      out.push([path.slice(), 'f', v.value, v.text]);
      return;
    }
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        path.push(i);
        walk(v[i]);
        path.pop();
      }
      return;
    }
    const order = (v as { [PY_KEYS]?: string[] })[PY_KEYS];
    if (order !== undefined) out.push([path.slice(), 'k', order.slice()]);
    for (const k of Object.keys(v)) {
      path.push(k);
      walk((v as Record<string, unknown>)[k]);
      path.pop();
    }
  };
  walk(root);
  return out;
}

/** Puts the patches back into a structured-cloned tree; returns the (possibly replaced) root. */
export function applyPatches(root: unknown, patches: readonly Patch[]): unknown {
  for (const p of patches) {
    const path = p[0];
    if (p[1] === 'f') {
      const f = new PyFloat(p[2], p[3]);
      if (path.length === 0) {
        root = f;
        continue;
      }
      let parent = root as Record<Key, unknown>;
      for (let i = 0; i < path.length - 1; i++) parent = parent[path[i]] as Record<Key, unknown>;
      parent[path[path.length - 1]] = f;
    } else {
      let node = root as Record<Key, unknown>;
      for (const k of path) node = node[k] as Record<Key, unknown>;
      Object.defineProperty(node, PY_KEYS, { value: p[2], enumerable: false, writable: true, configurable: true });
    }
  }
  return root;
}

/**
 * True when structured clone reproduces `v` exactly as the renderer reads it:
 * only plain objects and arrays, primitives (no symbols or functions), no
 * PyFloat, no Python key order, no cycles, at most `maxDepth` containers deep.
 * Anything else is rendered on the calling thread instead, so it meets the
 * very code (and errors) of the synchronous path.
 */
export function isPlainTree(v: unknown, maxDepth: number): boolean {
  switch (typeof v) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'undefined':
    case 'bigint':
      return true;
    case 'object':
      break;
    default:
      return false;
  }
  if (v === null) return true;
  if (maxDepth <= 0) return false;
  if (Array.isArray(v)) {
    if (Object.getPrototypeOf(v) !== Array.prototype) return false;
    for (let i = 0; i < v.length; i++) if (!isPlainTree(v[i], maxDepth - 1)) return false;
    return true;
  }
  if (Object.getPrototypeOf(v) !== Object.prototype || PY_KEYS in v) return false;
  for (const k in v) if (!isPlainTree((v as Record<string, unknown>)[k], maxDepth - 1)) return false;
  return true;
}

// ---------------------------------------------------------------------------
// errors

export interface WireError {
  /** The constructor's name; rebuilt from the registry below. */
  cls: string;
  /** Own data properties: [name, value, enumerable, writable, configurable]. */
  props: [string, unknown, boolean, boolean, boolean][];
}

/** A thrown value that is not an object is passed as is. */
export type WireThrown = { error: WireError } | { thrown: unknown };

function cloneable(v: unknown): boolean {
  try {
    structuredClone(v);
    return true;
  } catch {
    return false;
  }
}

export function encodeError(e: unknown): WireThrown {
  if (typeof e !== 'object' || e === null) return { thrown: cloneable(e) ? e : String(e) };
  const props: WireError['props'] = [];
  for (const name of Object.getOwnPropertyNames(e)) {
    const d = Object.getOwnPropertyDescriptor(e, name);
    if (!d || !('value' in d)) continue;
    const value = cloneable(d.value) ? d.value : String(d.value);
    props.push([name, value, !!d.enumerable, !!d.writable, !!d.configurable]);
  }
  return { error: { cls: (e as { constructor?: { name?: string } }).constructor?.name ?? 'Error', props } };
}

const REGISTRY = new Map<string, Function>();
for (const v of Object.values(errors)) if (typeof v === 'function') REGISTRY.set(v.name, v);
for (const c of [PyJsonDecodeError, Utf8DecodeError, Error, TypeError, RangeError, SyntaxError, ReferenceError]) REGISTRY.set(c.name, c);

export function decodeError(w: WireThrown): unknown {
  if ('thrown' in w) return w.thrown;
  const ctor = REGISTRY.get(w.error.cls) ?? Error;
  const e = Object.create(ctor.prototype as object) as Record<string, unknown>;
  for (const [name, value, enumerable, writable, configurable] of w.error.props) {
    Object.defineProperty(e, name, { value, enumerable, writable, configurable });
  }
  return e;
}
