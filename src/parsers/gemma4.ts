/**
 * Gemma 4: `<|tool_call>call:NAME{key:value,...}<tool_call|>`, strings
 * delimited by the `<|"|>` token and never escaped inside.
 *
 * Streaming sends the header (id, name) when `{` arrives and the complete
 * arguments as one delta at `<tool_call|>`: the escape-repair decision needs
 * the whole value, and streamed bytes cannot be taken back. A call still open
 * when the stream ends keeps `arguments: ""` rather than invalid JSON.
 */
import { chatcmplToolId } from './emitter';
import { repairSpuriousEscapes } from './gemma4-escapes';
import { PyDict, PyValue, makePyDict, makePyFloat, pyJsonDumps } from '../protocol/pyjson';
import { TextMachine } from './machine';
import { pyFloat, pyInt } from './pyvalue';
import { coerceToSchemaType, extractTypes, findToolProperties, isDict } from './schema';
import { isPrefixOfAny } from './scan';
import type { ParseOptions } from './types';

const CALL_START = '<|tool_call>';
const CALL_END = '<tool_call|>';
/** A stop token that can be left at the end of the text; it is markup, not content. */
const TOOL_RESPONSE = '<|tool_response>';
const QUOTE = '<|"|>';

// `call:NAME` (or the engine-accepted `:NAME`) before the `{`.
const HEADER_RE = /^(?:call)?:([\p{L}\p{N}_\-.]+)$/u;
const HEADER_PREFIXES = ['call:', ':'];
const NAME_CHAR_RE = /^[\p{L}\p{N}_\-.]*$/u;

type State = 'content' | 'header' | 'args';

/** The markers of the format: Gemma 4's, or FunctionGemma's (`<start_function_call>`, `<escape>`). */
export interface Gemma4Syntax {
  start: string;
  end: string;
  quote: string;
  /** Stop tokens that may be left at the end of the text; markup, not content. */
  stops: readonly string[];
  /** Gemma 4's escape repair (a property of Gemma 4 models' output). */
  repairEscapes: boolean;
  /** Keep an integral float (`1.0`) for a `number` parameter a float (vLLM makes it an int). */
  keepFloats?: boolean;
  /** A call whose braces closed is complete at the end of the output even without the end marker. */
  acceptUnclosed?: boolean;
}

export const GEMMA4_SYNTAX: Gemma4Syntax = { start: CALL_START, end: CALL_END, quote: QUOTE, stops: [TOOL_RESPONSE], repairEscapes: true };

export class Gemma4Parser extends TextMachine {
  private state: State = 'content';
  private scanPos = 0;
  private callIndex = -1;
  private callName = '';

  constructor(
    opts: ParseOptions,
    private readonly syntax: Gemma4Syntax = GEMMA4_SYNTAX,
  ) {
    super(opts, 'trim', chatcmplToolId);
  }

  protected step(): boolean {
    switch (this.state) {
      case 'content': {
        const tok = this.scanContent([this.syntax.start, ...this.syntax.stops]);
        if (tok === this.syntax.start) this.state = 'header';
        return tok !== null;
      }
      case 'header':
        return this.header();
      case 'args':
        return this.args();
    }
  }

  private header(): boolean {
    const brace = this.buf.indexOf('{');
    const head = brace >= 0 ? this.buf.slice(0, brace) : this.buf;
    const m = brace >= 0 ? HEADER_RE.exec(head) : null;
    if (m) {
      this.take(brace + 1);
      this.callName = m[1]!;
      this.content.callStart();
      this.callIndex = this.sink.openCall(this.callName);
      this.state = 'args';
      this.scanPos = 0;
      return true;
    }
    if (brace < 0 && !this.eof && viableHeaderPrefix(head)) return false;
    // Not a call after all: the start token is ordinary text.
    this.content.text(this.syntax.start);
    this.state = 'content';
    return true;
  }

  private args(): boolean {
    const { index, next } = this.findFrom(this.syntax.end, this.scanPos);
    this.scanPos = next;
    if (index < 0) {
      // At the end: complete if the braces closed (where the format allows it), else cut off.
      if (this.eof && this.syntax.acceptUnclosed && matchClose('{' + this.buf, 0, this.syntax.quote) === this.buf.length) {
        this.sink.args(this.callIndex, pyJsonDumps(convertArguments(this.take(this.buf.length), this.callName, this.opts, this.syntax)));
      }
      return false;
    }
    const raw = this.take(index);
    this.take(this.syntax.end.length);
    this.sink.args(this.callIndex, pyJsonDumps(convertArguments(raw, this.callName, this.opts, this.syntax)));
    this.state = 'content';
    return true;
  }
}

function viableHeaderPrefix(head: string): boolean {
  if (isPrefixOfAny(head, HEADER_PREFIXES)) return true;
  const rest = head.startsWith('call:') ? head.slice(5) : head.startsWith(':') ? head.slice(1) : null;
  return rest !== null && NAME_CHAR_RE.test(rest);
}

// ---------------------------------------------------------------------------
// Argument DSL
// ---------------------------------------------------------------------------

type Node =
  | { kind: 'str'; raw: string; quoted: boolean }
  | { kind: 'obj'; entries: Map<string, Node> }
  | { kind: 'arr'; items: Node[] };

/** Index of the bracket closing the one at `open`, skipping `<|"|>` spans; -1 if none. */
function matchClose(s: string, open: number, q: string): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    if (s.startsWith(q, i)) {
      const end = s.indexOf(q, i + q.length);
      if (end < 0) return -1;
      i = end + q.length - 1;
      continue;
    }
    const c = s[i];
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

function skipWs(s: string, i: number): number {
  while (i < s.length && /\s/u.test(s[i]!)) i++;
  return i;
}

function parseValue(s: string, start: number, q: string): [Node, number] {
  const i = skipWs(s, start);
  if (s.startsWith(q, i)) {
    const end = s.indexOf(q, i + q.length);
    // An unterminated string runs to the end of the arguments.
    if (end < 0) return [{ kind: 'str', raw: s.slice(i + q.length), quoted: true }, s.length];
    return [{ kind: 'str', raw: s.slice(i + q.length, end), quoted: true }, end + q.length];
  }
  const c = s[i];
  if (c === '{' || c === '[') {
    const close = matchClose(s, i, q);
    const inner = close < 0 ? s.slice(i + 1) : s.slice(i + 1, close);
    const next = close < 0 ? s.length : close + 1;
    return c === '{' ? [{ kind: 'obj', entries: parseObjectBody(inner, q) }, next] : [{ kind: 'arr', items: parseArrayBody(inner, q) }, next];
  }
  let j = i;
  while (j < s.length && s[j] !== ',' && s[j] !== '}' && s[j] !== ']') j++;
  return [{ kind: 'str', raw: s.slice(i, j).trim(), quoted: false }, j];
}

function parseObjectBody(s: string, q: string): Map<string, Node> {
  const out = new Map<string, Node>();
  let i = 0;
  for (;;) {
    while (i < s.length && (s[i] === ',' || /\s/u.test(s[i]!))) i++;
    if (i >= s.length) return out;
    let key: string;
    if (s.startsWith(q, i)) {
      const end = s.indexOf(q, i + q.length);
      if (end < 0) return out;
      key = s.slice(i + q.length, end);
      const colon = s.indexOf(':', end + q.length);
      if (colon < 0) return out;
      i = colon + 1;
    } else {
      const colon = s.indexOf(':', i);
      if (colon < 0) return out;
      key = s.slice(i, colon).trim();
      i = colon + 1;
    }
    const [value, next] = parseValue(s, i, q);
    out.set(key, value);
    i = next;
  }
}

function parseArrayBody(s: string, q: string): Node[] {
  const out: Node[] = [];
  let i = 0;
  for (;;) {
    while (i < s.length && (s[i] === ',' || /\s/u.test(s[i]!))) i++;
    if (i >= s.length) return out;
    const [value, next] = parseValue(s, i, q);
    out.push(value);
    i = next === i ? i + 1 : next;
  }
}

/**
 * Typing of a bare value when no schema describes it (vLLM's pre-engine
 * parser): booleans, null spellings, floats when there is a `.`, ints.
 */
function literalType(raw: string): PyValue {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (['null', 'none', 'nil'].includes(raw.toLowerCase())) return null;
  if (raw.includes('.')) {
    const f = pyFloat(raw);
    return f === null ? raw : makePyFloat(f);
  }
  const i = pyInt(raw);
  return i === null ? raw : i;
}

function convertNode(node: Node, schema: unknown, key: string, tool: string, syntax: Gemma4Syntax): PyValue {
  switch (node.kind) {
    case 'str': {
      const text = node.quoted && syntax.repairEscapes ? repairSpuriousEscapes(node.raw, key, tool) : node.raw;
      if (schema !== undefined) return coerceToSchemaType(text, extractTypes(schema), { keepFloats: syntax.keepFloats });
      return node.quoted ? text : literalType(text);
    }
    case 'obj': {
      const props = isDict(schema) && isDict(schema.properties) ? schema.properties : undefined;
      return makePyDict([...node.entries].map(([k, v]) => [k, convertNode(v, props?.[k], k, tool, syntax)] as const));
    }
    case 'arr': {
      const items = isDict(schema) ? schema.items : undefined;
      return node.items.map((item) => convertNode(item, items, key, tool, syntax));
    }
  }
}

/** Text between `{` and `<tool_call|>` -> the arguments object. */
export function convertArguments(raw: string, tool: string, opts: ParseOptions, syntax: Gemma4Syntax = GEMMA4_SYNTAX): PyDict {
  let body = raw.trim();
  if (body.endsWith('}')) body = body.slice(0, -1);
  const props = findToolProperties(opts.tools, tool);
  const entries: Array<[string, PyValue]> = [];
  for (const [k, v] of parseObjectBody(body, syntax.quote)) {
    if (k === '') continue;
    entries.push([k, convertNode(v, props?.[k], k, tool, syntax)]);
  }
  return makePyDict(entries);
}
