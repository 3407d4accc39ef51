/**
 * A JSON codec with Python `json.loads` semantics, lossless for what a Jinja
 * template can observe.
 *
 * Value model (what `parsePyJson` returns; `serializePyJson` accepts it and
 * plain JS values alike):
 *
 * | JSON / Python            | JS value                                           |
 * |--------------------------|----------------------------------------------------|
 * | `null` / None            | `null`                                             |
 * | `true` / True            | `true`                                             |
 * | string / str             | `string` (lone surrogates kept as UTF-16 units)    |
 * | int (safe range)         | `number` (always `Number.isInteger`)               |
 * | int (beyond 2^53-1)      | `bigint` (exact)                                   |
 * | float, not integral      | `number` (the same double Python gets)             |
 * | float, integral (`1.0`, `-0.0`, `1e3`) | `PyFloat` (value + original text)    |
 * | NaN / Infinity / -Infinity, `1e400` | `number` (`NaN`, `±Infinity`)           |
 * | array / list             | `Array`                                            |
 * | object / dict            | plain object; if JS's own-key order differs from   |
 * |                          | Python's (integer-like keys), the Python order is  |
 * |                          | kept in the non-enumerable `PY_KEYS` symbol        |
 *
 * So zod and ordinary code can read the values (objects are plain objects,
 * most numbers are numbers); only integral floats and big ints are wrapped.
 * Use `pyKeys`/`pyEntries` to walk objects in Python order and `makePyDict`
 * to build objects whose order must survive. Duplicate keys keep the first
 * position and the last value, as Python's dict does. A `__proto__` key is an
 * ordinary own property.
 *
 * The serializer writes standard JSON plus bare `NaN`/`Infinity`/`-Infinity`
 * tokens; floats always carry a `.` or an exponent so Python reads them back
 * as floats; lone surrogates are written as `\udXXX` escapes. Python's
 * `json.loads` of the output equals Python's `json.loads` of the original text.
 */

import { NodeVllmError } from '../errors';
import { mayHoldSurrogates, parseIfAgrees } from './json-parse-agrees';
import { isWs } from './json-spans';

/** Own-key order of a decoded object, when it differs from JS's own order. */
export const PY_KEYS: unique symbol = Symbol.for('node-vllm-cpp.pyjson.keys') as never;

/** A Python float whose value is integral (`1.0`, `-0.0`, `1e3`): JS would print it as an int. */
export class PyFloat {
  /** `text`: the JSON source text of the number when it came from a parse. */
  constructor(
    readonly value: number,
    readonly text?: string,
  ) {}
  valueOf(): number {
    return this.value;
  }
  toJSON(): number {
    return this.value;
  }
  toString(): string {
    return pyFloatRepr(this.value);
  }
}

export type PyValue = null | boolean | number | bigint | string | PyFloat | PyValue[] | PyDict;
export interface PyDict {
  [key: string]: PyValue;
}

/** Python's `json.JSONDecodeError` (or the `ValueError` for over-long ints). `message` is `str(e)`. */
export class PyJsonDecodeError extends NodeVllmError {
  override name = 'PyJsonDecodeError';
  /** The Python exception class: `JSONDecodeError` or `ValueError`. */
  readonly pythonType: 'JSONDecodeError' | 'ValueError';
  /** The bare message (`Expecting value`), without the position suffix. */
  readonly msg: string;
  /** Code-point offset, line and column as Python reports them (absent for ValueError). */
  readonly pos?: number;
  readonly lineno?: number;
  readonly colno?: number;

  constructor(msg: string, doc: string | null, utf16Pos: number) {
    if (doc === null) {
      super(msg);
      this.pythonType = 'ValueError';
      this.msg = msg;
      return;
    }
    const { pos, lineno, colno } = pythonPosition(doc, utf16Pos);
    super(`${msg}: line ${lineno} column ${colno} (char ${pos})`);
    this.pythonType = 'JSONDecodeError';
    this.msg = msg;
    this.pos = pos;
    this.lineno = lineno;
    this.colno = colno;
  }
}

/** Python counts code points; JS indexes UTF-16 units. */
function pythonPosition(doc: string, utf16Pos: number): { pos: number; lineno: number; colno: number } {
  let pos = 0;
  let lineno = 1;
  let lastNl = -1; // code-point index of the last '\n' before pos
  for (let i = 0; i < utf16Pos; i++) {
    const c = doc.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < utf16Pos) {
      const d = doc.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    if (c === 0x0a) {
      lineno++;
      lastNl = pos;
    }
    pos++;
  }
  return { pos, lineno, colno: pos - lastNl };
}

// ---------------------------------------------------------------------------
// helpers over the value model

export function isPyDict(v: unknown): v is PyDict {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof PyFloat) && !(v instanceof Map);
}

/** Own keys in Python order. */
export function pyKeys(obj: object): string[] {
  const own = Object.keys(obj);
  const recorded = (obj as { [PY_KEYS]?: string[] })[PY_KEYS];
  if (!recorded) return own;
  const ownSet = new Set(own);
  const out = recorded.filter((k) => ownSet.has(k));
  if (out.length !== own.length) {
    const seen = new Set(out);
    for (const k of own) if (!seen.has(k)) out.push(k);
  }
  return out;
}

export function pyEntries(obj: object): Array<[string, unknown]> {
  return pyKeys(obj).map((k) => [k, (obj as Record<string, unknown>)[k]]);
}

/** Set an own property, even for `__proto__`. */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

/** JS moves only integer-like keys ahead of the others, and those start with a digit. */
function startsWithDigit(k: string): boolean {
  const c = k.charCodeAt(0);
  return c >= 0x30 && c <= 0x39;
}

/** Record the insertion order on `obj` when JS's own order differs from it. */
function recordOrder(obj: Record<string, unknown>, order: string[]): void {
  const own = Object.keys(obj);
  let same = own.length === order.length;
  for (let i = 0; same && i < order.length; i++) same = own[i] === order[i];
  if (!same) Object.defineProperty(obj, PY_KEYS, { value: order, enumerable: false, configurable: true, writable: true });
}

/** Build a dict from entries, keeping their order (later duplicates overwrite values in place). */
export function makePyDict(entries: Iterable<readonly [string, unknown]>): PyDict {
  const obj: Record<string, unknown> = {};
  const order: string[] = [];
  let digitKey = false;
  for (const [k, v] of entries) {
    if (!Object.prototype.hasOwnProperty.call(obj, k)) {
      order.push(k);
      if (startsWithDigit(k)) digitKey = true;
    }
    setOwn(obj, k, v);
  }
  if (digitKey) recordOrder(obj, order);
  return obj as PyDict;
}

/** A Python int in the model: a number in the safe range, else an exact bigint. */
export function makePyInt(v: bigint): number | bigint {
  return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
}

/** A Python float in the model: integral values (and -0.0) are wrapped so they stay floats. */
export function makePyFloat(x: number): number | PyFloat {
  return Number.isInteger(x) || Object.is(x, -0) ? new PyFloat(x) : x;
}

/** Python's type name of a value in the model. */
export function pyTypeName(v: unknown): string {
  if (v === null || v === undefined) return 'NoneType';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'str';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return Number.isInteger(v) && !Object.is(v, -0) ? 'int' : 'float';
  if (v instanceof PyFloat) return 'float';
  if (Array.isArray(v)) return 'list';
  return 'dict';
}

/** Python truthiness. */
export function pyTruthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false) return false;
  if (v === true) return true;
  if (typeof v === 'string') return v.length > 0;
  if (typeof v === 'bigint') return v !== 0n;
  if (typeof v === 'number') return v !== 0; // NaN is truthy in Python
  if (v instanceof PyFloat) return v.value !== 0;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof Map) return v.size > 0;
  if (typeof v === 'object') return pyKeys(v).length > 0;
  return true;
}

/** Python `repr(float)`: shortest round-trip digits, exponent form when exp < -4 or >= 16. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  const [mant, expStr] = Math.abs(x).toExponential().split('e');
  const digits = mant!.replace('.', '');
  const exp = Number(expStr);
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp);
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${e < 10 ? '0' : ''}${e}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return `${sign}${digits}${'0'.repeat(exp + 1 - digits.length)}.0`;
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

// ---------------------------------------------------------------------------
// decoder

/** Nesting bound: Python's scanner would hit its recursion limit around this depth. */
export const MAX_DEPTH = 1000;
const INT_MAX_STR_DIGITS = 4300;

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}
function hexVal(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

/** Signals "no value here" (Python's StopIteration from the scanner), carrying the index. */
class NoValue {
  constructor(readonly idx: number) {}
}

/** Plain string characters (no quote, backslash, control character or surrogate) up to a closing quote; sticky. */
const PLAIN_RUN = /[^"\\\x00-\x1f\ud800-\udfff]*"/y;

/**
 * A member of the top-level object kept from an earlier decode, with the
 * exact text it was decoded from. A later text holding the same characters
 * at that member decodes to an equal value (a JSON array is closed by its own
 * bracket, so the decode never looks past that text), so the kept value is
 * used instead. The value is shared by every decode that hits it: whoever
 * takes one from `decodePyJson` must only read it and never hand it out.
 */
export interface SharedMember {
  /**
   * A JSON text of the member value (an array without any surrogate code
   * unit): the text it was decoded from, or for a value JSON.parse gave, its
   * JSON.stringify (which the lossless decoder reads back as that value).
   */
  readonly text: string;
  readonly value: PyValue[];
  /** Whatever the owner derives from the value once (read-only too). */
  derived?: unknown;
}

/** A few recently decoded texts of one top-level member (`tools` of a request), most recent first. */
export class SharedMembers {
  private readonly entries: SharedMember[] = [];
  constructor(
    readonly key: string,
    private readonly capacity = 4,
    private readonly maxText = 256 * 1024,
  ) {}

  /** The entry whose text starts at `idx` in `s`. */
  find(s: string, idx: number): SharedMember | undefined {
    const entries = this.entries;
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i]!;
      // (string equality compares the characters in bulk; startsWith goes one by one)
      if (s.slice(idx, idx + e.text.length) === e.text) return this.promote(i);
    }
    return undefined;
  }

  /** The entries, most recent first. */
  list(): readonly SharedMember[] {
    return this.entries;
  }

  /** Makes `e` (one of the entries) the most recent entry. */
  touch(e: SharedMember): void {
    this.promote(this.entries.indexOf(e));
  }

  /** Moves entry `i` to the front and returns it. */
  private promote(i: number): SharedMember {
    const entries = this.entries;
    const e = entries[i]!;
    if (i > 0) {
      entries.splice(i, 1);
      entries.unshift(e);
    }
    return e;
  }

  /** The entry whose value equals `value` (a JSON.parse result the lossless decoder agrees with). */
  findValue(value: unknown[]): SharedMember | undefined {
    const entries = this.entries;
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i]!;
      if (sameJsonValue(e.value, value, 0)) return this.promote(i);
    }
    return undefined;
  }

  /** Keeps `value` (a JSON.parse result the lossless decoder agrees with), unless its JSON text is too long. */
  addValue(value: PyValue[]): SharedMember | undefined {
    const text = JSON.stringify(value);
    if (text.length > this.maxText) return undefined;
    return this.keep({ text, value });
  }

  private keep(e: SharedMember): SharedMember {
    this.entries.unshift(e);
    if (this.entries.length > this.capacity) this.entries.pop();
    return e;
  }

  /** Keeps `value`, decoded from s[start, end), unless its text is too long. */
  add(s: string, start: number, end: number, value: PyValue[]): SharedMember | undefined {
    if (end - start > this.maxText) return undefined;
    // a copy of the characters, so that the entry does not keep the whole request text alive
    const text = Buffer.from(s.slice(start, end), 'utf16le').toString('utf16le');
    return this.keep({ text, value });
  }
}

/**
 * Deep equality of two JSON.parse-like values: same primitives, arrays of
 * the same length, objects with the same own keys in the same order. A
 * value with anything else (a PyFloat, bigint, Map, recorded key order) is
 * never equal to a JSON.parse result the decoder kept.
 */
function sameJsonValue(a: unknown, b: unknown, depth: number): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || depth > 100) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJsonValue(a[i], b[i], depth + 1)) return false;
    return true;
  }
  if (Array.isArray(b) || Object.getPrototypeOf(a) !== Object.prototype || Object.getPrototypeOf(b) !== Object.prototype) return false;
  if ((a as { [PY_KEYS]?: unknown })[PY_KEYS] !== undefined || (b as { [PY_KEYS]?: unknown })[PY_KEYS] !== undefined) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i]!;
    if (k !== kb[i] || !sameJsonValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], depth + 1)) return false;
  }
  return true;
}

class Decoder {
  private depth = 0;
  /** Set once a string or key held a surrogate code unit (raw or escaped, paired or not). */
  surrogates = false;
  /** Index just past the value the last scan* call returned. */
  end = 0;
  /**
   * When set, the keys and indexes leading to the value being scanned (only
   * used to name where a too-deep document went too deep).
   */
  path: Array<string | number> | null = null;
  /** Top-level member values shared between decodes, and the one this text's member came from. */
  shared: SharedMembers | null = null;
  sharedHit: SharedMember | undefined = undefined;
  constructor(private readonly s: string) {}

  err(msg: string, pos: number): PyJsonDecodeError {
    return new PyJsonDecodeError(msg, this.s, pos);
  }

  skipWs(i: number): number {
    const s = this.s;
    while (i < s.length && isWs(s.charCodeAt(i))) i++;
    return i;
  }

  /** Returns the value (its end in `this.end`); throws NoValue when nothing starts at idx. */
  scan(idx: number): PyValue {
    const s = this.s;
    if (idx >= s.length) throw new NoValue(idx);
    const c = s[idx];
    switch (c) {
      case '"':
        return this.scanString(idx + 1);
      case '{':
        return this.scanObject(idx + 1);
      case '[':
        return this.scanArray(idx + 1);
      case 'n':
        if (s.startsWith('null', idx)) return this.at(null, idx + 4);
        break;
      case 't':
        if (s.startsWith('true', idx)) return this.at(true, idx + 4);
        break;
      case 'f':
        if (s.startsWith('false', idx)) return this.at(false, idx + 5);
        break;
      case 'N':
        if (s.startsWith('NaN', idx)) return this.at(NaN, idx + 3);
        break;
      case 'I':
        if (s.startsWith('Infinity', idx)) return this.at(Infinity, idx + 8);
        break;
      case '-':
        if (s.startsWith('-Infinity', idx)) return this.at(-Infinity, idx + 9);
        break;
    }
    return this.scanNumber(idx);
  }

  private at<T>(v: T, end: number): T {
    this.end = end;
    return v;
  }

  scanNumber(start: number): PyValue {
    const s = this.s;
    const n = s.length;
    let i = start;
    if (s.charCodeAt(i) === 0x2d) {
      i++;
      if (i >= n) throw new NoValue(start);
    }
    const c0 = s.charCodeAt(i);
    if (c0 >= 0x31 && c0 <= 0x39) {
      i++;
      while (i < n && isDigit(s.charCodeAt(i))) i++;
    } else if (c0 === 0x30) {
      i++;
    } else {
      throw new NoValue(start);
    }
    let isFloat = false;
    if (i < n - 1 && s.charCodeAt(i) === 0x2e && isDigit(s.charCodeAt(i + 1))) {
      isFloat = true;
      i += 2;
      while (i < n && isDigit(s.charCodeAt(i))) i++;
    }
    if (i < n - 1 && (s.charCodeAt(i) === 0x65 || s.charCodeAt(i) === 0x45)) {
      const eStart = i;
      i++;
      if (i < n - 1 && (s.charCodeAt(i) === 0x2d || s.charCodeAt(i) === 0x2b)) i++;
      while (i < n && isDigit(s.charCodeAt(i))) i++;
      if (isDigit(s.charCodeAt(i - 1))) isFloat = true;
      else i = eStart;
    }
    const text = s.slice(start, i);
    if (isFloat) {
      const v = Number(text);
      if (Number.isInteger(v) || Object.is(v, -0)) return this.at(new PyFloat(v, text), i);
      return this.at(v, i);
    }
    const digits = text.startsWith('-') ? text.length - 1 : text.length;
    if (digits > INT_MAX_STR_DIGITS) {
      throw new PyJsonDecodeError(
        `Exceeds the limit (${INT_MAX_STR_DIGITS} digits) for integer string conversion: value has ${digits} digits; use sys.set_int_max_str_digits() to increase the limit`,
        null,
        0,
      );
    }
    if (digits <= 15) {
      const v = Number(text);
      return this.at(v === 0 ? 0 : v, i);
    }
    const big = BigInt(text);
    if (big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER)) return this.at(Number(big), i);
    return this.at(big, i);
  }

  scanString(end: number): string {
    const s = this.s;
    // The common string: plain characters up to the closing quote, found by
    // hand for short strings (keys) and by one native regex scan for long ones.
    let i = end;
    const stop = Math.min(end + 16, s.length);
    for (; i < stop; i++) {
      const c = s.charCodeAt(i);
      if (c === 0x22) {
        this.end = i + 1;
        return s.slice(end, i);
      }
      if (c === 0x5c || c <= 0x1f || (c & 0xf800) === 0xd800) break;
    }
    if (i === stop && i < s.length) {
      PLAIN_RUN.lastIndex = i;
      if (PLAIN_RUN.test(s)) {
        const close = PLAIN_RUN.lastIndex - 1;
        this.end = close + 1;
        return s.slice(end, close);
      }
    }
    return this.scanStringExact(end);
  }

  /** The string body from `end` (after the opening quote), character by character, with Python's errors. */
  private scanStringExact(end: number): string {
    const s = this.s;
    const n = s.length;
    const begin = end - 1;
    let out = '';
    for (;;) {
      let next = end;
      let c = 0;
      for (; next < n; next++) {
        c = s.charCodeAt(next);
        if (c === 0x22 || c === 0x5c) break;
        if (c <= 0x1f) throw this.err('Invalid control character at', next);
        if ((c & 0xf800) === 0xd800) this.surrogates = true;
      }
      if (next >= n) throw this.err('Unterminated string starting at', begin);
      if (next !== end) out += s.slice(end, next);
      next++;
      if (c === 0x22) {
        end = next;
        break;
      }
      if (next === n) throw this.err('Unterminated string starting at', begin);
      const e = s[next]!;
      if (e !== 'u') {
        end = next + 1;
        switch (e) {
          case '"': out += '"'; break;
          case '\\': out += '\\'; break;
          case '/': out += '/'; break;
          case 'b': out += '\b'; break;
          case 'f': out += '\f'; break;
          case 'n': out += '\n'; break;
          case 'r': out += '\r'; break;
          case 't': out += '\t'; break;
          default:
            throw this.err('Invalid \\escape', end - 2);
        }
        continue;
      }
      next++;
      end = next + 4;
      if (end >= n) throw this.err('Invalid \\uXXXX escape', next - 1);
      let cp = 0;
      for (; next < end; next++) {
        const d = hexVal(s.charCodeAt(next));
        if (d < 0) throw this.err('Invalid \\uXXXX escape', end - 5);
        cp = (cp << 4) | d;
      }
      if ((cp & 0xf800) === 0xd800) this.surrogates = true;
      if (cp >= 0xd800 && cp <= 0xdbff && end + 6 < n && s[next] === '\\' && s[next + 1] === 'u') {
        next += 2;
        const end2 = end + 6;
        let cp2 = 0;
        for (; next < end2; next++) {
          const d = hexVal(s.charCodeAt(next));
          if (d < 0) throw this.err('Invalid \\uXXXX escape', end2 - 5);
          cp2 = (cp2 << 4) | d;
        }
        if (cp2 >= 0xdc00 && cp2 <= 0xdfff) {
          out += String.fromCharCode(cp, cp2);
          end = end2;
          continue;
        }
      }
      out += String.fromCharCode(cp);
    }
    this.end = end;
    return out;
  }

  enter(idx: number): void {
    if (++this.depth > MAX_DEPTH) throw this.err(NESTING_TOO_DEEP, idx);
  }

  scanObject(idx: number): PyDict {
    const s = this.s;
    this.enter(idx);
    const obj: Record<string, unknown> = {};
    // insertion order, kept only once a key JS would move ahead (digit-first) turns up
    let order: string[] | null = null;
    idx = this.skipWs(idx);
    if (s.charCodeAt(idx) !== 0x7d) {
      for (;;) {
        if (s.charCodeAt(idx) !== 0x22) throw this.err('Expecting property name enclosed in double quotes', idx);
        const key = this.scanString(idx + 1);
        idx = this.skipWs(this.end);
        if (s.charCodeAt(idx) !== 0x3a) throw this.err("Expecting ':' delimiter", idx);
        idx = this.skipWs(idx + 1);
        if (this.path) this.path.push(key);
        const val = this.shared !== null && this.depth === 1 && key === this.shared.key ? this.scanShared(idx) : this.scan(idx);
        if (this.path) this.path.pop();
        const afterVal = this.end;
        if (order !== null) {
          if (!Object.prototype.hasOwnProperty.call(obj, key)) order.push(key);
        } else if (startsWithDigit(key) && !Object.prototype.hasOwnProperty.call(obj, key)) {
          // every key so far is an ordinary one, so JS's order is still the insertion order
          order = Object.keys(obj);
          order.push(key);
        }
        if (key === '__proto__') setOwn(obj, key, val);
        else obj[key] = val;
        idx = this.skipWs(afterVal);
        if (s.charCodeAt(idx) === 0x7d) break;
        if (s.charCodeAt(idx) !== 0x2c) throw this.err("Expecting ',' delimiter", idx);
        idx = this.skipWs(idx + 1);
      }
    }
    if (order !== null) recordOrder(obj, order);
    this.depth--;
    this.end = idx + 1;
    return obj as PyDict;
  }

  /** A member of the top-level object named `shared.key`: a kept value when its text is there, else decoded (and kept). */
  private scanShared(idx: number): PyValue {
    const shared = this.shared!;
    const s = this.s;
    if (s.charCodeAt(idx) !== 0x5b) {
      this.sharedHit = undefined;
      return this.scan(idx);
    }
    const hit = shared.find(s, idx);
    if (hit !== undefined) {
      this.sharedHit = hit;
      this.end = idx + hit.text.length;
      return hit.value;
    }
    const before = this.surrogates;
    this.surrogates = false;
    const value = this.scanArray(idx + 1);
    this.sharedHit = this.surrogates ? undefined : shared.add(s, idx, this.end, value);
    this.surrogates = this.surrogates || before;
    return value;
  }

  scanArray(idx: number): PyValue[] {
    const s = this.s;
    this.enter(idx);
    const arr: PyValue[] = [];
    idx = this.skipWs(idx);
    if (s.charCodeAt(idx) !== 0x5d) {
      for (;;) {
        if (this.path) this.path.push(arr.length);
        arr.push(this.scan(idx));
        if (this.path) this.path.pop();
        idx = this.skipWs(this.end);
        if (s.charCodeAt(idx) === 0x5d) break;
        if (s.charCodeAt(idx) !== 0x2c) throw this.err("Expecting ',' delimiter", idx);
        idx = this.skipWs(idx + 1);
      }
    }
    this.depth--;
    this.end = idx + 1;
    return arr;
  }
}

/**
 * Python `json.loads(text)` for a `str` argument. Throws `PyJsonDecodeError`
 * whose message is Python's `str(e)`.
 */
export function parsePyJson(text: string): PyValue {
  return decodePyJson(text).value;
}

/** Below the lossless decoder's own limit, so that a text near it is decoded (and refused) there. */
const PLAIN_MAX_DEPTH = 100;

export interface Decoded {
  value: PyValue;
  /** A string or key may hold a surrogate code unit (always set when one does). */
  surrogates: boolean;
  /** The shared member the value's `shared.key` member is (read only). */
  shared?: SharedMember;
}

/**
 * parsePyJson, also telling whether any string or key of the text held a
 * surrogate code unit (paired or not, raw or escaped; it may also say so of
 * a text whose only surrogate-like characters are an escaped backslash
 * before `ud800`). A text that decodes is within MAX_DEPTH; one without
 * surrogates has no lone surrogate either, so it already meets the request
 * bounds (protocol/bounds).
 *
 * The value is JSON.parse's wherever that provably is the lossless
 * decoder's (protocol/json-parse-agrees), and the lossless decoder's
 * everywhere else, including every error.
 */
export function decodePyJson(text: string, shared?: SharedMembers): Decoded {
  if (shared !== undefined) {
    const d = decodeAroundSharedText(text, shared);
    if (d !== undefined) return d;
  }
  const v = parseIfAgrees(text, PLAIN_MAX_DEPTH);
  if (v === undefined) return decodePyJsonExact(text, shared);
  const surrogates = mayHoldSurrogates(text);
  if (shared !== undefined && !surrogates && isPyDict(v)) {
    const member = (v as PyDict)[shared.key];
    if (Array.isArray(member)) {
      const hit = shared.findValue(member) ?? shared.addValue(member);
      if (hit !== undefined) {
        (v as PyDict)[shared.key] = hit.value;
        return { value: v as PyValue, surrogates, shared: hit };
      }
    }
  }
  return { value: v as PyValue, surrogates };
}

/** The string that stands in for a kept member's text (decodeAroundSharedText); spelled with an escape. */
const STAND_IN_TEXT = '"\\u0000node-vllm-cpp shared member"';
const STAND_IN = JSON.parse(STAND_IN_TEXT) as string;

/**
 * JSON.parse of the text with a kept member's text (a recent request's
 * `tools`) replaced by a stand-in string, so that only the rest is parsed.
 * The stand-in begins with a quote, so put where the kept text was inside a
 * string it leaves invalid JSON; outside strings a JSON array is a whole
 * value, so the stand-in takes its place. When the parsed value has the
 * stand-in as its `shared.key` member and nowhere else (keys included),
 * that member is the kept text, and its kept value is used.
 */
function decodeAroundSharedText(text: string, shared: SharedMembers): Decoded | undefined {
  for (const e of shared.list()) {
    const idx = text.indexOf(e.text);
    if (idx < 0) continue;
    const v = parseIfAgrees(text.slice(0, idx) + STAND_IN_TEXT + text.slice(idx + e.text.length), PLAIN_MAX_DEPTH, STAND_IN);
    if (v === undefined || !isPyDict(v) || (v as PyDict)[shared.key] !== STAND_IN) return undefined;
    (v as PyDict)[shared.key] = e.value;
    shared.touch(e);
    return { value: v as PyValue, surrogates: mayHoldSurrogates(text), shared: e };
  }
  return undefined;
}

/** decodePyJson by the lossless decoder alone (the reference the JSON.parse path is checked against). */
export function decodePyJsonExact(text: string, shared?: SharedMembers): Decoded {
  const d = new Decoder(text);
  if (shared !== undefined) d.shared = shared;
  if (text.charCodeAt(0) === 0xfeff) throw d.err('Unexpected UTF-8 BOM (decode using utf-8-sig)', 0);
  let idx = d.skipWs(0);
  let value: PyValue;
  try {
    value = d.scan(idx);
    idx = d.end;
  } catch (e) {
    if (e instanceof NoValue) throw d.err('Expecting value', e.idx);
    throw e;
  }
  idx = d.skipWs(idx);
  if (idx !== text.length) throw d.err('Extra data', idx);
  const hit = d.sharedHit;
  if (hit !== undefined && isPyDict(value) && shared !== undefined && value[shared.key] === hit.value) return { value, surrogates: d.surrogates, shared: hit };
  return { value, surrogates: d.surrogates };
}

/** The message of the decoder's error for a document nested deeper than MAX_DEPTH. */
export const NESTING_TOO_DEEP = 'Nesting too deep (maximum recursion depth exceeded)';

/**
 * For a text on which `parsePyJson` fails with NESTING_TOO_DEEP: the keys and
 * indexes leading to the first container past the bound (an empty list is
 * the top level). Undefined when the text does not fail that way.
 */
export function nestingPath(text: string): Array<string | number> | undefined {
  const d = new Decoder(text);
  const path: Array<string | number> = [];
  d.path = path;
  try {
    d.scan(d.skipWs(0));
  } catch (e) {
    if (e instanceof PyJsonDecodeError && e.msg === NESTING_TOO_DEEP) return path;
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// encoder

/** Characters that need an escape (or a surrogate check) in a JSON string. */
const NEEDS_ESCAPE = /[\x00-\x1f"\\\ud800-\udfff]/;
/** Escaped forms of short ASCII keys (object keys repeat a lot). */
const keyCache = new Map<string, string>();

function escapeKey(k: string): string {
  let e = keyCache.get(k);
  if (e === undefined) {
    e = escapeString(k);
    if (k.length <= 64 && keyCache.size < 4096) keyCache.set(k, e);
  }
  return e;
}

/**
 * JSON.stringify of a string already writes what we need (since ES2019 it
 * escapes lone surrogates as \udXXX and leaves pairs raw; control characters
 * as \n, \t, ... or lowercase \u00XX), and does it in native code.
 */
function escapeString(s: string): string {
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : '"' + s + '"';
}

/**
 * What Python's `json.dumps(s, ensure_ascii=False)` writes for a str: only
 * `"`, `\\` and C0 controls are escaped; lone surrogates stay raw (Python
 * leaves them in the str). JSON.stringify spells each escaped character the
 * way Python does (`\n`, lowercase `\u001f`).
 */
const DUMPS_ESCAPE = /[\x00-\x1f"\\]/g;
function dumpsString(s: string): string {
  return '"' + s.replace(DUMPS_ESCAPE, (c) => JSON.stringify(c).slice(1, -1)) + '"';
}

function numberText(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  if (Object.is(v, -0)) return '-0.0';
  if (Number.isInteger(v)) return Number.isSafeInteger(v) ? String(v) : BigInt(v).toString();
  return String(v); // non-integral: always has '.' or an exponent
}

function floatText(f: PyFloat): string {
  const v = f.value;
  if (!Number.isFinite(v)) return numberText(v);
  if (f.text !== undefined) return f.text;
  if (Object.is(v, -0)) return '-0.0';
  const t = String(v);
  return /[.eE]/.test(t) ? t : t + '.0';
}

/** Python `json.dumps` spelling of a float: `repr`, with JSON's names for the non-finite values. */
function dumpsFloat(v: number): string {
  return Number.isFinite(v) ? pyFloatRepr(v) : numberText(v);
}

export interface SerializeOptions {
  /**
   * Print exactly what Python's `json.dumps(value, ensure_ascii=False)`
   * prints for the value: floats normalised to `repr` (`1e5` -> `100000.0`,
   * `2.50` -> `2.5`) instead of keeping their source text, and lone
   * surrogates left raw instead of escaped. Tool parsers need this because
   * vLLM re-serializes decoded arguments with `json.dumps`.
   */
  pythonDumps?: boolean;
  /**
   * No spaces after `,` and `:` (the default writes Python's `, ` and `: `).
   * For text only a decoder reads, such as the template context handed to
   * the native renderer. Ignored with `pythonDumps`.
   */
  compact?: boolean;
}

/**
 * Write a value of the model (or plain JS data) as JSON text that Python's
 * `json.loads` reads back into the same Python value. `undefined` object
 * members are skipped (as JSON.stringify does); `undefined` array items
 * become null; Maps with string keys are written as objects.
 */
export function serializePyJson(value: unknown, opts?: SerializeOptions): string {
  const dumps = opts?.pythonDumps === true;
  const compact = !dumps && opts?.compact === true;
  const e = new Encoder(dumps, compact);
  if (compact && typeof value === 'object' && value !== null) {
    const plain = new PlainScan();
    if (plain.scan(value, 0)) return JSON.stringify(value);
    e.plain = plain;
  }
  e.write(value);
  return e.out;
}

/**
 * A number JSON.stringify writes as the text Python reads back as the same
 * int or float: a safe integer other than `-0`, or a finite non-integral
 * number (the shortest text that reads back as the same double).
 */
export function stringifiesAsPython(v: number): boolean {
  return Number.isInteger(v) ? Number.isSafeInteger(v) && !Object.is(v, -0) : Number.isFinite(v);
}

/**
 * How deep PlainScan looks. A container nested deeper (or a cycle) is left
 * to the encoder, with its cycle check.
 */
const PLAIN_SCAN_DEPTH = 64;

/**
 * Which containers of a value JSON.stringify writes exactly as the compact
 * encoder does, so that they can be handed to it whole (it runs natively).
 * The two agree on plain objects (own enumerable keys in JS order) and
 * arrays of strings (both escape lone surrogates as `\udXXX`), booleans,
 * null, undefined (skipped as a member, null as an item), safe integers and
 * finite non-integral numbers. Everything else marks the container holding
 * it: PyFloat, PreEncoded, bigint, non-finite numbers, `-0`, unsafe
 * integers, Maps, objects with Python key order (PY_KEYS) or a prototype
 * other than Object's (class instances, boxed primitives), anything with a
 * `toJSON`, functions and symbols.
 *
 * One walk marks every container that is not plain (`dirty`); the encoder
 * writes those itself and hands every other container to JSON.stringify.
 * The walk visits a superset of the members the encoder writes (for-in also
 * sees inherited enumerable keys), so it can only mark too much.
 */
class PlainScan {
  /** Containers that hold something JSON.stringify would write differently. */
  readonly dirty = new Set<object>();
  /** Containers at PLAIN_SCAN_DEPTH: below them nothing was looked at. */
  readonly unscanned = new Set<object>();

  scan(v: unknown, depth: number): boolean {
    switch (typeof v) {
      case 'string':
      case 'boolean':
      case 'undefined':
        return true;
      case 'number':
        return stringifiesAsPython(v);
      case 'object':
        break;
      default:
        return false;
    }
    if (v === null) return true;
    if (v instanceof PyFloat || v instanceof PreEncoded) return false;
    if (depth >= PLAIN_SCAN_DEPTH) {
      this.dirty.add(v);
      this.unscanned.add(v);
      return false;
    }
    let plain = true;
    if (Array.isArray(v)) {
      if ((v as { toJSON?: unknown }).toJSON !== undefined) plain = false;
      for (let i = 0; i < v.length; i++) if (!this.scan(v[i], depth + 1)) plain = false;
    } else if (v instanceof Map) {
      plain = false;
      for (const x of v.values()) this.scan(x, depth + 1);
    } else {
      const proto = Object.getPrototypeOf(v);
      if ((proto !== Object.prototype && proto !== null) || (v as { toJSON?: unknown }).toJSON !== undefined || (v as { [PY_KEYS]?: unknown })[PY_KEYS] !== undefined) {
        plain = false;
      }
      for (const k in v) if (!this.scan((v as Record<string, unknown>)[k], depth + 1)) plain = false;
    }
    if (!plain) this.dirty.add(v);
    return plain;
  }
}

/** Python's `json.dumps(value, ensure_ascii=False)` of a model value. */
export function pyJsonDumps(value: unknown): string {
  return serializePyJson(value, { pythonDumps: true });
}

class Encoder {
  out = '';
  /** The containers being written (for the cycle check). */
  private readonly stack: object[] = [];
  private readonly str: (s: string) => string;
  private readonly key: (k: string) => string;

  /**
   * Set by serializePyJson in compact mode: containers it does not mark are
   * written by JSON.stringify. Cleared below a container PlainScan did not
   * look into.
   */
  plain: PlainScan | undefined = undefined;

  /** Item and key separators. */
  private readonly comma: string;
  private readonly colon: string;

  constructor(
    private readonly pythonDumps: boolean,
    compact: boolean,
  ) {
    this.str = pythonDumps ? dumpsString : escapeString;
    this.key = pythonDumps ? dumpsString : escapeKey;
    this.comma = compact ? ',' : ', ';
    this.colon = compact ? ':' : ': ';
  }

  write(v: unknown): void {
    switch (typeof v) {
      case 'string':
        this.out += this.str(v);
        return;
      case 'number':
        // Integral numbers are ints in the model, so only non-integral ones differ.
        this.out += this.pythonDumps && !Number.isInteger(v) ? dumpsFloat(v) : numberText(v);
        return;
      case 'bigint':
        this.out += v.toString();
        return;
      case 'boolean':
        this.out += v ? 'true' : 'false';
        return;
      case 'undefined':
        this.out += 'null';
        return;
      case 'object':
        break;
      default:
        throw new TypeError(`Object of type ${typeof v} is not JSON serializable`);
    }
    if (v === null) {
      this.out += 'null';
      return;
    }
    if (v instanceof PyFloat) {
      this.out += this.pythonDumps ? dumpsFloat(v.value) : floatText(v);
      return;
    }
    if (v instanceof PreEncoded) {
      this.out += v.text;
      return;
    }
    const plain = this.plain;
    if (plain !== undefined) {
      if (!plain.dirty.has(v)) {
        this.out += JSON.stringify(v);
        return;
      }
      if (plain.unscanned.has(v)) {
        this.plain = undefined;
        this.writeContainer(v);
        this.plain = plain;
        return;
      }
    }
    this.writeContainer(v);
  }

  private writeContainer(v: object): void {
    const stack = this.stack;
    // A cycle nests without bound, so it is still caught once the nesting is deep.
    if (stack.length >= 32 && stack.includes(v)) throw new TypeError('Circular reference detected');
    stack.push(v);
    if (Array.isArray(v)) {
      this.out += '[';
      for (let i = 0; i < v.length; i++) {
        if (i) this.out += this.comma;
        this.write(v[i]);
      }
      this.out += ']';
    } else if (v instanceof Map) {
      this.out += '{';
      let first = true;
      for (const [k, x] of v) {
        if (x === undefined) continue;
        this.out += (first ? '' : this.comma) + this.key(String(k)) + this.colon;
        first = false;
        this.write(x);
      }
      this.out += '}';
    } else {
      const keys = (v as { [PY_KEYS]?: string[] })[PY_KEYS] ? pyKeys(v) : Object.keys(v);
      this.out += '{';
      let first = true;
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i]!;
        const x = (v as Record<string, unknown>)[k];
        if (x === undefined) continue;
        this.out += (first ? '' : this.comma) + this.key(k) + this.colon;
        first = false;
        this.write(x);
      }
      this.out += '}';
    }
    stack.pop();
  }
}

/** JSON text the serializer writes as it is (a value the caller already serialized with the same options). */
export class PreEncoded {
  constructor(readonly text: string) {}
}

/**
 * Deep copy of a model value (plain arrays and objects, Maps, PyFloat,
 * primitives) that shares no object with it, PyFloat objects included;
 * objects keep their own keys in the same order and their recorded Python
 * order.
 */
export function pyDeepCopy<T>(v: T): T {
  if (typeof v !== 'object' || v === null) return v;
  if (v instanceof PyFloat) return new PyFloat(v.value, v.text) as T;
  if (Array.isArray(v)) {
    const out: unknown[] = new Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = pyDeepCopy(v[i]);
    return out as T;
  }
  if (v instanceof Map) return new Map([...v.entries()].map(([k, x]) => [k, pyDeepCopy(x)])) as T;
  const src = v as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k in src) {
    if (!Object.prototype.hasOwnProperty.call(src, k)) continue;
    if (k === '__proto__') setOwn(out, k, pyDeepCopy(src[k]));
    else out[k] = pyDeepCopy(src[k]);
  }
  const order = (src as { [PY_KEYS]?: string[] })[PY_KEYS];
  if (order !== undefined) Object.defineProperty(out, PY_KEYS, { value: order.slice(), enumerable: false, configurable: true, writable: true });
  return out as T;
}
