/**
 * Hunyuan A13B (`hunyuan_a13b`): `<think>\nREASONING\n</think>\n<answer>\nCONTENT\n</answer>`.
 * The split follows vLLM's two patterns (the full one, then the one without
 * `</answer>`), which look at the whole output; the output is held until
 * the end and split then.
 */
import { ReasoningMachine } from './machine';

const FULL = /(?:<think>\n([\s\S]*?)\n<\/think>\n<answer>\n)?([\s\S]*?)\n<\/answer>/;
const HALF = /<think>\n([\s\S]*?)\n<\/think>\n<answer>\n([\s\S]*)/;
const RESPONSE_END = '\n</answer>';

export function splitHunyuan(text: string): [string | null, string | null] {
  const full = FULL.exec(text);
  if (full) return [full[1] || null, full[2] || null];
  const half = HALF.exec(text);
  if (half) {
    let content = half[2]!;
    if (content.endsWith(RESPONSE_END)) content = content.slice(0, -RESPONSE_END.length);
    return [half[1] || null, content || null];
  }
  return [null, text];
}

export class HunyuanMachine extends ReasoningMachine {
  protected step(): boolean {
    return false;
  }

  protected override finish(): void {
    const [reasoning, content] = splitHunyuan(this.take(this.buf.length));
    if (reasoning) this.reasoning(reasoning);
    if (content) this.content(content);
  }
}
