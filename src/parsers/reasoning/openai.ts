/**
 * gpt-oss Harmony channels (`openai_gptoss`, also accepted as `openai` and
 * `gpt-oss`): `analysis` messages are reasoning, `final` messages (and
 * `commentary` without a recipient) are content, each kind joined with
 * "\n" as vLLM joins them. Function-call messages (`to=functions.NAME`) are
 * passed on in the content as written, for the `openai` tool-call parser;
 * other messages (built-in tools) are dropped. Output with no Harmony
 * header at all is content, as vLLM recovers it.
 */
import { HarmonyStream, harmonySegment } from '../harmony-stream';
import type { HarmonyEvent } from '../harmony-stream';
import { ReasoningMachine } from './machine';

export class HarmonyReasoningMachine extends ReasoningMachine {
  private readonly stream = new HarmonyStream();
  private kind: 'tool' | 'reasoning' | 'content' | 'ignore' | null = null;
  private raw = '';
  private partStarted = false;
  private reasoningParts = 0;
  private contentParts = 0;

  protected step(): boolean {
    const events = this.stream.push(this.take(this.buf.length), this.eof);
    for (const e of events) this.onEvent(e);
    return false;
  }

  private onEvent(e: HarmonyEvent): void {
    switch (e.type) {
      case 'text':
        this.content(e.text);
        return;
      case 'open':
        this.kind = harmonySegment(e.header);
        this.raw = e.header.raw;
        this.partStarted = false;
        return;
      case 'body':
        if (this.kind === 'tool') {
          this.raw += e.text;
        } else if (this.kind === 'reasoning' || this.kind === 'content') {
          if (!this.partStarted) {
            this.partStarted = true;
            const n = this.kind === 'reasoning' ? this.reasoningParts++ : this.contentParts++;
            if (n > 0) this.emit('\n');
          }
          this.emit(e.text);
        }
        return;
      case 'close':
        if (this.kind === 'tool') this.content(this.raw + e.terminator);
        this.kind = null;
        this.raw = '';
    }
  }

  private emit(s: string): void {
    if (this.kind === 'reasoning') this.reasoning(s);
    else this.content(s);
  }
}
