/**
 * Qwen3-Coder / Qwen3.5 XML tool calls:
 *
 *   <tool_call>
 *   <function=NAME>
 *   <parameter=K>
 *   VALUE
 *   </parameter>
 *   </function>
 *   </tool_call>
 *
 * Values are raw text typed by the tool schema. A `</parameter>` only ends a
 * value when what follows is structural (another parameter, `</function>`,
 * `</tool_call>` or the end of output), so code that contains the literal
 * tag survives. Streaming sends the header at `<function=NAME>` and one
 * JSON fragment per finished parameter.
 */
import { callHexId } from './emitter';
import { PyValue, makePyFloat, pyJsonDumps } from '../protocol/pyjson';
import { TextMachine } from './machine';
import { literalEval } from './pyliteral';
import { intIfWhole, pyFloat, pyInt, tryLoads } from './pyvalue';
import { findToolProperties, isDict } from './schema';
import { findFirst, firstNonWs, isPrefixOfAny, partialSuffixLen } from './scan';
import type { ParseOptions } from './types';

/** The wrapper tags: Qwen3's, or Seed-OSS's `<seed:tool_call>`. */
export interface XmlWrapper {
  open: string;
  close: string;
}
const QWEN_WRAPPER: XmlWrapper = { open: '<tool_call>', close: '</tool_call>' };
const FUNCTION = '<function=';
const FUNCTION_END = '</function>';
const PARAM = '<parameter=';
const PARAM_END = '</parameter>';

const BAD_NAME_CHARS = /[{}<>"'\s]/;

type State = 'content' | 'open' | 'name' | 'body' | 'value' | 'after';

interface OpenCall {
  index: number;
  props: Record<string, unknown>;
  name: string;
  emitted: Set<string>;
}

export class Qwen3CoderParser extends TextMachine {
  private state: State = 'content';
  /** Markup consumed for a block that may still turn out to be plain text. */
  private pendingRaw = '';
  private call: OpenCall | null = null;
  private paramName = '';
  private scanPos = 0;

  private readonly wrapOpen: string;
  private readonly wrapClose: string;

  constructor(opts: ParseOptions, wrapper: XmlWrapper = QWEN_WRAPPER) {
    super(opts, 'verbatim', callHexId);
    this.wrapOpen = wrapper.open;
    this.wrapClose = wrapper.close;
  }

  protected step(): boolean {
    switch (this.state) {
      case 'content': {
        const tok = this.scanContent([this.wrapOpen, FUNCTION]);
        if (tok === null) return false;
        this.pendingRaw = tok;
        this.state = tok === this.wrapOpen ? 'open' : 'name';
        return true;
      }
      case 'open':
        return this.afterToolCall();
      case 'name':
        return this.functionName();
      case 'body':
        return this.body();
      case 'value':
        return this.value();
      case 'after':
        return this.afterFunction();
    }
  }

  /** Not a call after all: give back the consumed markup as text. */
  private abandon(): boolean {
    this.content.text(this.pendingRaw);
    this.pendingRaw = '';
    this.state = 'content';
    return true;
  }

  private afterToolCall(): boolean {
    const i = firstNonWs(this.buf);
    if (i < 0) {
      if (!this.eof) return false;
      this.pendingRaw += this.take(this.buf.length);
      return this.abandon();
    }
    const rest = this.buf.slice(i);
    if (rest.startsWith(FUNCTION)) {
      this.pendingRaw += this.take(i + FUNCTION.length);
      this.state = 'name';
      return true;
    }
    if (!this.eof && isPrefixOfAny(rest, [FUNCTION])) return false;
    return this.abandon();
  }

  private functionName(): boolean {
    const gt = this.buf.indexOf('>');
    const name = gt < 0 ? this.buf : this.buf.slice(0, gt);
    if (BAD_NAME_CHARS.test(name) || (gt >= 0 && name === '')) return this.abandon();
    if (gt < 0) return this.eof ? this.abandon() : false;
    this.take(gt + 1);
    this.pendingRaw = '';
    this.content.callStart();
    this.call = {
      index: this.sink.openCall(name),
      props: findToolProperties(this.opts.tools, name) ?? {},
      name,
      emitted: new Set(),
    };
    this.state = 'body';
    return true;
  }

  /** Between parameters: find the next parameter or the end of the function. */
  private body(): boolean {
    const tokens = [PARAM, FUNCTION_END, this.wrapClose];
    const hit = findFirst(this.buf, tokens);
    if (!hit) {
      this.take(this.buf.length - (this.eof ? 0 : partialSuffixLen(this.buf, tokens)));
      return false;
    }
    if (hit.token === PARAM) {
      const gt = this.buf.indexOf('>', hit.index);
      if (gt < 0) {
        if (this.eof) this.take(this.buf.length);
        return false;
      }
      this.paramName = this.buf.slice(hit.index + PARAM.length, gt);
      this.take(gt + 1);
      this.state = 'value';
      this.scanPos = 0;
      return true;
    }
    this.take(hit.index + hit.token.length);
    this.closeCall(false);
    this.state = hit.token === FUNCTION_END ? 'after' : 'content';
    return true;
  }

  /**
   * Is the text at `pos` followed (after whitespace) by one of `next`?
   * 'yes' / 'no', or 'wait' when more text could still decide it.
   */
  private followedBy(pos: number, next: readonly string[], orEnd: boolean): 'yes' | 'no' | 'wait' {
    const i = firstNonWs(this.buf, pos);
    if (i < 0) return this.eof ? (orEnd ? 'yes' : 'no') : 'wait';
    const rest = this.buf.slice(i);
    if (next.some((t) => rest.startsWith(t))) return 'yes';
    if (!this.eof && isPrefixOfAny(rest, next)) return 'wait';
    return 'no';
  }

  private value(): boolean {
    for (;;) {
      const hit = findFirst(this.buf, [PARAM_END, PARAM, FUNCTION_END], this.scanPos);
      if (!hit) {
        // Only a partial tag at the very end can still matter.
        this.scanPos = Math.max(this.scanPos, this.buf.length - PARAM_END.length);
        return false; // at eof the cut-off value is dropped
      }
      let verdict: 'yes' | 'no' | 'wait';
      if (hit.token === PARAM_END) {
        verdict = this.followedBy(hit.index + PARAM_END.length, [PARAM, FUNCTION_END, this.wrapClose], true);
      } else if (hit.token === PARAM) {
        // A missing `</parameter>`: a parameter tag at the start of a line
        // ends the value implicitly.
        verdict = hit.index === 0 || this.buf[hit.index - 1] === '\n' ? 'yes' : 'no';
      } else {
        verdict = this.followedBy(hit.index + FUNCTION_END.length, [this.wrapClose], true);
      }
      if (verdict === 'wait') {
        this.scanPos = hit.index;
        return false;
      }
      if (verdict === 'no') {
        this.scanPos = hit.index + 1;
        continue;
      }
      let raw = this.take(hit.index);
      if (hit.token === PARAM_END) this.take(PARAM_END.length);
      if (raw.startsWith('\n')) raw = raw.slice(1);
      if (raw.endsWith('\n')) raw = raw.slice(0, -1);
      this.emitParam(this.paramName, convertParamValue(raw, this.paramName, this.call!.props));
      this.state = 'body';
      return true;
    }
  }

  private afterFunction(): boolean {
    const v = this.followedBy(0, [this.wrapClose], false);
    if (v === 'wait') return false;
    if (v === 'yes') this.take(this.buf.indexOf(this.wrapClose) + this.wrapClose.length);
    this.state = 'content';
    return true;
  }

  private emitParam(name: string, value: PyValue): void {
    const call = this.call!;
    // Bytes already streamed cannot be replaced, so a repeated key keeps its first value.
    if (call.emitted.has(name)) return;
    const prefix = call.emitted.size === 0 ? '{' : ', ';
    call.emitted.add(name);
    this.sink.args(call.index, `${prefix}${pyJsonDumps(name)}: ${pyJsonDumps(value)}`);
  }

  private closeCall(cutOff: boolean): void {
    const call = this.call!;
    if (call.emitted.size > 0) this.sink.args(call.index, '}');
    else if (!cutOff) this.sink.args(call.index, '{}');
    this.call = null;
  }

  protected override finishOpenCall(): void {
    if (this.call) this.closeCall(true);
    else if (this.state === 'open' || this.state === 'name') this.abandon();
  }
}

/** Python's `str()` of a schema `type` value, as vLLM compares it. */
function pyStr(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map((x) => (typeof x === 'string' ? `'${x}'` : String(x))).join(', ')}]`;
  return String(v);
}

const STRING_TYPES = ['string', 'str', 'text', 'varchar', 'char', 'enum'];

/** vLLM's Qwen3-Coder value conversion, driven by `properties[name]`. */
export function convertParamValue(value: string, name: string, props: Record<string, unknown>): PyValue {
  if (!(name in props)) return value;
  const schema = props[name];
  let type = 'string';
  let allowsNull = false;
  if (isDict(schema) && 'type' in schema) {
    type = pyStr(schema.type).trim().toLowerCase();
    allowsNull = type === 'null';
  } else if (isDict(schema) && 'anyOf' in schema) {
    let picked = false;
    for (const option of Array.isArray(schema.anyOf) ? schema.anyOf : []) {
      if (!isDict(option) || !('type' in option)) continue;
      const t = pyStr(option.type).trim().toLowerCase();
      if (t === 'null') allowsNull = true;
      else if (!picked) {
        type = t;
        picked = true;
      }
    }
  }
  const lower = value.toLowerCase();
  if (allowsNull && (lower === 'null' || lower === 'none')) return null;
  if (STRING_TYPES.includes(type)) return value;
  if (lower === 'null' || lower === 'none') return null;
  if (['int', 'uint', 'long', 'short', 'unsigned'].some((p) => type.startsWith(p))) {
    const i = pyInt(value);
    return i === null ? value : i;
  }
  if (type.startsWith('num') || type.startsWith('float')) {
    const f = pyFloat(value);
    // Non-finite values cannot become ints; keep the text.
    if (f === null || !Number.isFinite(f)) return value;
    // vLLM turns an integral float (`2.0`) into an int; the model's float is kept.
    if (Number.isInteger(f) && /[.eE]/.test(value)) return makePyFloat(f);
    return intIfWhole(f);
  }
  if (['boolean', 'bool', 'binary'].includes(type)) return lower === 'true';
  const container = ['object', 'array', 'arr'].includes(type) || type.startsWith('dict') || type.startsWith('list');
  if (container) {
    const decoded = tryLoads(value);
    if (decoded !== undefined) {
      // A JSON-quoted Python repr ("{'k': 'v'}") gets one more decode.
      if (typeof decoded === 'string') return literalEval(decoded) ?? decoded;
      return decoded;
    }
  }
  const lit = literalEval(value);
  if (lit === undefined) return value;
  if (container && typeof lit === 'string') return literalEval(lit) ?? lit;
  return lit;
}
