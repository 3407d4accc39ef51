/**
 * OLMo 3 (`olmo3`): `[<think>]REASONING</think>CONTENT`, where the think
 * tags are ordinary text. Without `</think>` the whole output is content,
 * so nothing can be classified before `</think>` (or the end) arrives:
 * the output is held until then.
 */
import { ReasoningMachine } from './machine';

const START = '<think>';
const END = '</think>';

export class Olmo3Machine extends ReasoningMachine {
  private split = false;
  private scanPos = 0;

  protected step(): boolean {
    if (this.split) {
      this.content(this.take(this.buf.length));
      return false;
    }
    const i = this.buf.indexOf(END, this.scanPos);
    if (i < 0) {
      this.scanPos = Math.max(0, this.buf.length - END.length + 1);
      return false;
    }
    let reasoning = this.take(i);
    this.take(END.length);
    if (reasoning.startsWith(START)) reasoning = reasoning.slice(START.length);
    this.reasoning(reasoning);
    this.split = true;
    return true;
  }

  protected override finish(): void {
    if (!this.split) this.content(this.take(this.buf.length));
  }
}
