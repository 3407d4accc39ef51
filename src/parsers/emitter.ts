/**
 * Delta emission: the OpenAI streaming shape that clients such as
 * openai-node accumulate, plus the content policy every parser shares.
 */
import { randomBytes } from 'crypto';
import type { StreamDelta } from './types';
import { firstNonWs, isWs } from './scan';

/** vLLM's default `make_tool_call_id()`: `chatcmpl-tool-` + uuid4 hex. */
export function chatcmplToolId(): string {
  return `chatcmpl-tool-${randomBytes(16).toString('hex')}`;
}

/** The DSML and Qwen3-Coder parsers' `call_` + 24 hex characters. */
export function callHexId(): string {
  return `call_${randomBytes(12).toString('hex')}`;
}

export class DeltaSink {
  private pending: StreamDelta[] = [];
  private calls = 0;

  constructor(private readonly nextId: () => string) {}

  get callCount(): number {
    return this.calls;
  }

  content(text: string): void {
    if (!text) return;
    const last = this.pending[this.pending.length - 1];
    // Merge adjacent content produced within one push into one delta.
    if (last && last.content !== undefined && !last.tool_calls && !last.finish_reason) last.content += text;
    else this.pending.push({ content: text });
  }

  /**
   * Header delta: index, id, type and the whole name, once. `arguments: ""`
   * is included so clients that require non-null arguments never see null.
   * `id`: a call id the model wrote (Kimi K2's `functions.NAME:N`).
   */
  openCall(name: string, id?: string): number {
    const index = this.calls++;
    this.pending.push({ tool_calls: [{ index, id: id || this.nextId(), type: 'function', function: { name, arguments: '' } }] });
    return index;
  }

  args(index: number, fragment: string): void {
    if (!fragment) return;
    this.pending.push({ tool_calls: [{ index, function: { arguments: fragment } }] });
  }

  finish(engineReason?: 'stop' | 'length'): void {
    this.pending.push({ finish_reason: engineReason === 'length' ? 'length' : this.calls > 0 ? 'tool_calls' : 'stop' });
  }

  drain(): StreamDelta[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }
}

/**
 * How text outside tool-call markup becomes `content`. The same rules apply
 * to streaming and non-streaming output, so the two always agree:
 *
 * - `verbatim` (Hermes, DeepSeek, Qwen3-Coder, whose vLLM parsers do not
 *   strip): text before the first call is kept as written; a stretch
 *   between or after calls is kept as written unless it is only whitespace
 *   (the newlines templates put between calls are not content).
 * - `trim` (Gemma 4, whose vLLM parser strips): the outside text is
 *   concatenated and its trailing whitespace dropped when any call was made.
 *   Output without calls is left untouched.
 *
 * Whitespace that might still be dropped is held back until the next
 * non-whitespace character decides it.
 */
export class ContentFilter {
  private calls = 0;
  private segmentHasText = false;
  private held = '';

  constructor(
    private readonly sink: DeltaSink,
    private readonly mode: 'verbatim' | 'trim',
  ) {}

  text(s: string): void {
    if (!s) return;
    if (this.mode === 'verbatim') {
      if (this.calls === 0 || this.segmentHasText) {
        this.sink.content(s);
        return;
      }
      if (firstNonWs(s) < 0) {
        this.held += s;
        return;
      }
      this.segmentHasText = true;
      this.sink.content(this.held + s);
      this.held = '';
      return;
    }
    let end = s.length;
    while (end > 0 && isWs(s[end - 1]!)) end--;
    if (end === 0) {
      this.held += s;
      return;
    }
    this.sink.content(this.held + s.slice(0, end));
    this.held = s.slice(end);
  }

  callStart(): void {
    if (this.mode === 'verbatim') this.held = '';
    this.calls++;
    this.segmentHasText = false;
  }

  end(): void {
    if (this.mode === 'trim' && this.calls === 0) this.sink.content(this.held);
    this.held = '';
  }
}
