/**
 * Base class for the per-format incremental parsers.
 *
 * Every format is a state machine over an input buffer. `step()` consumes a
 * prefix of the buffer when the text seen so far decides what it is, and
 * returns false when it needs more text. Decisions never depend on where
 * chunk boundaries fall, only on the text — and on `eof`, which turns "might
 * still become markup" into "is plain text". Non-streaming parsing is the
 * same machine fed the whole text at once, so both paths agree by
 * construction.
 */
import { ContentFilter, DeltaSink } from './emitter';
import { findFirst, partialSuffixLen } from './scan';
import { ToolParseError } from './types';
import type { EndOptions, ParseOptions, StreamDelta, StreamingToolParser } from './types';

export abstract class TextMachine implements StreamingToolParser {
  protected buf = '';
  protected eof = false;
  protected readonly sink: DeltaSink;
  protected readonly content: ContentFilter;
  private ended = false;

  constructor(
    protected readonly opts: ParseOptions,
    contentMode: 'verbatim' | 'trim',
    defaultId: () => string,
  ) {
    this.sink = new DeltaSink(opts.idGenerator ?? defaultId);
    this.content = new ContentFilter(this.sink, contentMode);
  }

  push(chunk: string): StreamDelta[] {
    if (this.ended) throw new ToolParseError('push() called after end()');
    this.buf += chunk;
    this.pump();
    return this.sink.drain();
  }

  end(options: EndOptions = {}): StreamDelta[] {
    if (this.ended) throw new ToolParseError('end() called twice');
    this.ended = true;
    this.eof = true;
    this.pump();
    this.finishOpenCall();
    this.content.end();
    this.sink.finish(options.finishReason);
    return this.sink.drain();
  }

  private pump(): void {
    while (this.step()) {
      /* keep going while progress is made */
    }
  }

  /** Advance once; false when blocked on more input (or nothing left). */
  protected abstract step(): boolean;

  /** Close whatever call is still open when the stream ends. */
  protected finishOpenCall(): void {}

  protected take(n: number): string {
    const s = this.buf.slice(0, n);
    this.buf = this.buf.slice(n);
    return s;
  }

  /**
   * Content scanning: pass text before the earliest start token to the
   * content filter and return the token (consumed). Without a token, emit
   * all but a possible token prefix at the end of the buffer.
   */
  protected scanContent(startTokens: readonly string[]): string | null {
    const hit = findFirst(this.buf, startTokens);
    if (hit) {
      this.content.text(this.take(hit.index));
      this.take(hit.token.length);
      return hit.token;
    }
    const keep = this.eof ? 0 : partialSuffixLen(this.buf, startTokens);
    this.content.text(this.take(this.buf.length - keep));
    return null;
  }

  /**
   * Find `token` in the buffer, remembering how far a failed search got so
   * a long body is not rescanned on every chunk.
   */
  protected findFrom(token: string, from: number): { index: number; next: number } {
    const index = this.buf.indexOf(token, from);
    return { index, next: index >= 0 ? index : Math.max(from, this.buf.length - token.length + 1) };
  }
}
