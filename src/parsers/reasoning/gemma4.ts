/**
 * Gemma 4 (`gemma4`): reasoning in a `<|channel>thought\n...<channel|>`
 * block, as vLLM's parser engine reads it: the output starts as content; a
 * `<|channel>` opens reasoning (again, if it appears inside), `<channel|>`
 * closes it (a stray one in content is dropped), a `<|tool_call>` ends it
 * implicitly and stays in the content. An output that starts with
 * `thought\n` is in a block whose opener the prompt carried. The leading
 * `thought\n` of the reasoning is the channel name, not reasoning; a
 * reasoning of just `thought` is none. Trailing reasoning whitespace is
 * dropped.
 *
 * Deliberate difference: vLLM's whole-text parse also treats everything
 * before a `<channel|>` that has no opener as reasoning, which its own
 * streaming parse does not (it decides on the first token); here the output
 * is classified from its start, as vLLM streams it: that text is content.
 */
import { ReasoningMachine } from './machine';
import type { ReasoningOptions } from './types';

const OPEN = '<|channel>';
const CLOSE = '<channel|>';
const TOOL = '<|tool_call>';
const PREFIX = 'thought\n';

export class Gemma4ReasoningMachine extends ReasoningMachine {
  private state: 'start' | 'content' | 'reasoning';
  /** Reasoning text until it shows whether it starts with the channel name. */
  private pre = '';
  private prefixDecided = false;

  constructor(opts: ReasoningOptions) {
    super(opts, true);
    this.state = opts.promptEndsInReasoning ? 'reasoning' : 'start';
  }

  protected step(): boolean {
    switch (this.state) {
      case 'start': {
        if (!this.eof && PREFIX.startsWith(this.buf) && this.buf.length < PREFIX.length) return false;
        const inBlock = this.buf.startsWith(PREFIX) || (this.eof && this.buf === 'thought');
        this.state = inBlock ? 'reasoning' : 'content';
        return true;
      }
      case 'content': {
        const tok = this.scanTo([OPEN, CLOSE], (s) => this.content(s));
        if (tok === OPEN) this.state = 'reasoning';
        return tok !== null;
      }
      case 'reasoning': {
        const tok = this.scanTo([CLOSE, TOOL, OPEN], (s) => this.thought(s));
        if (tok === null || tok === OPEN) return tok !== null;
        this.reasoningEnded();
        if (tok === TOOL) this.content(TOOL);
        this.state = 'content';
        return true;
      }
    }
  }

  private thought(s: string): void {
    if (!s) return;
    if (this.prefixDecided) {
      this.reasoning(s);
      return;
    }
    this.pre += s;
    if (this.pre.length < PREFIX.length) return;
    this.prefixDecided = true;
    const rest = this.pre.startsWith(PREFIX) ? this.pre.slice(PREFIX.length) : this.pre;
    this.pre = '';
    this.reasoning(rest);
  }

  protected override finish(): void {
    if (!this.prefixDecided && this.pre.replace(/\s+$/u, '') !== 'thought') this.reasoning(this.pre);
  }
}
