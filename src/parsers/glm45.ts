/**
 * GLM-4.5 / 4.6 / 4.7 (`glm45`, `glm47`):
 *
 *   <tool_call>NAME
 *   <arg_key>K</arg_key>
 *   <arg_value>V</arg_value>
 *   </tool_call>
 *
 * Values are raw text typed by the tool schema (the template writes
 * non-strings as JSON); without a schema they stay strings, as in vLLM.
 *
 * Deliberate differences: `1.0` for a `number` stays a float; a call cut
 * off by the end of the output keeps no arguments; a name vLLM does not
 * find among the tools is still reported (vLLM drops the call silently).
 */
import { makePyDict, pyJsonDumps } from '../protocol/pyjson';
import type { PyValue } from '../protocol/pyjson';
import { chatcmplToolId } from './emitter';
import { TextMachine } from './machine';
import { findToolProperties, typedParam } from './schema';
import { findFirst } from './scan';
import type { ParseOptions } from './types';

const START = '<tool_call>';
const END = '</tool_call>';
const KEY = '<arg_key>';
const VALUE = '<arg_value>';
const VALUE_END = '</arg_value>';

const ARG_RE = /<arg_key>([\s\S]*?)<\/arg_key>\s*<arg_value>([\s\S]*?)<\/arg_value>/g;

type State = 'content' | 'name' | 'body';

export class Glm45Parser extends TextMachine {
  private state: State = 'content';
  private index = -1;
  private name = '';
  private scanPos = 0;

  constructor(opts: ParseOptions) {
    super(opts, 'verbatim', chatcmplToolId);
  }

  protected step(): boolean {
    switch (this.state) {
      case 'content':
        if (this.scanContent([START]) === null) return false;
        this.state = 'name';
        return true;
      case 'name': {
        const hit = findFirst(this.buf, [KEY, END]);
        if (!hit) {
          if (!this.eof) return false;
          const name = this.take(this.buf.length).trim();
          if (name) this.open(name);
          else this.content.text(START);
          return false;
        }
        const name = this.buf.slice(0, hit.index).trim();
        if (!name) {
          this.content.text(START);
          this.state = 'content';
          return true;
        }
        this.take(hit.index);
        this.open(name);
        this.state = 'body';
        this.scanPos = 0;
        return true;
      }
      case 'body': {
        const { index, next } = this.findFrom(END, this.scanPos);
        this.scanPos = next;
        if (index < 0) {
          if (!this.eof) return false;
          // No </tool_call>: complete when the last value closed, else cut off.
          const body = this.take(this.buf.length);
          if (body.trimEnd().endsWith(VALUE_END)) this.emitArgs(body);
          return false;
        }
        this.emitArgs(this.take(index));
        this.take(END.length);
        this.state = 'content';
        return true;
      }
    }
  }

  private open(name: string): void {
    this.name = name;
    this.content.callStart();
    this.index = this.sink.openCall(name);
  }

  private emitArgs(body: string): void {
    const props = findToolProperties(this.opts.tools, this.name);
    const entries: [string, PyValue][] = [];
    for (const m of body.matchAll(ARG_RE)) entries.push([m[1]!.trim(), typedParam(m[2]!, props?.[m[1]!.trim()])]);
    if (!entries.length && (body.includes(KEY) || body.includes(VALUE))) return;
    this.sink.args(this.index, pyJsonDumps(makePyDict(entries)));
  }
}
