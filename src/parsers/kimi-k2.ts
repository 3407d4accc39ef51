/**
 * Kimi K2 (`kimi_k2`):
 *
 *   <|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:N<|tool_call_argument_begin|>{JSON}<|tool_call_end|>...<|tool_calls_section_end|>
 *
 * The call id is the model's own `functions.NAME:N` (the template renders
 * it back), as vLLM does. Arguments are JSON, typed by the schema where a
 * string value is written for a non-string parameter.
 *
 * Deliberate differences: arguments that are not a JSON object (malformed,
 * or cut off) give a call without arguments rather than invalid JSON; `1.0`
 * stays a float; text after the section is content (vLLM drops it).
 */
import { isPyDict, pyJsonDumps } from '../protocol/pyjson';
import { chatcmplToolId } from './emitter';
import { TextMachine } from './machine';
import { tryLoads } from './pyvalue';
import { findToolProperties, typeJsonArgs } from './schema';
import { firstNonWs, isPrefixOfAny } from './scan';
import type { ParseOptions } from './types';

const SECTION = '<|tool_calls_section_begin|>';
const SECTION_END = '<|tool_calls_section_end|>';
const CALL = '<|tool_call_begin|>';
const ARGS = '<|tool_call_argument_begin|>';
const CALL_END = '<|tool_call_end|>';
const ID_RE = /^(functions\.)?([^\s:]+)(:\d+)?$/;

type State = 'content' | 'section' | 'header' | 'args';

export class KimiK2Parser extends TextMachine {
  private state: State = 'content';
  private pendingRaw = '';
  private index = -1;
  private name = '';
  private scanPos = 0;

  constructor(opts: ParseOptions) {
    super(opts, 'verbatim', chatcmplToolId);
  }

  protected step(): boolean {
    switch (this.state) {
      case 'content':
        if (this.scanContent([SECTION]) === null) return false;
        this.state = 'section';
        this.pendingRaw = SECTION;
        return true;
      case 'section':
        return this.section();
      case 'header':
        return this.header();
      case 'args':
        return this.args();
    }
  }

  /** Between calls inside the section: the next call, the section's end, or (not markup) content again. */
  private section(): boolean {
    const i = firstNonWs(this.buf);
    const rest = i < 0 ? '' : this.buf.slice(i);
    if (rest.startsWith(CALL)) {
      this.take(i + CALL.length);
      this.state = 'header';
      this.scanPos = 0;
      return true;
    }
    if (rest.startsWith(SECTION_END)) {
      this.take(i + SECTION_END.length);
      this.pendingRaw = '';
      this.state = 'content';
      return true;
    }
    if (!this.eof && (i < 0 || isPrefixOfAny(rest, [CALL, SECTION_END]))) return false;
    // An empty or unclosed section: its markup is not content.
    if (this.sink.callCount === 0 && this.pendingRaw) this.content.text(this.pendingRaw);
    this.pendingRaw = '';
    this.state = 'content';
    return true;
  }

  private header(): boolean {
    const { index, next } = this.findFrom(ARGS, this.scanPos);
    this.scanPos = next;
    if (index < 0) {
      if (!this.eof) return false;
      this.openFrom(this.take(this.buf.length));
      return false;
    }
    this.openFrom(this.take(index));
    this.take(ARGS.length);
    this.state = 'args';
    this.scanPos = 0;
    return true;
  }

  private openFrom(header: string): void {
    const h = header.trim();
    const m = ID_RE.exec(h);
    this.name = m ? m[2]! : h;
    this.pendingRaw = '';
    this.content.callStart();
    this.index = this.sink.openCall(this.name, m ? h : undefined);
  }

  private args(): boolean {
    const end = this.findFrom(CALL_END, this.scanPos);
    const sectionEnd = this.buf.indexOf(SECTION_END);
    let index = end.index;
    let token = CALL_END;
    if (sectionEnd >= 0 && (index < 0 || sectionEnd < index)) {
      index = sectionEnd;
      token = SECTION_END;
    }
    this.scanPos = end.next;
    if (index < 0) return false; // cut off: the call keeps no arguments
    const raw = this.take(index).trim() || '{}';
    this.take(token.length);
    const v = tryLoads(raw);
    if (isPyDict(v)) this.sink.args(this.index, pyJsonDumps(typeJsonArgs(v, findToolProperties(this.opts.tools, this.name))));
    this.state = token === CALL_END ? 'section' : 'content';
    return true;
  }
}
