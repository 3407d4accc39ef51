/**
 * A JSON value model and serializer that reproduce what Python's
 * `json.loads` / `json.dumps(obj, ensure_ascii=False)` would produce.
 *
 * Why not JSON.parse/JSON.stringify: vLLM builds `arguments` strings with
 * Python, so the bytes must follow Python rules — separators `", "` and
 * `": "`, floats printed with Python's `repr` (`1.0`, `1e+16`, `1.5e-05`),
 * arbitrary-precision integers, and dict key order that never reorders
 * integer-like keys (plain JS objects do).
 */

import { pyFloatRepr as pythonFloatRepr } from '../protocol/pyjson';

/** A number that already carries its final (Python) textual form. */
export class JsonNumber {
  constructor(readonly text: string) {}
}

export type JsonObject = Map<string, JsonValue>;
export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | JsonObject;

export class JsonSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonSyntaxError';
  }
}

// ---------------------------------------------------------------------------
// Python number helpers
// ---------------------------------------------------------------------------

/** Python's `str.strip()` whitespace set is Unicode-wide; `\s` is close enough. */
export function pyStrip(s: string): string {
  return s.replace(/^\s+|\s+$/gu, '');
}

const PY_INT_RE = /^[+-]?\d+(?:_\d+)*$/;
const PY_FLOAT_RE = /^[+-]?(?:(?:\d+(?:_\d+)*)?\.\d+(?:_\d+)*|\d+(?:_\d+)*\.?)(?:[eE][+-]?\d+(?:_\d+)*)?$/;
const PY_FLOAT_SPECIAL_RE = /^([+-]?)(inf|infinity|nan)$/i;

/** `int(s)` for a str argument; returns the canonical decimal text or null. */
export function pyIntText(s: string): string | null {
  const t = pyStrip(s);
  if (!PY_INT_RE.test(t)) return null;
  const neg = t.startsWith('-');
  const digits = t.replace(/^[+-]/, '').replace(/_/g, '');
  const v = BigInt(digits);
  return (neg && v !== 0n ? '-' : '') + v.toString();
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

/** Python `repr(float)`, with json.dumps' spellings of the non-finite values. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  return pythonFloatRepr(x);
}

export function intNumber(text: string): JsonNumber {
  return new JsonNumber(text);
}

export function floatNumber(x: number): JsonNumber {
  return new JsonNumber(pyFloatRepr(x));
}

/** A whole float turned into a Python int (`int(1e20)` is exact). */
export function wholeFloatAsInt(x: number): JsonNumber {
  return new JsonNumber(BigInt(x).toString());
}

export function isFiniteJson(v: JsonValue): boolean {
  if (v instanceof JsonNumber) return !/^-?(?:NaN|Infinity)$/.test(v.text);
  if (Array.isArray(v)) return v.every(isFiniteJson);
  if (v instanceof Map) return [...v.values()].every(isFiniteJson);
  return true;
}

// ---------------------------------------------------------------------------
// json.dumps(ensure_ascii=False)
// ---------------------------------------------------------------------------

const ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

export function dumpString(s: string): string {
  return `"${s.replace(/[\x00-\x1f"\\]/g, (c) => ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;
}

export function dumps(v: JsonValue): string {
  if (v === null) return 'null';
  if (v === true) return 'true';
  if (v === false) return 'false';
  if (typeof v === 'string') return dumpString(v);
  if (v instanceof JsonNumber) return v.text;
  if (Array.isArray(v)) return `[${v.map(dumps).join(', ')}]`;
  const parts: string[] = [];
  for (const [k, val] of v) parts.push(`${dumpString(k)}: ${dumps(val)}`);
  return `{${parts.join(', ')}}`;
}

/** Convert a plain JS value (e.g. a parsed tool schema `enum`) into the model. */
export function fromPlain(v: unknown): JsonValue {
  if (v === null || v === undefined) return null;
  if (typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'number') return Number.isInteger(v) ? intNumber(String(v)) : floatNumber(v);
  if (Array.isArray(v)) return v.map(fromPlain);
  if (typeof v === 'object') {
    const m: JsonObject = new Map();
    for (const [k, val] of Object.entries(v as Record<string, unknown>)) m.set(k, fromPlain(val));
    return m;
  }
  return String(v);
}

// ---------------------------------------------------------------------------
// json.loads
// ---------------------------------------------------------------------------

const NUMBER_RE = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/y;
const JSON_WS = /[ \t\n\r]*/y;

/** Number token text -> the value Python's json module would re-serialize. */
export function jsonNumberFromToken(token: string): JsonNumber {
  if (/[.eE]/.test(token)) return floatNumber(Number(token));
  return intNumber(BigInt(token).toString());
}

class JsonReader {
  pos = 0;
  constructor(private readonly s: string) {}

  fail(msg: string): never {
    throw new JsonSyntaxError(`${msg} at position ${this.pos}`);
  }

  ws(): void {
    JSON_WS.lastIndex = this.pos;
    JSON_WS.exec(this.s);
    this.pos = JSON_WS.lastIndex;
  }

  value(): JsonValue {
    const s = this.s;
    const c = s[this.pos];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    if (s.startsWith('null', this.pos)) return (this.pos += 4), null;
    if (s.startsWith('true', this.pos)) return (this.pos += 4), true;
    if (s.startsWith('false', this.pos)) return (this.pos += 5), false;
    NUMBER_RE.lastIndex = this.pos;
    const m = NUMBER_RE.exec(s);
    if (m) {
      this.pos = NUMBER_RE.lastIndex;
      return jsonNumberFromToken(m[0]);
    }
    // Python's decoder accepts these three non-standard constants.
    if (s.startsWith('NaN', this.pos)) return (this.pos += 3), new JsonNumber('NaN');
    if (s.startsWith('Infinity', this.pos)) return (this.pos += 8), new JsonNumber('Infinity');
    if (s.startsWith('-Infinity', this.pos)) return (this.pos += 9), new JsonNumber('-Infinity');
    return this.fail('Expecting value');
  }

  object(): JsonObject {
    const out: JsonObject = new Map();
    this.pos++;
    this.ws();
    if (this.s[this.pos] === '}') {
      this.pos++;
      return out;
    }
    for (;;) {
      if (this.s[this.pos] !== '"') this.fail('Expecting property name enclosed in double quotes');
      const key = this.string();
      this.ws();
      if (this.s[this.pos] !== ':') this.fail("Expecting ':' delimiter");
      this.pos++;
      this.ws();
      // Duplicate keys: last value wins, first position kept (dict semantics).
      out.set(key, this.value());
      this.ws();
      const c = this.s[this.pos];
      if (c === '}') {
        this.pos++;
        return out;
      }
      if (c !== ',') this.fail("Expecting ',' delimiter");
      this.pos++;
      this.ws();
    }
  }

  array(): JsonValue[] {
    const out: JsonValue[] = [];
    this.pos++;
    this.ws();
    if (this.s[this.pos] === ']') {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.value());
      this.ws();
      const c = this.s[this.pos];
      if (c === ']') {
        this.pos++;
        return out;
      }
      if (c !== ',') this.fail("Expecting ',' delimiter");
      this.pos++;
      this.ws();
    }
  }

  string(): string {
    const s = this.s;
    let i = this.pos + 1;
    let out = '';
    for (;;) {
      if (i >= s.length) {
        this.pos = i;
        this.fail('Unterminated string');
      }
      const ch = s.charCodeAt(i);
      if (ch === 0x22) break;
      if (ch < 0x20) {
        this.pos = i;
        this.fail('Invalid control character');
      }
      if (ch !== 0x5c) {
        out += s[i];
        i++;
        continue;
      }
      const e = s[i + 1];
      const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
      if (e !== undefined && e in simple) {
        out += simple[e];
        i += 2;
        continue;
      }
      if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(s.slice(i + 2, i + 6))) {
        out += String.fromCharCode(parseInt(s.slice(i + 2, i + 6), 16));
        i += 6;
        continue;
      }
      this.pos = i;
      this.fail('Invalid \\escape');
    }
    this.pos = i + 1;
    return out;
  }
}

/** Python `json.loads` on a str. Throws JsonSyntaxError. */
export function parseJson(text: string): JsonValue {
  const r = new JsonReader(text);
  r.ws();
  const v = r.value();
  r.ws();
  if (r.pos !== text.length) r.fail('Extra data');
  return v;
}

export function tryParseJson(text: string): { ok: true; value: JsonValue } | { ok: false } {
  try {
    return { ok: true, value: parseJson(text) };
  } catch (e) {
    if (e instanceof JsonSyntaxError) return { ok: false };
    throw e;
  }
}
