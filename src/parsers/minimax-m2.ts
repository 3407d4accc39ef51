/**
 * MiniMax M2 (`minimax_m2`):
 *
 *   <minimax:tool_call>
 *   <invoke name="NAME">
 *   <parameter name="K">V</parameter>
 *   </invoke>
 *   </minimax:tool_call>
 *
 * (names also single-quoted or bare). Values are raw text typed by the tool
 * schema; without one they stay strings.
 *
 * Deliberate differences: vLLM strips every value, so file contents lose
 * their indentation and trailing newlines; here a value is taken exactly as
 * written between the tags, as the template renders it. `1.0` for a
 * `number` stays a float; a cut-off call keeps no arguments.
 */
import { makePyDict, pyJsonDumps } from '../protocol/pyjson';
import type { PyValue } from '../protocol/pyjson';
import { chatcmplToolId } from './emitter';
import { TextMachine } from './machine';
import { findToolProperties, typedParam } from './schema';
import { firstNonWs, isPrefixOfAny } from './scan';
import type { ParseOptions } from './types';

const SECTION = '<minimax:tool_call>';
const SECTION_END = '</minimax:tool_call>';
const INVOKE_END = '</invoke>';
const INVOKE_RE = /^<invoke\s+name\s*=\s*(?:"([^"]*)"|'([^']*)'|([^>\s]+))\s*>/;
const PARAM_RE = /<parameter\s+name\s*=\s*(?:"([^"]*)"|'([^']*)'|([^>\s]+))\s*>([\s\S]*?)(?:<\/parameter>|(?=<parameter\s+name\s*=))/g;

type State = 'content' | 'section' | 'invoke';

export class MinimaxM2Parser extends TextMachine {
  private state: State = 'content';
  private index = -1;
  private name = '';
  private scanPos = 0;
  private sectionRaw = '';

  constructor(opts: ParseOptions) {
    super(opts, 'verbatim', chatcmplToolId);
  }

  protected step(): boolean {
    switch (this.state) {
      case 'content':
        if (this.scanContent([SECTION]) === null) return false;
        this.state = 'section';
        this.sectionRaw = SECTION;
        return true;
      case 'section':
        return this.section();
      case 'invoke':
        return this.invoke();
    }
  }

  private section(): boolean {
    const i = firstNonWs(this.buf);
    const rest = i < 0 ? '' : this.buf.slice(i);
    if (rest.startsWith(SECTION_END)) {
      this.take(i + SECTION_END.length);
      this.state = 'content';
      return true;
    }
    const m = INVOKE_RE.exec(rest);
    if (m) {
      this.take(i + m[0].length);
      this.name = (m[1] ?? m[2] ?? m[3] ?? '').trim();
      this.content.callStart();
      this.index = this.sink.openCall(this.name);
      this.sectionRaw = '';
      this.state = 'invoke';
      this.scanPos = 0;
      return true;
    }
    const maybe = i < 0 || isPrefixOfAny(rest, [SECTION_END, '<invoke']) || (rest.startsWith('<invoke') && !rest.includes('>'));
    if (!this.eof && maybe) return false;
    // Not a section after all (or an empty one): markup without a call is content.
    if (this.sectionRaw) this.content.text(this.sectionRaw);
    this.sectionRaw = '';
    this.state = 'content';
    return true;
  }

  private invoke(): boolean {
    const { index, next } = this.findFrom(INVOKE_END, this.scanPos);
    this.scanPos = next;
    if (index < 0) {
      if (!this.eof) return false;
      const body = this.take(this.buf.length);
      const cut = body.lastIndexOf('<parameter');
      // Complete up to the last closed parameter: emit only when nothing is left open.
      if (cut < 0 || body.slice(cut).includes('</parameter>')) this.emitArgs(body.replace(/<\/minimax:tool_call>\s*$/, ''));
      return false;
    }
    this.emitArgs(this.take(index));
    this.take(INVOKE_END.length);
    this.state = 'section';
    return true;
  }

  private emitArgs(body: string): void {
    const props = findToolProperties(this.opts.tools, this.name);
    const entries: [string, PyValue][] = [];
    for (const m of body.matchAll(PARAM_RE)) {
      const key = (m[1] ?? m[2] ?? m[3] ?? '').trim();
      if (!key) continue;
      entries.push([key, typedParam(m[4]!, props?.[key])]);
    }
    this.sink.args(this.index, pyJsonDumps(makePyDict(entries)));
  }
}
