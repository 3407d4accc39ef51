/**
 * Reuse of the conversation an agent resends with every turn.
 *
 * Each turn of an agent's conversation is a request whose `messages` start
 * with the previous turn's messages, byte for byte. For the raw JSON text of
 * such a request, the messages an earlier request had with exactly the same
 * text before them (from the start of the request text to the end of the
 * message) decode, validate and build to the same template messages, so
 * those are kept: the built message objects and their JSON text. Only the
 * rest of the request is decoded: the reused messages' text is replaced by a
 * stand-in string, and the text that comes out is a valid request text only
 * if the whole one was (a run of whole array items is replaced by one item).
 *
 * Everything the building of one message depends on besides its own text is
 * part of what a kept conversation records (content format, arguments policy,
 * whether the request takes vLLM's offline tool-call path, developer roles).
 * When any of it differs, or anything about the rest of the request is not
 * the plain case, the request is built from scratch instead; so a reused
 * request always gets what the full path gives it, errors included.
 */

import { randomBytes } from 'node:crypto';
import { arrayItemEnds, firstItemEnd, itemEnds, memberArraySpan, type ArraySpan } from '../protocol/json-spans';
import type { ArgumentsPolicy, ContentFormat } from './types';

/** How the kept message objects were built. */
export interface BuildMode {
  format: ContentFormat;
  policy: ArgumentsPolicy;
  /** The request took vLLM's offline tool-call path (usesOfflineToolCalls). */
  offline: boolean;
}

/** What a request built from its messages, to keep for later turns. */
export interface BuiltMessages {
  mode: BuildMode;
  /** The template messages, one per request message (read only once kept). */
  objects: Record<string, unknown>[];
  /** Their compact JSON, comma-separated, without the brackets. */
  json: string;
  /** Index of the first message with an offline-path tool-call shape, or -1. */
  offlineAt: number;
  /** Index of the first `developer` message, or -1. */
  developerAt: number;
  /** The template variables after `messages`, for a next turn that changes nothing else (buildNextTurn). */
  tail?: ContextTail;
}

/** The part of a context that does not depend on the messages. */
export interface ContextTail {
  /** The template and options it was built with. */
  readonly key: string;
  /** The context JSON after the messages array (`,"tools":...}`). */
  readonly json: string;
  /** The tools the template saw (shared, read only), or null. */
  readonly tools: unknown[] | null;
  readonly templateVariables: readonly string[];
}

export interface Kept extends BuiltMessages {
  /** The request text. */
  text: string;
  /** Where its messages lie in it; null when the text has no single `messages` array of items. */
  span?: ArraySpan | null;
  /** `text` up to the end of its first message (null: none), found before `span`. */
  head?: string | null;
  /** The end of each message in `json` (found when first needed). */
  jsonEnds?: number[] | null;
}

/** The first `count` messages of a kept conversation are the request's. */
export interface Reused {
  readonly kept: Kept;
  readonly count: number;
  /** The end of the reused messages in the request text. */
  readonly at: number;
}

/**
 * The string that stands in for the reused messages. It holds a random part
 * drawn when the process starts, so no request can spell it; a request whose
 * decoded `messages[0]` is it therefore has its `messages` member where the
 * stand-in was put.
 */
const STAND_IN = `\u0000node-vllm-cpp reused messages ${randomBytes(16).toString('hex')}`;
const STAND_IN_TEXT = JSON.stringify(STAND_IN);

export class RecentConversations {
  private entries: Kept[] = [];
  private chars = 0;
  /** Off: every request is built from scratch (the reference path, for tests and comparisons). */
  enabled = true;
  /** Requests that were built on kept messages (counted by whoever built them). */
  reusedRequests = 0;
  /** Of those, requests that also took the rest of the context from the kept request (buildNextTurn). */
  nextTurns = 0;

  constructor(
    /** Conversations kept. */
    private readonly capacity = 32,
    /** Characters kept (request texts and message JSON); a text over a quarter of it is not kept. */
    private readonly maxChars = 16 * 1024 * 1024,
  ) {}

  clear(): void {
    this.entries = [];
    this.chars = 0;
    this.forget();
  }

  private forget(): void {
    this.lastText = undefined;
    this.lastFound = undefined;
  }

  /** The last find (a request may look twice: for its next turn, then for its messages). */
  private lastText: string | undefined = undefined;
  private lastFound: Reused | undefined = undefined;

  /** The kept conversation sharing the most messages with `text`, if any. */
  find(text: string): Reused | undefined {
    if (!this.enabled) return undefined;
    if (text === this.lastText) return this.lastFound;
    const found = this.search(text);
    this.lastText = text;
    this.lastFound = found;
    return found;
  }

  private search(text: string): Reused | undefined {
    let best: Reused | undefined;
    let partial = 0;
    for (const e of this.entries) {
      // (a first look, up to the end of the first message, before the whole text is scanned)
      if (e.span === undefined) {
        if (e.head === undefined) {
          const end = firstItemEnd(e.text, 'messages');
          e.head = end === undefined ? null : e.text.slice(0, end);
        }
        // (string equality compares the characters in bulk; startsWith goes one by one)
        if (e.head === null || text.length <= e.head.length || text.slice(0, e.head.length) !== e.head) continue;
        e.span = memberArraySpan(e.text, 'messages') ?? null;
      }
      const span = e.span;
      if (span === null || span.ends.length !== e.objects.length || span.ends.length === 0) continue;
      const ends = span.ends;
      const n = ends.length;
      const last = ends[n - 1]!;
      // (string equality compares the characters in bulk)
      if (text.length > last && text.slice(0, last) === e.text.slice(0, last)) {
        if (best === undefined || n > best.count) best = { kept: e, count: n, at: last };
        break; // the most recent conversation that the request continues whole
      }
      const first = ends[0]!;
      if (partial >= 2 || text.length <= first || text.slice(0, first) !== e.text.slice(0, first)) continue;
      partial++;
      // the largest k whose message ends the same text in both
      let lo = 0;
      let hi = n - 2;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        const end = ends[mid]!;
        if (text.slice(0, end) === e.text.slice(0, end)) lo = mid;
        else hi = mid - 1;
      }
      if (best === undefined || lo + 1 > best.count) best = { kept: e, count: lo + 1, at: ends[lo]! };
    }
    return best;
  }

  /**
   * The request text with the reused messages replaced by the stand-in
   * (`spliced`), for the decoder.
   */
  splice(text: string, r: Reused): string {
    return text.slice(0, r.kept.span!.open) + STAND_IN_TEXT + text.slice(r.at);
  }

  /**
   * Keeps what `text` built. With `from`, the request was built on that kept
   * conversation: its item ends are carried over and only the rest of the
   * text is scanned, and a conversation it continued whole is replaced.
   */
  keep(text: string, built: BuiltMessages, from?: Reused): void {
    this.forget();
    if (!this.enabled || text.length > this.maxChars / 4 || built.objects.length === 0) return;
    // the same request again: what is kept already is what it built
    if (from !== undefined && from.count === built.objects.length && from.kept.objects.length === from.count && text === from.kept.text) {
      if (built.tail !== undefined) from.kept.tail = built.tail;
      this.touch(from.kept);
      return;
    }
    const e: Kept = { mode: built.mode, objects: built.objects, json: built.json, offlineAt: built.offlineAt, developerAt: built.developerAt, text };
    if (built.tail !== undefined) e.tail = built.tail;
    if (from !== undefined) {
      const span = from.kept.span!;
      try {
        const rest = itemEnds(text, from.at, false);
        e.span = { open: span.open, ends: span.ends.slice(0, from.count).concat(rest.ends), close: rest.close };
      } catch {
        e.span = null;
      }
      if (from.count === from.kept.objects.length) this.drop(from.kept);
    }
    this.entries.unshift(e);
    this.chars += text.length + built.json.length;
    while (this.entries.length > this.capacity || (this.chars > this.maxChars && this.entries.length > 1)) {
      const old = this.entries.pop()!;
      this.chars -= old.text.length + old.json.length;
    }
  }

  private touch(e: Kept): void {
    const i = this.entries.indexOf(e);
    if (i > 0) {
      this.entries.splice(i, 1);
      this.entries.unshift(e);
    }
  }

  private drop(e: Kept): void {
    const i = this.entries.indexOf(e);
    if (i < 0) return;
    this.entries.splice(i, 1);
    this.chars -= e.text.length + e.json.length;
  }

  /** The stand-in string (tests). */
  static readonly standIn = STAND_IN;
}

/** The reused messages' objects and compact JSON (comma-separated, no brackets). */
export function reusedParts(r: Reused): { objects: Record<string, unknown>[]; json: string } | undefined {
  const k = r.kept;
  if (r.count === k.objects.length) return { objects: k.objects, json: k.json };
  if (k.jsonEnds === undefined) k.jsonEnds = arrayItemEnds(`[${k.json}]`, 1)?.map((end) => end - 1) ?? null;
  if (k.jsonEnds === null || k.jsonEnds.length !== k.objects.length) return undefined;
  return { objects: k.objects.slice(0, r.count), json: k.json.slice(0, k.jsonEnds[r.count - 1]) };
}

/** Whether `v` is the stand-in for reused messages. */
export function isReusedStandIn(v: unknown): boolean {
  return v === STAND_IN;
}
