/**
 * A subset of Python's `ast.literal_eval`, enough for what tool parsers feed
 * it: model-written Python reprs such as `{'k': 'v'}`, `['a', 1]`, `True`,
 * `None`, `(1, 2)`, numbers. Anything outside the subset (sets, complex
 * numbers, bytes, expressions) is rejected, which callers treat the same as
 * a Python SyntaxError/ValueError.
 */
import { PyDict, PyFloat, PyValue, isPyDict, makePyDict, makePyFloat, makePyInt, pyJsonDumps } from '../protocol/pyjson';
import { pyFloat, pyInt } from './pyvalue';

/** A number in the value model: int (number or bigint) or float (number or PyFloat). */
type PyNumber = number | bigint | PyFloat;

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

  expr(): PyValue {
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

  atom(): PyValue {
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

  number(): PyNumber {
    const m = /^(?:0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+|(?:\d(?:_?\d)*)?\.?(?:\d(?:_?\d)*)?(?:[eE][+-]?\d(?:_?\d)*)?)/.exec(
      this.s.slice(this.pos),
    );
    const tok = m?.[0] ?? '';
    if (!tok || tok === '.' || /[jJ]/.test(this.s[this.pos + tok.length] ?? '')) throw new LiteralError('bad number');
    this.pos += tok.length;
    if (/^0[xXoObB]/.test(tok)) return makePyInt(BigInt(tok.replace(/_/g, '').toLowerCase()));
    const asInt = pyInt(tok);
    // Python forbids `007`-style decimal literals (but allows `0`, `00`).
    if (asInt !== null) {
      if (/^0+[1-9]/.test(tok.replace(/_/g, ''))) throw new LiteralError('leading zeros');
      return asInt;
    }
    const f = pyFloat(tok);
    if (f === null) throw new LiteralError('bad number');
    return makePyFloat(f);
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

  seq(closer: string): PyValue[] {
    this.pos++;
    const out: PyValue[] = [];
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

  seqAfterFirst(closer: string, first: PyValue): PyValue[] {
    // Called with the cursor on the ',' that follows the first element.
    const out: PyValue[] = [first];
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

  dict(): PyDict {
    this.pos++;
    const entries: Array<[string, PyValue]> = [];
    for (;;) {
      this.skip();
      if (this.s[this.pos] === '}') {
        this.pos++;
        return makePyDict(entries);
      }
      const key = this.atom();
      // json.dumps only accepts str/int/float/bool/None keys and stringifies them.
      if (Array.isArray(key) || isPyDict(key)) throw new LiteralError('unhashable key');
      this.skip();
      if (this.s[this.pos] !== ':') throw new LiteralError('set literal or bad dict');
      this.pos++;
      this.skip();
      entries.push([keyText(key), this.atom()]);
      this.skip();
      if (this.s[this.pos] === ',') this.pos++;
      else if (this.s[this.pos] !== '}') throw new LiteralError('bad dict');
    }
  }
}

/** json.dumps writes a non-str key as its JSON text: `1` -> "1", `1.5` -> "1.5", `True` -> "true". */
function keyText(k: string | boolean | null | PyNumber): string {
  return typeof k === 'string' ? k : pyJsonDumps(k);
}

function negate(v: PyNumber): PyNumber {
  if (v instanceof PyFloat) return new PyFloat(-v.value);
  // Python's int has no -0: `-0` is the int 0 (the float -0.0 is a PyFloat above).
  if (typeof v === 'bigint') return makePyInt(-v);
  return v === 0 ? 0 : -v;
}

/** `ast.literal_eval(text)`; `undefined` when Python would raise. */
export function literalEval(text: string): PyValue | undefined {
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
