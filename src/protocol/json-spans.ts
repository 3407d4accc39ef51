/**
 * Where the items of one array member of a JSON object lie in its text,
 * found by a structural scan (strings skipped with indexOf) of a text that
 * is already known to be valid JSON. Used to reuse the part of a request
 * that an earlier request had byte for byte (conversation/history), and to
 * decode a request without its messages (engine/chat).
 */

/** JSON whitespace (a char code). */
export function isWs(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** The index of the first non-whitespace character from `i` on. */
export function skipWs(s: string, i: number): number {
  while (i < s.length && isWs(s.charCodeAt(i))) i++;
  return i;
}

/** The `"` at `i` is escaped (an odd run of backslashes before it). */
export function escapedQuote(s: string, i: number): boolean {
  let k = i - 1;
  while (k >= 0 && s.charCodeAt(k) === 0x5c) k--;
  return (i - 1 - k) % 2 === 1;
}

/** The index just past the string whose opening quote is at `i`. */
function stringEnd(s: string, i: number): number {
  let q = s.indexOf('"', i + 1);
  for (;;) {
    if (q < 0) throw new SyntaxError('unterminated string');
    if (!escapedQuote(s, q)) return q + 1;
    q = s.indexOf('"', q + 1);
  }
}

/** The index just past the value starting at `i` (not whitespace). */
function valueEnd(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c === 0x22) return stringEnd(s, i);
  if (c !== 0x7b && c !== 0x5b) {
    // number, true, false, null: up to the next delimiter
    let j = i + 1;
    while (j < s.length) {
      const d = s.charCodeAt(j);
      if (d === 0x2c || d === 0x5d || d === 0x7d || isWs(d)) break;
      j++;
    }
    return j;
  }
  let depth = 0;
  let j = i;
  while (j < s.length) {
    const d = s.charCodeAt(j);
    if (d === 0x22) {
      j = stringEnd(s, j);
      continue;
    }
    if (d === 0x7b || d === 0x5b) depth++;
    else if (d === 0x7d || d === 0x5d) {
      depth--;
      if (depth === 0) return j + 1;
    }
    j++;
  }
  throw new SyntaxError('unterminated container');
}

/**
 * The ends (index just past each item) of the array items that follow `pos`
 * in `s`: `pos` is just past an array's `[` (`first`) or just past one of its
 * items. `close` is the index of the array's `]`.
 */
export function itemEnds(s: string, pos: number, first: boolean): { ends: number[]; close: number } {
  const ends: number[] = [];
  let i = skipWs(s, pos);
  if (first) {
    if (s.charCodeAt(i) === 0x5d) return { ends, close: i };
    i = valueEnd(s, i);
    ends.push(i);
    i = skipWs(s, i);
  }
  for (;;) {
    const c = s.charCodeAt(i);
    if (c === 0x5d) return { ends, close: i };
    if (c !== 0x2c) throw new SyntaxError(`expected , or ] at ${i}`);
    i = valueEnd(s, skipWs(s, i + 1));
    ends.push(i);
    i = skipWs(s, i);
  }
}

export interface ArraySpan {
  /** The index just past the array's `[`. */
  open: number;
  /** The index just past each item. */
  ends: number[];
  /** The index of the array's `]`. */
  close: number;
}

/**
 * The span of the array that is the member `key` of the object `text` (valid
 * JSON) holds. Undefined when the text is not an object, when that member is
 * not an array, or when more than one key of the object spells `key`
 * (escapes included).
 */
export function memberArraySpan(text: string, key: string): ArraySpan | undefined {
  return scanMember(text, key, false);
}

/**
 * The end of the first item of the array member `key` (the first member
 * spelling it) of the object `text` (valid JSON), found without scanning
 * the rest; undefined where memberArraySpan finds no items for other reasons
 * than a duplicate key.
 */
export function firstItemEnd(text: string, key: string): number | undefined {
  return scanMember(text, key, true)?.ends[0];
}

/** The name of the object key whose opening quote is at `i`, and the index just past it. */
function keyAt(text: string, i: number): { name: string; end: number } {
  const end = stringEnd(text, i);
  const raw = text.slice(i + 1, end - 1);
  return { name: raw.includes('\\') ? (JSON.parse(text.slice(i, end)) as string) : raw, end };
}

/**
 * The addon's structural scan of a value (native/addon/json_spans.cc: the
 * same walk over the text's UTF-16 units, sixteen at a time): given once the
 * addon is loaded (native/embedded), so this module itself never loads it.
 * It returns -1 where it found no end, and this module's own scan then
 * gives the answer (or the error).
 */
let nativeValueEnd: ((text: string, at: number) => number) | undefined;

/** @internal Gives this module the addon's scan (undefined: its own scan only). */
export function useNativeValueEnd(scan: ((text: string, at: number) => number) | undefined): void {
  nativeValueEnd = scan;
}

/** @internal From this many characters on, a member's container value is scanned natively (the call copies the text from the value on). */
export const NATIVE_SCAN_FROM = 4096;

/** The end of a member's value at `at`: valueEnd, natively for a container with at least `nativeFrom` characters from it on. */
function memberValueEnd(text: string, at: number, nativeFrom = NATIVE_SCAN_FROM): number {
  if (nativeValueEnd !== undefined && text.length - at >= nativeFrom) {
    const c = text.charCodeAt(at);
    if (c === 0x5b || c === 0x7b) {
      const end = nativeValueEnd(text.slice(at), 0);
      if (end >= 0) return at + end;
    }
  }
  return valueEnd(text, at);
}

/** What a member visitor returns to end the walk early. */
const STOP = -1;

/**
 * Walks the members of the object `text` (valid JSON): `visit` gets each
 * member's name and where its value starts, and returns where the value
 * ends, or STOP. False when the text is not an object or the walk went
 * wrong (including a visitor that threw).
 */
function eachMember(text: string, visit: (name: string, at: number) => number): boolean {
  try {
    let i = skipWs(text, 0);
    if (text.charCodeAt(i) !== 0x7b) return false;
    i = skipWs(text, i + 1);
    if (text.charCodeAt(i) === 0x7d) return true;
    for (;;) {
      const k = keyAt(text, i);
      i = skipWs(text, k.end);
      if (text.charCodeAt(i) !== 0x3a) return false;
      const end = visit(k.name, skipWs(text, i + 1));
      if (end === STOP) return true;
      i = skipWs(text, end);
      const c = text.charCodeAt(i);
      if (c === 0x7d) return true;
      if (c !== 0x2c) return false;
      i = skipWs(text, i + 1);
    }
  } catch {
    return false;
  }
}

/**
 * The object `text` (valid JSON) with the value of each of its members named
 * `key` (escapes included) replaced by `null`; the text as it is when it has
 * none; undefined when it is not an object. Whatever the text, the result
 * is only what a decode of it without those values gives when the text is
 * valid JSON: a caller that has not seen the text decode checks that first
 * wherever it matters.
 */
export function withoutMember(text: string, key: string): string | undefined {
  return nullMembers(text, [key], false)?.rest;
}

/** A text with some member values replaced by `null`, and where those values were. */
export interface TakenMembers {
  rest: string;
  /** Per key taken: [start, end) of its value in the text. */
  spans: Map<string, [number, number]>;
}

/**
 * The object `text` with the values of its members named in `keys` (escapes
 * included) replaced by `null`, and where each of those values lies.
 * Undefined when the text is not an object, when the walk went wrong, or when
 * more than one member spells one of the keys. The text need not be known to
 * be valid JSON: when `rest` and each taken value decode, the text does too,
 * each taken value being the member's (the walk agrees with a JSON parser on
 * the text before each value, so each `null` stands where a value stood).
 * Container values with at least `nativeFrom` characters from their start on
 * are scanned by the addon where it is loaded (the same ends).
 */
export function takeMembers(text: string, keys: readonly string[], nativeFrom = NATIVE_SCAN_FROM): TakenMembers | undefined {
  return nullMembers(text, keys, true, nativeFrom);
}

function nullMembers(text: string, keys: readonly string[], unique: boolean, nativeFrom = NATIVE_SCAN_FROM): TakenMembers | undefined {
  let out = '';
  let from = 0;
  let twice = false;
  const spans = new Map<string, [number, number]>();
  const walked = eachMember(text, (name, at) => {
    const end = memberValueEnd(text, at, nativeFrom);
    if (keys.includes(name)) {
      if (unique && spans.has(name)) {
        twice = true;
        return STOP;
      }
      spans.set(name, [at, end]);
      out += text.slice(from, at) + 'null';
      from = end;
    }
    return end;
  });
  if (!walked || twice) return undefined;
  return { rest: from === 0 ? text : out + text.slice(from), spans };
}

function scanMember(text: string, key: string, firstOnly: boolean): ArraySpan | undefined {
  let span: ArraySpan | undefined;
  let seen = 0;
  let notArray = false;
  const walked = eachMember(text, (name, at) => {
    if (name !== key) return memberValueEnd(text, at);
    seen++;
    if (text.charCodeAt(at) !== 0x5b) {
      notArray = true;
      return STOP;
    }
    if (firstOnly) {
      const j = skipWs(text, at + 1);
      if (text.charCodeAt(j) !== 0x5d) span = { open: at + 1, ends: [valueEnd(text, j)], close: -1 };
      return STOP;
    }
    const { ends, close } = itemEnds(text, at + 1, true);
    span = { open: at + 1, ends, close };
    return close + 1;
  });
  if (!walked || notArray) return undefined;
  return firstOnly || seen === 1 ? span : undefined;
}

/** The item ends of the array text `[...]` held from `open` (just past `[`) in `s` (valid JSON). */
export function arrayItemEnds(s: string, open: number): number[] | undefined {
  try {
    return itemEnds(s, open, true).ends;
  } catch {
    return undefined;
  }
}
