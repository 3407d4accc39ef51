/**
 * A subset of Python's `ast.literal_eval`, enough for what tool parsers feed
 * it: model-written Python reprs such as `{'k': 'v'}`, `['a', 1]`, `True`,
 * `None`, `(1, 2)`, numbers. Anything outside the subset (sets, complex
 * numbers, bytes, expressions) is rejected, which callers treat the same as
 * a Python SyntaxError/ValueError.
 */
import { JsonNumber, JsonObject, JsonValue, floatNumber, intNumber, pyFloat, pyIntText } from './json';

class LiteralError extends Error {}

const SIMPLE_ESCAPES: Record<string, string> = {
  '\\': '\\', "'": "'", '"': '"', n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', f: '\f', v: '\v', '\n': '',
};

class PyReader {
  pos = 0;
  constructor(private readonly s: string) {}

  /** Whitespace, newlines and comments between tokens. */
  skip(): void {
    const s = this.s;
    for (;;) {
      const c = s[this.pos];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f') this.pos++;
      else if (c === '#') {
        while (this.pos < s.length && s[this.pos] !== '\n') this.pos++;
      } else if (c === '\\' && s[this.pos + 1] === '\n') this.pos += 2;
      else return;
    }
  }

  expr(): JsonValue {
    this.skip();
    const first = this.atom();
    this.skip();
    // A bare top-level `1, 2` is a tuple.
    if (this.s[this.pos] !== ',') return first;
    const items = [first];
    while (this.s[this.pos] === ',') {
      this.pos++;
      this.skip();
      if (this.pos >= this.s.length) break;
      items.push(this.atom());
      this.skip();
    }
    return items;
  }

  atom(): JsonValue {
    const s = this.s;
    const c = s[this.pos];
    if (c === '[') return this.seq(']');
    if (c === '(') {
      this.pos++;
      this.skip();
      if (s[this.pos] === ')') {
        this.pos++;
        return [];
      }
      const v = this.atom();
      this.skip();
      if (s[this.pos] === ')') {
        this.pos++;
        return v; // parenthesised value, not a tuple
      }
      if (s[this.pos] !== ',') throw new LiteralError('bad tuple');
      return this.seqAfterFirst(')', v);
    }
    if (c === '{') return this.dict();
    if (c === "'" || c === '"') return this.str(false);
    if ((c === 'r' || c === 'R' || c === 'u' || c === 'U') && (s[this.pos + 1] === "'" || s[this.pos + 1] === '"')) {
      const raw = c === 'r' || c === 'R';
      this.pos++;
      return this.str(raw);
    }
    for (const [word, val] of [['True', true], ['False', false], ['None', null]] as const) {
      if (s.startsWith(word, this.pos) && !/[\w]/.test(s[this.pos + word.length] ?? '')) {
        this.pos += word.length;
        return val;
      }
    }
    if (c === '-' || c === '+') {
      this.pos++;
      this.skip();
      const v = this.number();
      return c === '-' ? negate(v) : v;
    }
    return this.number();
  }

  number(): JsonNumber {
    const m = /^(?:0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+|(?:\d(?:_?\d)*)?\.?(?:\d(?:_?\d)*)?(?:[eE][+-]?\d(?:_?\d)*)?)/.exec(
      this.s.slice(this.pos),
    );
    const tok = m?.[0] ?? '';
    if (!tok || tok === '.' || /[jJ]/.test(this.s[this.pos + tok.length] ?? '')) throw new LiteralError('bad number');
    this.pos += tok.length;
    if (/^0[xXoObB]/.test(tok)) return intNumber(BigInt(tok.replace(/_/g, '').toLowerCase()).toString());
    const asInt = pyIntText(tok);
    // Python forbids `007`-style decimal literals (but allows `0`, `00`).
    if (asInt !== null) {
      if (/^0+[1-9]/.test(tok.replace(/_/g, ''))) throw new LiteralError('leading zeros');
      return intNumber(asInt);
    }
    const f = pyFloat(tok);
    if (f === null) throw new LiteralError('bad number');
    return floatNumber(f);
  }

  str(raw: boolean): string {
    const s = this.s;
    const q = s[this.pos]!;
    const triple = s.startsWith(q.repeat(3), this.pos);
    const close = triple ? q.repeat(3) : q;
    this.pos += close.length;
    let out = '';
    for (;;) {
      if (this.pos >= s.length) throw new LiteralError('unterminated string');
      if (s.startsWith(close, this.pos)) {
        this.pos += close.length;
        break;
      }
      const c = s[this.pos]!;
      if (c === '\n' && !triple) throw new LiteralError('newline in string');
      if (c !== '\\') {
        out += c;
        this.pos++;
        continue;
      }
      const e = s[this.pos + 1] ?? '';
      if (raw) {
        out += c + e;
        this.pos += 2;
        continue;
      }
      if (e in SIMPLE_ESCAPES) {
        out += SIMPLE_ESCAPES[e];
        this.pos += 2;
      } else if (/[0-7]/.test(e)) {
        const oct = /^[0-7]{1,3}/.exec(s.slice(this.pos + 1))![0];
        out += String.fromCodePoint(parseInt(oct, 8));
        this.pos += 1 + oct.length;
      } else if (e === 'x' || e === 'u' || e === 'U') {
        const n = e === 'x' ? 2 : e === 'u' ? 4 : 8;
        const hex = s.slice(this.pos + 2, this.pos + 2 + n);
        if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(hex)) throw new LiteralError('bad escape');
        const cp = parseInt(hex, 16);
        if (cp > 0x10ffff) throw new LiteralError('bad escape');
        out += String.fromCodePoint(cp);
        this.pos += 2 + n;
      } else {
        // Unknown escapes keep their backslash in Python.
        out += c;
        this.pos++;
      }
    }
    // Adjacent literals concatenate: 'a' 'b' == 'ab'.
    const save = this.pos;
    this.skip();
    const n = s[this.pos];
    if (n === "'" || n === '"') return out + this.str(false);
    this.pos = save;
    return out;
  }

  seq(closer: string): JsonValue[] {
    this.pos++;
    const out: JsonValue[] = [];
    for (;;) {
      this.skip();
      if (this.s[this.pos] === closer) {
        this.pos++;
        return out;
      }
      out.push(this.atom());
      this.skip();
      if (this.s[this.pos] === ',') this.pos++;
      else if (this.s[this.pos] !== closer) throw new LiteralError('bad sequence');
    }
  }

  seqAfterFirst(closer: string, first: JsonValue): JsonValue[] {
    // Called with the cursor on the ',' that follows the first element.
    const out: JsonValue[] = [first];
    for (;;) {
      this.skip();
      if (this.s[this.pos] === ',') {
        this.pos++;
        continue;
      }
      if (this.s[this.pos] === closer) {
        this.pos++;
        return out;
      }
      out.push(this.atom());
      this.skip();
      if (this.s[this.pos] !== ',' && this.s[this.pos] !== closer) throw new LiteralError('bad tuple');
    }
  }

  dict(): JsonObject {
    this.pos++;
    const out: JsonObject = new Map();
    for (;;) {
      this.skip();
      if (this.s[this.pos] === '}') {
        this.pos++;
        return out;
      }
      const key = this.atom();
      // json.dumps only accepts str/int/float/bool/None keys and stringifies them.
      if (key !== null && (Array.isArray(key) || key instanceof Map)) throw new LiteralError('unhashable key');
      this.skip();
      if (this.s[this.pos] !== ':') throw new LiteralError('set literal or bad dict');
      this.pos++;
      this.skip();
      out.set(keyText(key), this.atom());
      this.skip();
      if (this.s[this.pos] === ',') this.pos++;
      else if (this.s[this.pos] !== '}') throw new LiteralError('bad dict');
    }
  }
}

function keyText(k: string | boolean | null | JsonNumber): string {
  if (typeof k === 'string') return k;
  if (k === null) return 'null';
  if (typeof k === 'boolean') return k ? 'true' : 'false';
  return k.text;
}

function negate(v: JsonNumber): JsonNumber {
  if (v.text.startsWith('-')) return new JsonNumber(v.text.slice(1));
  if (v.text === '0') return v;
  return new JsonNumber(`-${v.text}`);
}

/** `ast.literal_eval(text)`; `undefined` when Python would raise. */
export function literalEval(text: string): JsonValue | undefined {
  // literal_eval strips leading spaces and tabs before parsing.
  const src = text.replace(/^[ \t]+/, '');
  try {
    const r = new PyReader(src);
    const v = r.expr();
    r.skip();
    if (r.pos !== src.length) return undefined;
    return v;
  } catch (e) {
    if (e instanceof LiteralError || e instanceof RangeError || e instanceof SyntaxError) return undefined;
    throw e;
  }
}
