/**
 * MiniMax M2 (`minimax_m2`): the model writes only `</think>` (the template
 * opens `<think>`); reasoning from the first character, `<minimax:tool_call>`
 * ends it implicitly, trailing reasoning whitespace dropped.
 * `minimax_m2_append_think`: no split at all; the content is `<think>` +
 * the output, so clients that render think tags see a balanced block.
 */
import { ReasoningMachine, TagReasoningMachine, engineTags } from './machine';
import type { ReasoningOptions } from './types';

export const minimaxM2 = (o: ReasoningOptions) =>
  new TagReasoningMachine(o, engineTags('<think>', '</think>', '<minimax:tool_call>', { stripTrailingReasoningWs: true }));

class AppendThink extends ReasoningMachine {
  private started = false;
  protected step(): boolean {
    if (!this.started) {
      this.started = true;
      this.content('<think>');
    }
    this.content(this.take(this.buf.length));
    return false;
  }
}

export const minimaxM2AppendThink = (o: ReasoningOptions) => new AppendThink(o);
