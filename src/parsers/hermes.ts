/**
 * Hermes / Qwen3 JSON tool calls: `<tool_call>{"name": N, "arguments": {...}}</tool_call>`.
 *
 * Each block is held until `</tool_call>` (or end of output, which vLLM
 * tolerates) and then parsed as a whole: a block that is not valid JSON
 * must come back as plain content, which cannot be decided earlier.
 * Arguments are re-serialized Python-style, as vLLM's non-streaming path does.
 */
import { chatcmplToolId } from './emitter';
import { PyValue, isPyDict, makePyDict, pyJsonDumps } from '../protocol/pyjson';
import { tryLoads } from './pyvalue';
import { TextMachine } from './machine';
import type { ParseOptions } from './types';

/** The wrapper tags: Hermes's, or LongCat's `<longcat_tool_call>`. */
export interface JsonBlockTags {
  start: string;
  end: string;
}
const HERMES_TAGS: JsonBlockTags = { start: '<tool_call>', end: '</tool_call>' };

export class HermesParser extends TextMachine {
  private inBlock = false;
  private scanPos = 0;

  constructor(
    opts: ParseOptions,
    private readonly tags: JsonBlockTags = HERMES_TAGS,
  ) {
    super(opts, 'verbatim', chatcmplToolId);
  }

  protected step(): boolean {
    if (!this.inBlock) {
      if (this.scanContent([this.tags.start]) === null) return false;
      this.inBlock = true;
      this.scanPos = 0;
      return true;
    }
    const { index, next } = this.findFrom(this.tags.end, this.scanPos);
    this.scanPos = next;
    if (index < 0 && !this.eof) return false;
    const body = index < 0 ? this.take(this.buf.length) : this.take(index);
    if (index >= 0) this.take(this.tags.end.length);
    this.inBlock = false;
    const call = parseBlock(body);
    if (!call) {
      this.content.text(this.tags.start + body + (index >= 0 ? this.tags.end : ''));
      return true;
    }
    this.content.callStart();
    const i = this.sink.openCall(call.name);
    this.sink.args(i, pyJsonDumps(call.args));
    return true;
  }
}

function parseBlock(body: string): { name: string; args: PyValue } | null {
  const block = tryLoads(body);
  if (!isPyDict(block)) return null;
  const name = hasOwn(block, 'name') ? block.name : undefined;
  if (typeof name !== 'string') return null;
  // A missing key means no arguments; an explicit `null` is kept as null.
  let args: PyValue = hasOwn(block, 'arguments') ? block.arguments! : makePyDict([]);
  // A model that writes the arguments as a JSON string would otherwise get a
  // double-encoded string back; use the object it evidently meant.
  if (typeof args === 'string') {
    const inner = tryLoads(args);
    if (isPyDict(inner)) args = inner;
  }
  return { name, args };
}

/** `key in d` for a decoded dict: own keys only, never Object.prototype's. */
function hasOwn(d: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(d, key);
}
