/**
 * gpt-oss Harmony tool calls (`openai`): a message addressed to a function,
 *
 *   <|start|>assistant<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{JSON}<|call|>
 *
 * is a call; `final` messages (and `commentary` without a recipient) are
 * content, joined with "\n"; `analysis` (reasoning) and built-in tool
 * messages are not content. Output with no Harmony header is content.
 * Written from the Harmony specification: vLLM parses this format from
 * token ids with the openai-harmony library. Arguments that are not JSON
 * give a call without arguments (vLLM passes them on as raw text).
 */
import { pyJsonDumps } from '../protocol/pyjson';
import { chatcmplToolId } from './emitter';
import { HarmonyStream, functionFromRecipient, harmonySegment } from './harmony-stream';
import type { HarmonyEvent } from './harmony-stream';
import { TextMachine } from './machine';
import { tryLoads } from './pyvalue';
import type { ParseOptions } from './types';

export class HarmonyToolParser extends TextMachine {
  private readonly stream = new HarmonyStream();
  private kind: ReturnType<typeof harmonySegment> | null = null;
  private index = -1;
  private body = '';
  private partStarted = false;
  private parts = 0;

  constructor(opts: ParseOptions) {
    super(opts, 'verbatim', chatcmplToolId);
  }

  protected step(): boolean {
    for (const e of this.stream.push(this.take(this.buf.length), this.eof)) this.onEvent(e);
    return false;
  }

  private onEvent(e: HarmonyEvent): void {
    switch (e.type) {
      case 'text':
        this.text(e.text);
        return;
      case 'open':
        this.kind = harmonySegment(e.header);
        this.partStarted = false;
        this.body = '';
        if (this.kind === 'tool') {
          this.content.callStart();
          this.index = this.sink.openCall(functionFromRecipient(e.header.recipient!));
        }
        return;
      case 'body':
        if (this.kind === 'tool') this.body += e.text;
        else if (this.kind === 'content') this.text(e.text);
        return;
      case 'close':
        if (this.kind === 'tool' && e.terminator) {
          const v = tryLoads(this.body);
          if (v !== undefined) this.sink.args(this.index, pyJsonDumps(v));
        }
        this.kind = null;
        this.partStarted = false;
    }
  }

  /** Content parts (each message's text, text outside messages) joined with "\n". */
  private text(s: string): void {
    if (!s) return;
    if (!this.partStarted) {
      this.partStarted = true;
      if (this.parts++ > 0) s = '\n' + s;
    }
    this.content.text(s);
  }
}

export const openai = (o: ParseOptions) => new HarmonyToolParser(o);
