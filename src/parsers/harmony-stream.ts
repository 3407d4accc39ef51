/**
 * Incremental splitter for OpenAI Harmony output (gpt-oss):
 *
 *   [<|start|>assistant]<|channel|>CHANNEL[ to=RECIPIENT][ [<|constrain|>]TYPE]<|message|>TEXT(<|end|>|<|call|>|<|return|>)
 *
 * The output usually starts right after the prompt's `<|start|>assistant`,
 * so a message may begin at `<|channel|>`. Text outside any message (no
 * header at all) is reported as `text`. Shared by the `openai` reasoning
 * and tool-call parsers; the format comes from the Harmony specification
 * (vLLM parses it with the openai-harmony library on token ids).
 */
import { findFirst, partialSuffixLen } from './scan';

const START = '<|start|>';
const CHANNEL = '<|channel|>';
const MESSAGE = '<|message|>';
const CONSTRAIN = '<|constrain|>';
const ENDS = ['<|end|>', '<|call|>', '<|return|>'];
const HEADER_TAIL = /^\s*(?:assistant\s*)?to=\S+\s*$/;
/** What may still become a HEADER_TAIL (held back while streaming). */
const HEADER_TAIL_PREFIX = /^\s*(?:a(?:s(?:s(?:i(?:s(?:t(?:a(?:n(?:t)?)?)?)?)?)?)?)?\s*)?(?:t(?:o(?:=\S*)?)?)?$/;

export interface HarmonyHeader {
  role: string;
  channel: string | null;
  recipient: string | null;
  contentType: string | null;
  /** The header as written, from `<|start|>`/`<|channel|>` through `<|message|>`. */
  raw: string;
}

export type HarmonyEvent =
  | { type: 'text'; text: string }
  | { type: 'open'; header: HarmonyHeader }
  | { type: 'body'; text: string }
  | { type: 'close'; terminator: string };

export function parseHarmonyHeader(raw: string): HarmonyHeader {
  let h = raw.startsWith(START) ? raw.slice(START.length) : raw;
  if (h.endsWith(MESSAGE)) h = h.slice(0, -MESSAGE.length);
  const ci = h.indexOf(CHANNEL);
  const beforeChannel = ci >= 0 ? h.slice(0, ci) : h;
  let afterChannel = ci >= 0 ? h.slice(ci + CHANNEL.length) : '';
  let contentType: string | null = null;
  const constrain = (s: string): string => {
    const k = s.indexOf(CONSTRAIN);
    if (k < 0) return s;
    contentType = s.slice(k + CONSTRAIN.length).trim() || null;
    return s.slice(0, k);
  };
  afterChannel = constrain(afterChannel);
  const before = constrain(beforeChannel);
  const words = (s: string) => s.trim().split(/\s+/).filter(Boolean);
  let recipient: string | null = null;
  const take = (ws: string[]) => ws.filter((w) => (w.startsWith('to=') ? ((recipient = w.slice(3) || null), false) : true));
  const roleWords = take(words(before));
  const chanWords = take(words(afterChannel));
  const channel = chanWords.length ? chanWords[0]! : null;
  if (contentType === null && chanWords.length > 1) contentType = chanWords.slice(1).join(' ');
  return { role: roleWords[0] ?? 'assistant', channel, recipient, contentType, raw };
}

export class HarmonyStream {
  private buf = '';
  private state: 'outside' | 'header' | 'body' = 'outside';

  push(chunk: string, eof = false): HarmonyEvent[] {
    this.buf += chunk;
    const out: HarmonyEvent[] = [];
    for (;;) {
      if (this.state === 'outside') {
        const hit = findFirst(this.buf, [START, CHANNEL]);
        // The rest of a header whose `<|start|>assistant` ended the prompt:
        // ` to=functions.NAME<|channel|>...` belongs to the header.
        if (hit && hit.token === CHANNEL && HEADER_TAIL.test(this.buf.slice(0, hit.index))) {
          this.state = 'header';
          continue;
        }
        if (!hit && !eof && HEADER_TAIL_PREFIX.test(this.buf)) break;
        if (!hit) {
          const keep = eof ? 0 : partialSuffixLen(this.buf, [START, CHANNEL]);
          this.emitText(out, this.buf.slice(0, this.buf.length - keep));
          this.buf = this.buf.slice(this.buf.length - keep);
          break;
        }
        this.emitText(out, this.buf.slice(0, hit.index));
        this.buf = this.buf.slice(hit.index);
        this.state = 'header';
        continue;
      }
      if (this.state === 'header') {
        const i = this.buf.indexOf(MESSAGE);
        if (i < 0) {
          if (!eof) break;
          // A header never finished: the raw text is all there is.
          this.emitText(out, this.buf);
          this.buf = '';
          this.state = 'outside';
          break;
        }
        const raw = this.buf.slice(0, i + MESSAGE.length);
        this.buf = this.buf.slice(i + MESSAGE.length);
        out.push({ type: 'open', header: parseHarmonyHeader(raw) });
        this.state = 'body';
        continue;
      }
      const hit = findFirst(this.buf, ENDS);
      if (!hit) {
        const keep = eof ? 0 : partialSuffixLen(this.buf, ENDS);
        const text = this.buf.slice(0, this.buf.length - keep);
        if (text) out.push({ type: 'body', text });
        this.buf = this.buf.slice(this.buf.length - keep);
        if (eof) out.push({ type: 'close', terminator: '' });
        break;
      }
      if (hit.index) out.push({ type: 'body', text: this.buf.slice(0, hit.index) });
      this.buf = this.buf.slice(hit.index + hit.token.length);
      out.push({ type: 'close', terminator: hit.token });
      this.state = 'outside';
    }
    return out;
  }

  private emitText(out: HarmonyEvent[], text: string): void {
    if (text) out.push({ type: 'text', text });
  }
}

/** vLLM's classification of a finished message by channel and recipient. */
export function harmonySegment(h: HarmonyHeader): 'tool' | 'reasoning' | 'content' | 'ignore' {
  if (h.recipient && isFunctionRecipient(h.recipient)) return 'tool';
  if (h.channel === 'analysis') return 'reasoning';
  if (h.channel === 'final' || (h.channel === 'commentary' && h.recipient === null)) return 'content';
  return 'ignore';
}

const BUILTIN_TOOLS = new Set(['python', 'browser', 'container']);

/** A recipient that names a function tool (`functions.NAME`, or a bare name that is not a built-in). */
export function isFunctionRecipient(r: string): boolean {
  if (!r || r.startsWith('<|')) return false;
  if (r.startsWith('functions.')) return r.length > 'functions.'.length;
  if (r === 'assistant') return false;
  return !BUILTIN_TOOLS.has(r) && !BUILTIN_TOOLS.has(r.split('.', 1)[0]!);
}

/** The function name of a tool recipient. */
export function functionFromRecipient(r: string): string {
  return r.startsWith('functions.') ? r.slice('functions.'.length) : r;
}
