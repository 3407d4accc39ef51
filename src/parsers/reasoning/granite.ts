/**
 * IBM Granite (`granite`): plain-text markers, `Here is my thought
 * process:` REASONING `Here is my response:` CONTENT (`Here's` also
 * accepted). Without both markers, in that order, the output is content.
 * Reasoning is held until the response marker decides it.
 *
 * Deliberate difference: vLLM drops any text before the thought-process
 * marker; it is kept here, as content.
 */
import { ReasoningMachine } from './machine';
import { findFirst, partialSuffixLen } from '../scan';

const THINK = ["Here's my thought process:", 'Here is my thought process:'];
const RESPONSE = ["Here's my response:", 'Here is my response:'];

export class GraniteMachine extends ReasoningMachine {
  private state: 'prefix' | 'thinking' | 'response' = 'prefix';
  private marker = '';

  protected step(): boolean {
    switch (this.state) {
      case 'prefix': {
        const hit = findFirst(this.buf, THINK);
        if (!hit) {
          const keep = this.eof ? 0 : partialSuffixLen(this.buf, THINK);
          this.content(this.take(this.buf.length - keep));
          return false;
        }
        this.content(this.take(hit.index));
        this.marker = this.take(hit.token.length);
        this.state = 'thinking';
        return true;
      }
      case 'thinking': {
        const hit = findFirst(this.buf, RESPONSE);
        if (!hit) return false;
        this.reasoning(this.take(hit.index));
        this.take(hit.token.length);
        this.state = 'response';
        return true;
      }
      case 'response':
        this.content(this.take(this.buf.length));
        return false;
    }
  }

  protected override finish(): void {
    // A thought-process marker never answered by a response marker: all content.
    if (this.state === 'thinking') this.content(this.marker + this.take(this.buf.length));
  }
}
