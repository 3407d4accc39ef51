/** Per-message building in vLLM's key order and field whitelist (`_parse_chat_message_content`). */

import { isPyDict, makePyDict, pyEntries } from '../protocol/pyjson';
import { collapseToolContent, normalizeContent } from './content';
import type { ContentFormat } from './types';

/** Rebuild a dict with `declared` keys first (those present, in that order), then the rest in client order. */
function declaredFirst(obj: Record<string, unknown>, declared: readonly string[], map?: (k: string, v: unknown) => unknown): Record<string, unknown> {
  const entries = pyEntries(obj);
  const out: Array<[string, unknown]> = [];
  for (const k of declared) {
    const e = entries.find(([key]) => key === k);
    if (e) out.push([k, map ? map(k, e[1]) : e[1]]);
  }
  for (const [k, v] of entries) if (!declared.includes(k)) out.push([k, v]);
  return makePyDict(out);
}

/** A tool-call entry as pydantic rebuilds it: id, function (arguments, name, extras), type, extras. */
export function reorderToolCall(entry: unknown): unknown {
  if (!isPyDict(entry)) return entry;
  return declaredFirst(entry, ['id', 'function', 'type'], (k, v) =>
    k === 'function' && isPyDict(v) ? declaredFirst(v, ['arguments', 'name']) : v,
  );
}

/** The request-level rename: `reasoning_content` -> `reasoning` when `reasoning` is absent or null. */
export function renameReasoningContent(message: Record<string, unknown>): Record<string, unknown> {
  if (!Object.prototype.hasOwnProperty.call(message, 'reasoning_content')) return message;
  const rc = message['reasoning_content'];
  const out = makePyDict(pyEntries(message).filter(([k]) => k !== 'reasoning_content')) as Record<string, unknown>;
  if (rc !== null && rc !== undefined && (out['reasoning'] === null || out['reasoning'] === undefined)) out['reasoning'] = rc;
  return out;
}

const has = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** Build the conversation message vLLM hands to the template for request message `index`. */
export function buildMessage(raw: Record<string, unknown>, format: ContentFormat, index: number): Record<string, unknown> {
  const message = renameReasoningContent(raw);
  const role = message['role'];
  const content = normalizeContent(has(message, 'content') ? message['content'] : null, format, `messages[${index}].content`);
  const out: Array<[string, unknown]> = [['role', role], ['content', content]];
  if (role === 'assistant') {
    const toolCalls = message['tool_calls'];
    if (has(message, 'tool_calls') && toolCalls !== null && toolCalls !== undefined) {
      out.push(['tool_calls', Array.isArray(toolCalls) ? toolCalls.map(reorderToolCall) : toolCalls]);
    }
    const reasoning = message['reasoning'];
    if (reasoning !== null && reasoning !== undefined) {
      out.push(['reasoning', reasoning], ['reasoning_content', reasoning]);
    }
  } else if (role === 'tool') {
    if (has(message, 'tool_call_id')) out.push(['tool_call_id', message['tool_call_id'] ?? null]);
    out[1] = ['content', collapseToolContent(content)];
  }
  if (typeof message['name'] === 'string') out.push(['name', message['name']]);
  if (typeof message['task'] === 'string') out.push(['task', message['task']]);
  if (role === 'developer') out.push(['tools', has(message, 'tools') ? (message['tools'] ?? null) : null]);
  return makePyDict(out) as Record<string, unknown>;
}
