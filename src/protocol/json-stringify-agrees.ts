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
 *
 * The walk that checks this also writes the object down as a tape (every
 * key and leaf in order, containers opened and closed), kept for the next
 * request: what the tapes show unchanged (an agent's next turn as objects,
 * the same object again) takes the last request's text, and only the
 * messages after those it shares are stringified (requestTextOf).
 */

import { memberArraySpan } from './json-spans';
import { PY_KEYS, stringifiesAsPython } from './pyjson';

/** Containers nested this deep or deeper decline (a cycle reaches it too). */
export const MAX_STRINGIFY_DEPTH = 64;

const EMPTY: Record<string, unknown> = {};

// Tape entries for a container's bounds: objects no request can hold.
const OPEN_DICT = Object.freeze({});
const OPEN_LIST = Object.freeze({});
const CLOSE = Object.freeze({});

/**
 * One part of a request written down entry by entry, compared on the way
 * with the same part of the last request (`===`: strings by content).
 */
class Tape {
  /** The last request's entries (the first `prevCount`). */
  prev: unknown[] = [];
  prevCount = 0;
  cur: unknown[] = [];
  count = 0;
  /** The first entry that differs from the last request's; -1: none yet. */
  diverged = -1;

  begin(): void {
    this.count = 0;
    this.diverged = -1;
  }

  put(x: unknown): void {
    const n = this.count++;
    if (this.diverged < 0 && (n >= this.prevCount || this.prev[n] !== x)) this.diverged = n;
    this.cur[n] = x;
  }

  /** The same entries as the last request's. */
  same(): boolean {
    return this.diverged < 0 && this.count === this.prevCount;
  }

  /** How many entries lead the same as the last request's. */
  sharedPrefix(): number {
    return this.diverged < 0 ? Math.min(this.count, this.prevCount) : this.diverged;
  }

  /** This request's entries become the last request's. */
  keep(): void {
    const p = this.prev;
    this.prev = this.cur;
    this.prevCount = this.count;
    this.cur = p;
    // (the references past the count are the caller's values: let them go)
    if (p.length > this.count) p.length = this.count;
  }

  forget(): void {
    this.prev.length = 0;
    this.cur.length = 0;
    this.prevCount = 0;
  }
}

/** Writes `v` to `t`; false where its text would not give it back exactly. */
function walk(v: unknown, depth: number, t: Tape): boolean {
  if (typeof v === 'string' || typeof v === 'boolean') {
    t.put(v);
    return true;
  }
  if (typeof v === 'number') {
    if (!stringifiesAsPython(v)) return false;
    t.put(v);
    return true;
  }
  if (typeof v !== 'object') return false;
  if (v === null) {
    t.put(null);
    return true;
  }
  if (depth >= MAX_STRINGIFY_DEPTH || (v as { toJSON?: unknown }).toJSON !== undefined) return false;
  if (Array.isArray(v)) {
    if (Object.getPrototypeOf(v) !== Array.prototype) return false;
    t.put(OPEN_LIST);
    for (let i = 0; i < v.length; i++) if (!walk(v[i], depth + 1, t)) return false;
    t.put(CLOSE);
    return true;
  }
  if (!plainDict(v)) return false;
  t.put(OPEN_DICT);
  for (const k in v) {
    t.put(k);
    if (!walk((v as Record<string, unknown>)[k], depth + 1, t)) return false;
  }
  t.put(CLOSE);
  return true;
}

function plainDict(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return (proto === Object.prototype || proto === null) && (v as { [PY_KEYS]?: unknown })[PY_KEYS] === undefined;
}

const scratch = new Tape();

/**
 * The JSON text of the plain object `value` when decoding it gives back
 * exactly that value (see above); undefined otherwise.
 */
export function stringifyIfExact(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  for (const _ in EMPTY) return undefined;
  scratch.begin();
  try {
    // (a getter may throw, a cycle is cut by the depth)
    return walk(value, 0, scratch) ? JSON.stringify(value) : undefined;
  } catch {
    return undefined;
  } finally {
    scratch.forget();
  }
}

/** The last request requestTextOf gave the text of. */
interface LastRequest {
  text: string;
  /** Per message: the tape index just past it. */
  tapeEnds: number[];
  /** Per message: the text index just past it (found when first needed). */
  ends?: number[];
  /** The text index of the messages list's `]` (with `ends`). */
  close?: number;
}

/** @internal How requestTextOf put its texts together: the last text again, continued from it, stringified whole. */
export const requestTexts = { same: 0, continued: 0, whole: 0 };

/** A request text longer than this (UTF-16 units) is not kept, nor its tapes. */
export const MAX_KEPT_TEXT = 4 * 1024 * 1024;

const head = new Tape();
const messagesTape = new Tape();
const tail = new Tape();
let last: LastRequest | undefined;
const tapeEnds: number[] = [];
const tailKeys: string[] = [];

function forgetLast(): void {
  last = undefined;
  head.forget();
  messagesTape.forget();
  tail.forget();
}

/** The text ends of `r`'s messages, and its list's `]`; false where the text does not show them. */
function spanOf(r: LastRequest): boolean {
  if (r.ends === undefined) {
    const span = memberArraySpan(r.text, 'messages');
    if (span === undefined || span.ends.length !== r.tapeEnds.length) return false;
    r.ends = span.ends;
    r.close = span.close;
  }
  return true;
}

/**
 * Writes the request object to the tapes: its members before `messages`
 * to `head`, each message to `messagesTape` (its end in `tapeEnds`), the
 * members after to `tail` (their keys in `tailKeys`). The messages list;
 * undefined where the request has none (no member `messages` that is a
 * plain array); false where its text would not give it back exactly.
 */
function walkRequest(request: object): unknown[] | undefined | false {
  if ((request as { toJSON?: unknown }).toJSON !== undefined || !plainDict(request)) return false;
  let messages: unknown[] | undefined;
  for (const k in request) {
    const v = (request as Record<string, unknown>)[k];
    if (k === 'messages' && Array.isArray(v) && Object.getPrototypeOf(v) === Array.prototype && (v as { toJSON?: unknown }).toJSON === undefined) {
      messages = v;
      for (let i = 0; i < v.length; i++) {
        if (!walk(v[i], 2, messagesTape)) return false;
        tapeEnds.push(messagesTape.count);
      }
      continue;
    }
    const t = messages === undefined ? head : tail;
    t.put(k);
    if (!walk(v, 1, t)) return false;
    if (messages !== undefined) tailKeys.push(k);
  }
  return messages;
}

/**
 * stringifyIfExact for a request object, taking from the last request's
 * text what the two share: the text itself when nothing changed; else,
 * when they share the members before `messages` and at least the first
 * message, the text up to the end of the messages they share, then the
 * messages after those and the members after the list (the last request's
 * text of them when unchanged). The result is the request's JSON.stringify
 * text, whichever way it was put together.
 */
export function requestTextOf(request: unknown): string | undefined {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) return undefined;
  for (const _ in EMPTY) return undefined;
  const prev = last;
  head.begin();
  messagesTape.begin();
  tail.begin();
  tapeEnds.length = 0;
  tailKeys.length = 0;
  try {
    // (a getter may throw, a cycle is cut by the depth)
    const messages = walkRequest(request);
    if (messages === false || messages === undefined) {
      forgetLast();
      return messages === false ? undefined : JSON.stringify(request);
    }
    let next: LastRequest | undefined;
    if (prev !== undefined && head.same()) {
      if (messagesTape.same() && tail.same()) {
        next = prev;
        requestTexts.same++;
      } else {
        // the messages shared: those whose entries all lead the same
        const shared = messagesTape.sharedPrefix();
        let m = 0;
        while (m < prev.tapeEnds.length && m < tapeEnds.length && prev.tapeEnds[m]! <= shared) m++;
        if (m > 0 && spanOf(prev)) {
          next = continued(prev, request as Record<string, unknown>, messages, m);
          requestTexts.continued++;
        }
      }
    }
    if (next === undefined) {
      next = { text: JSON.stringify(request), tapeEnds: tapeEnds.slice() };
      requestTexts.whole++;
    }
    if (next.text.length > MAX_KEPT_TEXT) {
      forgetLast();
      return next.text;
    }
    last = next;
    head.keep();
    messagesTape.keep();
    tail.keep();
    return next.text;
  } catch {
    forgetLast();
    return undefined;
  }
}

/** The request that shares the first `m` messages with `prev` (and the members before them), from prev's text. */
function continued(prev: LastRequest, request: Record<string, unknown>, messages: unknown[], m: number): LastRequest {
  const ends = prev.ends!.slice(0, m);
  let at = ends[m - 1]!;
  let text = prev.text.slice(0, at);
  for (let i = m; i < messages.length; i++) {
    const piece = ',' + JSON.stringify(messages[i]);
    text += piece;
    at += piece.length;
    ends.push(at);
  }
  if (tail.same()) {
    text += prev.text.slice(prev.close);
  } else {
    text += ']';
    for (const k of tailKeys) text += ',' + JSON.stringify(k) + ':' + JSON.stringify(request[k]);
    text += '}';
  }
  return { text, tapeEnds: tapeEnds.slice(), ends, close: at };
}
