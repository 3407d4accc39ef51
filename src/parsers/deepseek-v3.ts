/**
 * DeepSeek V3 and V3.1 tool calls (pre-DSML):
 *
 *   V3:   <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>TYPE<｜tool▁sep｜>NAME\n```json\nARGS\n```<｜tool▁call▁end｜>…<｜tool▁calls▁end｜>
 *   V3.1: <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>ARGS<｜tool▁call▁end｜>…<｜tool▁calls▁end｜>
 *
 * vLLM matches each call with a single-line pattern and passes ARGS through
 * verbatim. The whole section is held until it closes: when no call in it
 * matches (e.g. pretty-printed JSON), the raw section is content.
 */
import { chatcmplToolId } from './emitter';
import { TextMachine } from './machine';
import type { ParseOptions } from './types';

const SECTION_START = '<｜tool▁calls▁begin｜>';
const SECTION_END = '<｜tool▁calls▁end｜>';

// `[^\n]` stands in for Python's `.` without DOTALL (JS `.` also stops at \r).
const V3_CALL = /<｜tool▁call▁begin｜>([^\n]*)<｜tool▁sep｜>([^\n]*)\n```json\n([^\n]*)\n```<｜tool▁call▁end｜>/g;
const V31_CALL = /<｜tool▁call▁begin｜>([^\n]*?)<｜tool▁sep｜>([^\n]*?)<｜tool▁call▁end｜>/g;

export type DeepSeekVersion = 'v3' | 'v31';

export class DeepSeekV3Parser extends TextMachine {
  private inSection = false;
  private scanPos = 0;

  constructor(
    opts: ParseOptions,
    private readonly version: DeepSeekVersion,
  ) {
    super(opts, 'verbatim', chatcmplToolId);
  }

  protected step(): boolean {
    if (!this.inSection) {
      if (this.scanContent([SECTION_START]) === null) return false;
      this.inSection = true;
      this.scanPos = 0;
      return true;
    }
    const { index, next } = this.findFrom(SECTION_END, this.scanPos);
    this.scanPos = next;
    if (index < 0 && !this.eof) return false;
    const closed = index >= 0;
    const section = this.take(closed ? index : this.buf.length);
    if (closed) this.take(SECTION_END.length);
    this.inSection = false;

    const calls = this.matchCalls(section);
    if (calls.length === 0) {
      this.content.text(SECTION_START + section + (closed ? SECTION_END : ''));
      return true;
    }
    for (const { name, args } of calls) {
      this.content.callStart();
      const i = this.sink.openCall(name);
      this.sink.args(i, args);
    }
    return true;
  }

  private matchCalls(section: string): { name: string; args: string }[] {
    const re = new RegExp(this.version === 'v3' ? V3_CALL : V31_CALL);
    const out: { name: string; args: string }[] = [];
    for (const m of section.matchAll(re)) {
      if (this.version === 'v3') out.push({ name: m[2]!, args: m[3]! });
      else out.push({ name: m[1]!, args: m[2]! });
    }
    return out;
  }
}
