/**
 * Shared machinery for the formats whose calls are JSON written by the
 * model: a start marker (or none) followed by a JSON object or a list of
 * objects `{"name": N, "arguments"|"parameters": {...}}`.
 *
 * A body is held until its brackets balance (strings are respected), then
 * decoded with Python `json.loads` semantics. Only a body that decodes into
 * call-shaped objects becomes calls; anything else — including a body cut
 * off by the end of the output — is given back as content, as written.
 * Arguments are serialized as Python's `json.dumps(..., ensure_ascii=False)`.
 */
import { PyValue, isPyDict, makePyDict, pyJsonDumps } from '../protocol/pyjson';
import { TextMachine } from './machine';
import { literalEval } from './pyliteral';
import { tryLoads } from './pyvalue';
import { findFirst, firstNonWs, isPrefixOfAny, partialSuffixLen } from './scan';
import type { ParseOptions } from './types';

/** End (exclusive) of the bracketed JSON value starting at `buf[start]`; -1 while incomplete. */
export function balancedEnd(buf: string, start: number, quotes = '"'): number {
  let depth = 0;
  let quote = '';
  for (let i = start; i < buf.length; i++) {
    const c = buf[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
      continue;
    }
    if (quotes.includes(c)) quote = c;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

export interface JsonCall {
  name: string;
  args: string;
}

function hasOwn(d: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(d, key);
}

/**
 * `{"name", "arguments"|"parameters"}` -> a call. Arguments a model wrote as
 * a JSON string holding an object are decoded (not double-encoded); missing
 * arguments are `{}`.
 */
export function callFromObject(v: PyValue, argKeys: readonly string[] = ['arguments', 'parameters']): JsonCall | null {
  if (!isPyDict(v) || !hasOwn(v, 'name') || typeof v.name !== 'string') return null;
  let args: PyValue = makePyDict([]);
  for (const k of argKeys) {
    if (hasOwn(v, k)) {
      args = v[k]!;
      break;
    }
  }
  if (typeof args === 'string') {
    const inner = tryLoads(args);
    if (isPyDict(inner)) args = inner;
  }
  return { name: v.name, args: pyJsonDumps(args) };
}

/** A decoded body -> calls, or null when it is not (entirely) calls. */
export function callsFromValue(v: PyValue, argKeys?: readonly string[]): JsonCall[] | null {
  const items = Array.isArray(v) ? v : [v];
  if (!items.length) return null;
  const calls: JsonCall[] = [];
  for (const item of items) {
    const c = callFromObject(item, argKeys);
    if (!c) return null;
    calls.push(c);
  }
  return calls;
}

export interface JsonCallsFormat {
  /** Markers that introduce a body; the empty list means none. */
  starts: readonly string[];
  /** Markup that may close a body (consumed when it follows). */
  ends?: readonly string[];
  /** Any `{` in the text may begin a call object (Llama 3 JSON). */
  bareObjects?: boolean;
  /** A `[` that begins the output (after whitespace) may begin a call list. */
  bareListAtStart?: boolean;
  /** Text allowed between two calls without being content (besides whitespace). */
  separator?: RegExp;
  /** Keys holding the arguments, in order of preference. */
  argKeys?: readonly string[];
  /** Markers dropped when a call follows them (e.g. `<|python_tag|>`); otherwise content. */
  prefixes?: readonly string[];
  /** Parse the body after a marker with a format-specific reader (e.g. Mistral `name{...}`). */
  readBody?: (buf: string, eof: boolean) => { consumed: number; calls: JsonCall[] | null } | 'more';
  /** A body that is not JSON may be a Python literal (`{'k': True}`), as templates that print dicts write it. */
  pythonLiteral?: boolean;
}

type State = 'content' | 'body' | 'end';

export class JsonCallsParser extends TextMachine {
  private state: State = 'content';
  private pendingRaw = '';
  private emittedText = false;
  private heldSep = '';
  private heldPrefix = '';
  /** Whether content was emitted since the last call (separators are only held right after one). */
  private emittedSinceCall = false;
  private bareTried = false;

  constructor(
    opts: ParseOptions,
    private readonly f: JsonCallsFormat,
    defaultId: () => string,
  ) {
    super(opts, 'verbatim', defaultId);
  }

  private get startTokens(): string[] {
    const t = [...this.f.starts, ...(this.f.prefixes ?? [])];
    if (this.f.bareObjects) t.push('{');
    return t;
  }

  /** Content text, with separators between calls and marker prefixes held until decided. */
  private text(s: string): void {
    if (!s) return;
    if (this.heldPrefix) {
      s = this.heldPrefix + s;
      this.heldPrefix = '';
    }
    if (this.sink.callCount > 0 && this.f.separator && !this.emittedSinceCall) {
      const all = this.heldSep + s;
      if (this.f.separator.test(all)) {
        this.heldSep = all;
        return;
      }
      s = all;
      this.heldSep = '';
    }
    this.emittedSinceCall = true;
    if (firstNonWs(s) >= 0) this.emittedText = true;
    this.content.text(s);
  }


  protected step(): boolean {
    switch (this.state) {
      case 'content':
        return this.scan();
      case 'body':
        return this.body();
      case 'end':
        return this.endMarker();
    }
  }

  private scan(): boolean {
    if (this.f.bareListAtStart && !this.bareTried && !this.emittedText && this.sink.callCount === 0) {
      const i = firstNonWs(this.buf);
      if (i < 0 && !this.eof) return false;
      if (i >= 0 && this.buf[i] === '[') {
        // Tried once: if the list is not calls, it is scanned as text.
        this.bareTried = true;
        this.pendingRaw = this.take(i);
        this.state = 'body';
        return true;
      }
    }
    const hit = findFirst(this.buf, this.startTokens);
    if (!hit) {
      const keep = this.eof ? 0 : partialSuffixLen(this.buf, this.startTokens);
      this.text(this.take(this.buf.length - keep));
      return false;
    }
    // A token that may still grow into a longer one (``` vs ```json) waits for more text.
    if (!this.eof && isPrefixOfAny(this.buf.slice(hit.index), this.startTokens)) {
      this.text(this.take(hit.index));
      return false;
    }
    this.text(this.take(hit.index));
    if (this.f.prefixes?.includes(hit.token)) {
      this.take(hit.token.length);
      this.heldPrefix += hit.token;
      return true;
    }
    // A bare `{` stays in the buffer: it is the body's first character.
    this.pendingRaw = hit.token === '{' ? '' : this.take(hit.token.length);
    this.state = 'body';
    return true;
  }

  private abandon(): boolean {
    const raw = this.pendingRaw;
    this.pendingRaw = '';
    this.state = 'content';
    if (raw === '' && this.buf.startsWith('{')) {
      // A bare `{` that is not a call: it is text; look for the next one after it.
      this.text(this.take(1));
      return true;
    }
    this.text(raw);
    return true;
  }

  private body(): boolean {
    if (this.f.readBody) {
      const r = this.f.readBody(this.buf, this.eof);
      if (r === 'more') return false;
      if (!r.calls) return this.abandon();
      this.pendingRaw = '';
      this.take(r.consumed);
      this.emitCalls(r.calls);
      return true;
    }
    const i = firstNonWs(this.buf);
    if (i < 0) {
      if (!this.eof) return false;
      this.pendingRaw += this.take(this.buf.length);
      return this.abandon();
    }
    const open = this.buf[i];
    if (open !== '[' && open !== '{') return this.abandon();
    const end = balancedEnd(this.buf, i, this.f.pythonLiteral ? '"\'' : '"');
    if (end < 0) {
      if (!this.eof) return false;
      this.pendingRaw += this.take(this.buf.length);
      return this.abandon();
    }
    const bodyText = this.buf.slice(i, end);
    let value = tryLoads(bodyText);
    if (value === undefined && this.f.pythonLiteral) value = literalEval(bodyText);
    const calls = value === undefined ? null : callsFromValue(value, this.f.argKeys);
    if (!calls) {
      // Not JSON: only the opening bracket is settled as text (a bare `{` may
      // be prose). JSON that is not a call: the whole value is text.
      if (this.pendingRaw === '' && value === undefined) return this.abandon();
      this.pendingRaw += this.take(end);
      return this.abandon();
    }
    this.take(end);
    this.pendingRaw = '';
    this.emitCalls(calls);
    return true;
  }

  private emitCalls(calls: JsonCall[]): void {
    this.heldPrefix = '';
    this.heldSep = '';
    for (const c of calls) {
      this.content.callStart();
      const index = this.sink.openCall(c.name);
      this.sink.args(index, c.args);
    }
    this.emittedSinceCall = false;
    this.state = this.f.ends?.length ? 'end' : 'content';
  }

  private endMarker(): boolean {
    const ends = this.f.ends ?? [];
    const i = firstNonWs(this.buf);
    const rest = i < 0 ? '' : this.buf.slice(i);
    for (const e of ends) {
      if (rest.startsWith(e)) {
        this.take(i + e.length);
        this.state = 'content';
        return true;
      }
    }
    if (!this.eof && (i < 0 || isPrefixOfAny(rest, ends))) return false;
    this.state = 'content';
    return true;
  }

  protected override finishOpenCall(): void {
    if (this.heldPrefix) {
      const p = this.heldPrefix;
      this.heldPrefix = '';
      this.content.text(p);
    }
    if (this.heldSep) {
      const s = this.heldSep;
      this.heldSep = '';
      this.content.text(s);
    }
  }
}
