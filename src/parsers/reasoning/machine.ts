/**
 * Shared machinery of the reasoning parsers. Each format is an incremental
 * state machine over a buffer, as the tool-call parsers are: text is
 * emitted only once what follows cannot change how it is classified, so a
 * whole-text parse (the machine fed everything at once) and any streaming
 * chunking agree by construction.
 */
import { findFirst, partialSuffixLen } from '../scan';
import { ToolParseError } from '../types';
import type { ReasoningDelta, ReasoningOptions, StreamingReasoningParser } from './types';

export abstract class ReasoningMachine implements StreamingReasoningParser {
  protected buf = '';
  protected eof = false;
  private ended = false;
  private outReasoning = '';
  private outContent = '';
  /** Trailing reasoning whitespace held back (formats that strip it). */
  private heldWs = '';

  constructor(
    protected readonly opts: ReasoningOptions,
    private readonly stripTrailingReasoningWs = false,
  ) {}

  push(chunk: string): ReasoningDelta {
    if (this.ended) throw new ToolParseError('push() called after end()');
    this.buf += chunk;
    this.pump();
    return this.drain();
  }

  end(): ReasoningDelta {
    if (this.ended) throw new ToolParseError('end() called twice');
    this.ended = true;
    this.eof = true;
    this.pump();
    this.finish();
    this.heldWs = '';
    return this.drain();
  }

  private pump(): void {
    while (this.step()) {
      /* progress */
    }
  }

  /** Advance once; false when blocked on more input (or nothing left). */
  protected abstract step(): boolean;

  /** Called once at the end, after the last step. */
  protected finish(): void {}

  protected reasoning(s: string): void {
    if (!s) return;
    if (!this.stripTrailingReasoningWs) {
      this.outReasoning += s;
      return;
    }
    const all = this.heldWs + s;
    const kept = all.replace(/\s+$/u, '');
    this.outReasoning += kept;
    this.heldWs = all.slice(kept.length);
  }

  /** Reasoning is over: held trailing whitespace is dropped, as vLLM's rstrip does. */
  protected reasoningEnded(): void {
    this.heldWs = '';
  }

  protected content(s: string): void {
    this.outContent += s;
  }

  protected take(n: number): string {
    const s = this.buf.slice(0, n);
    this.buf = this.buf.slice(n);
    return s;
  }

  /**
   * Emit text (through `emit`) up to the earliest of `tokens` and consume the
   * token, returning it; without a token, emit all but a possible token
   * prefix at the end of the buffer and return null.
   */
  protected scanTo(tokens: readonly string[], emit: (s: string) => void): string | null {
    const hit = findFirst(this.buf, tokens);
    if (hit) {
      emit(this.take(hit.index));
      this.take(hit.token.length);
      return hit.token;
    }
    const keep = this.eof ? 0 : partialSuffixLen(this.buf, tokens);
    emit(this.take(this.buf.length - keep));
    return null;
  }

  private drain(): ReasoningDelta {
    const d: ReasoningDelta = {};
    if (this.outReasoning) d.reasoning = this.outReasoning;
    if (this.outContent) d.content = this.outContent;
    this.outReasoning = '';
    this.outContent = '';
    return d;
  }
}

/**
 * Thinking-tag formats: a start and an end tag around the reasoning, with
 * the per-format rules of vLLM's parser for tags in unexpected places.
 */
export interface TagFormat {
  start: string;
  end: string;
  /** Where the output begins when the caller does not say. */
  initial: 'reasoning' | 'content';
  /** A start tag inside reasoning: dropped (`drop`), dropped only if it is the output's first (`dropFirst`), or text. */
  startInReasoning: 'drop' | 'dropFirst' | 'text';
  /** A start tag in content: opens reasoning (`open`), opens only if no reasoning was opened yet (`openFirst`), or text. */
  startInContent: 'open' | 'openFirst' | 'text';
  /** An end tag in content: dropped (`drop`), dropped once while no start tag was seen (`dropFirstBeforeStart`), or text. */
  endInContent: 'drop' | 'dropFirstBeforeStart' | 'text';
  /** Tags (tool-call starts) that end reasoning implicitly; they stay in the content. */
  implicitEnd?: readonly string[];
  stripTrailingReasoningWs?: boolean;
}

export class TagReasoningMachine extends ReasoningMachine {
  private inReasoning: boolean;
  /** A reasoning block has been opened (or the output started in one). */
  private opened: boolean;
  private startSeen = false;
  private endDropped = false;

  constructor(
    opts: ReasoningOptions,
    private readonly f: TagFormat,
  ) {
    super(opts, f.stripTrailingReasoningWs ?? false);
    const initial = opts.promptEndsInReasoning === undefined ? f.initial === 'reasoning' : opts.promptEndsInReasoning;
    this.inReasoning = initial;
    this.opened = initial;
  }

  protected step(): boolean {
    const f = this.f;
    if (this.inReasoning) {
      const tokens = [f.end, ...(f.implicitEnd ?? [])];
      const dropStart = f.startInReasoning === 'drop' || (f.startInReasoning === 'dropFirst' && !this.startSeen);
      if (dropStart) tokens.push(f.start);
      const tok = this.scanTo(tokens, (s) => this.reasoning(s));
      if (tok === null) return false;
      if (tok === f.start) {
        this.startSeen = true;
        return true;
      }
      this.inReasoning = false;
      this.reasoningEnded();
      if (tok !== f.end) this.content(tok);
      return true;
    }
    const tokens: string[] = [];
    const canOpen = f.startInContent === 'open' || (f.startInContent === 'openFirst' && !this.opened);
    if (canOpen) tokens.push(f.start);
    const dropEnd = f.endInContent === 'drop' || (f.endInContent === 'dropFirstBeforeStart' && !this.startSeen && !this.endDropped);
    if (dropEnd) tokens.push(f.end);
    if (!tokens.length) {
      this.content(this.take(this.buf.length));
      return false;
    }
    const tok = this.scanTo(tokens, (s) => this.content(s));
    if (tok === null) return false;
    if (tok === f.start) {
      this.startSeen = true;
      this.opened = true;
      this.inReasoning = true;
    } else {
      this.endDropped = true;
    }
    return true;
  }
}

/** No reasoning in this output: everything is content, unchanged. */
export class IdentityMachine extends ReasoningMachine {
  protected step(): boolean {
    this.content(this.take(this.buf.length));
    return false;
  }
}

/** `thinking` / `enable_thinking` from chat_template_kwargs, vLLM style: undefined when neither is given. */
export function thinkingKwarg(opts: ReasoningOptions, keys: readonly string[] = ['thinking', 'enable_thinking']): boolean | undefined {
  const kw = opts.chatTemplateKwargs ?? {};
  const given = keys.filter((k) => Object.prototype.hasOwnProperty.call(kw, k) && kw[k] !== null && kw[k] !== undefined);
  if (!given.length) return undefined;
  return given.some((k) => pyTruthy(kw[k]));
}

/** Python truthiness of a JSON value. */
export function pyTruthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v as object).length > 0;
  return true;
}

/**
 * The tag rules of vLLM's parser engine (qwen3, seed_oss, glm45, kimi_k2,
 * minimax_m2): reasoning from the first character, start tags inside
 * reasoning and end tags in content dropped, the format's tool-call start
 * tag ending reasoning implicitly (it stays in the content).
 */
export function engineTags(
  start: string,
  end: string,
  toolStart: string,
  o: { stripTrailingReasoningWs: boolean; reopenInContent?: boolean },
): TagFormat {
  return {
    start,
    end,
    initial: 'reasoning',
    startInReasoning: 'drop',
    startInContent: o.reopenInContent ? 'open' : 'text',
    endInContent: 'drop',
    implicitEnd: [toolStart],
    stripTrailingReasoningWs: o.stripTrailingReasoningWs,
  };
}
