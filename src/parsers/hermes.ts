/**
 * Hermes / Qwen3 JSON tool calls: `<tool_call>{"name": N, "arguments": {...}}</tool_call>`.
 *
 * Each block is held until `</tool_call>` (or end of output, which vLLM
 * tolerates) and then parsed as a whole: a block that is not valid JSON
 * must come back as plain content, which cannot be decided earlier.
 * Arguments are re-serialized Python-style, as vLLM's non-streaming path does.
 */
import { chatcmplToolId } from './emitter';
import { JsonObject, JsonValue, dumps, tryParseJson } from './json';
import { TextMachine } from './machine';
import type { ParseOptions } from './types';

const START = '<tool_call>';
const END = '</tool_call>';

export class HermesParser extends TextMachine {
  private inBlock = false;
  private scanPos = 0;

  constructor(opts: ParseOptions) {
    super(opts, 'verbatim', chatcmplToolId);
  }

  protected step(): boolean {
    if (!this.inBlock) {
      if (this.scanContent([START]) === null) return false;
      this.inBlock = true;
      this.scanPos = 0;
      return true;
    }
    const { index, next } = this.findFrom(END, this.scanPos);
    this.scanPos = next;
    if (index < 0 && !this.eof) return false;
    const body = index < 0 ? this.take(this.buf.length) : this.take(index);
    if (index >= 0) this.take(END.length);
    this.inBlock = false;
    const call = parseBlock(body);
    if (!call) {
      this.content.text(START + body + (index >= 0 ? END : ''));
      return true;
    }
    this.content.callStart();
    const i = this.sink.openCall(call.name);
    this.sink.args(i, dumps(call.args));
    return true;
  }
}

function parseBlock(body: string): { name: string; args: JsonValue } | null {
  const r = tryParseJson(body);
  if (!r.ok || !(r.value instanceof Map)) return null;
  const name = r.value.get('name');
  if (typeof name !== 'string') return null;
  let args: JsonValue = r.value.has('arguments') ? r.value.get('arguments')! : (new Map() as JsonObject);
  // A model that writes the arguments as a JSON string would otherwise get a
  // double-encoded string back; use the object it evidently meant.
  if (typeof args === 'string') {
    const inner = tryParseJson(args);
    if (inner.ok && inner.value instanceof Map) args = inner.value;
  }
  return { name, args };
}
