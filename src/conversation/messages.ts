/** Per-message building in vLLM's key order and field whitelist (`_parse_chat_message_content`). */

import { isPyDict, makePyDict, PY_KEYS, pyEntries, pyKeys } from '../protocol/pyjson';
import { collapseToolContent, normalizeContent } from './content';
import type { ContentFormat } from './types';

/** Rebuild a dict with `declared` keys first (those present, in that order), then the rest in client order. */
function declaredFirst(obj: Record<string, unknown>, declared: readonly string[], map?: (k: string, v: unknown) => unknown): Record<string, unknown> {
  const keys = pyKeys(obj);
  if (keys.every(isOrdinaryKey)) {
    // plain keys keep insertion order in a JS object: build it directly
    const out: Record<string, unknown> = {};
    for (const k of declared) if (keys.includes(k)) out[k] = map ? map(k, obj[k]) : obj[k];
    for (const k of keys) if (!declared.includes(k)) out[k] = obj[k];
    return out;
  }
  const entries = pyEntries(obj);
  const out: Array<[string, unknown]> = [];
  for (const k of declared) {
    const e = entries.find(([key]) => key === k);
    if (e) out.push([k, map ? map(k, e[1]) : e[1]]);
  }
  for (const [k, v] of entries) if (!declared.includes(k)) out.push([k, v]);
  return makePyDict(out);
}

/** A key JS keeps in insertion order as an ordinary property (not integer-like, not `__proto__`). */
function isOrdinaryKey(k: string): boolean {
  const c = k.charCodeAt(0);
  return !(c >= 0x30 && c <= 0x39) && k !== '__proto__';
}

/** A tool-call entry as pydantic rebuilds it: id, function (arguments, name, extras), type, extras. */
export function reorderToolCall(entry: unknown): unknown {
  if (!isPyDict(entry)) return entry;
  const fast = reorderPlainToolCall(entry);
  if (fast !== undefined) return fast;
  return declaredFirst(entry, ['id', 'function', 'type'], (k, v) =>
    k === 'function' && isPyDict(v) ? declaredFirst(v, ['arguments', 'name']) : v,
  );
}

/**
 * reorderToolCall for the common entry: exactly `{id, type, function: {name,
 * arguments}}` in any order, plain keys. Undefined when the entry has other keys.
 */
function reorderPlainToolCall(entry: Record<string, unknown>): Record<string, unknown> | undefined {
  let n = 0;
  for (const k in entry) {
    if (k !== 'id' && k !== 'type' && k !== 'function') return undefined;
    n++;
  }
  if ((entry as { [PY_KEYS]?: unknown })[PY_KEYS] !== undefined) return undefined;
  const fn = entry['function'];
  if (n !== 3 || !isPyDict(fn) || (fn as { [PY_KEYS]?: unknown })[PY_KEYS] !== undefined) return undefined;
  let m = 0;
  for (const k in fn) {
    if (k !== 'name' && k !== 'arguments') return undefined;
    m++;
  }
  if (m !== 2 || !Object.prototype.hasOwnProperty.call(entry, 'id') || !Object.prototype.hasOwnProperty.call(entry, 'type')) return undefined;
  if (!Object.prototype.hasOwnProperty.call(fn, 'name') || !Object.prototype.hasOwnProperty.call(fn, 'arguments')) return undefined;
  return { id: entry['id'], function: { arguments: fn['arguments'], name: fn['name'] }, type: entry['type'] };
}

/**
 * True when some assistant tool call has a shape only vLLM's offline
 * `LLM.chat` path accepts: `function.arguments` missing or not a string
 * (null, an object, ...), or no `type`. vLLM's HTTP request model would
 * reject such a request, so it is taken as an offline-path conversation, and
 * on that path the message dicts reach the template as the caller built
 * them: every tool-call entry and its `function` keep the caller's key order
 * (pydantic's rebuild into declared order happens only over HTTP).
 */
export function usesOfflineToolCalls(messages: readonly unknown[]): boolean {
  for (const m of messages) {
    if (!isPyDict(m)) continue;
    const calls = m['tool_calls'];
    if (!Array.isArray(calls)) continue;
    for (const c of calls) {
      if (!isPyDict(c)) continue;
      if (!has(c, 'type')) return true;
      const fn = c['function'];
      if (isPyDict(fn) && typeof fn['arguments'] !== 'string') return true;
    }
  }
  return false;
}

/** A tool-call entry as the offline path keeps it: a copy in the caller's key order (its `function` copied too). */
function copyToolCall(entry: unknown): unknown {
  if (!isPyDict(entry)) return entry;
  return makePyDict(pyEntries(entry).map(([k, v]) => [k, k === 'function' && isPyDict(v) ? makePyDict(pyEntries(v)) : v] as const));
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

/**
 * Build the conversation message vLLM hands to the template for request
 * message `index`. `offline`: the request takes vLLM's offline path (see
 * usesOfflineToolCalls): tool calls keep the caller's key order and
 * `reasoning_content` is not renamed to `reasoning`.
 */
export function buildMessage(raw: Record<string, unknown>, format: ContentFormat, index: number, offline = false): Record<string, unknown> {
  // renameReasoningContent without the copy: only `reasoning` can differ.
  // The rename is a validator of vLLM's HTTP request model, so the offline
  // path never applies it: there `reasoning_content` alone is not read.
  let reasoning = raw['reasoning'];
  if (!offline && has(raw, 'reasoning_content')) {
    const rc = raw['reasoning_content'];
    if (rc !== null && rc !== undefined && (reasoning === null || reasoning === undefined)) reasoning = rc;
  }
  const role = raw['role'];
  const content = normalizeContent(has(raw, 'content') ? raw['content'] : null, format, `messages[${index}].content`);
  // the keys are fixed ordinary names, so a plain object keeps this order
  const out: Record<string, unknown> = { role, content };
  if (role === 'assistant') {
    const toolCalls = raw['tool_calls'];
    if (has(raw, 'tool_calls') && toolCalls !== null && toolCalls !== undefined) {
      out['tool_calls'] = Array.isArray(toolCalls) ? toolCalls.map(offline ? copyToolCall : reorderToolCall) : toolCalls;
    }
    if (reasoning !== null && reasoning !== undefined) {
      out['reasoning'] = reasoning;
      out['reasoning_content'] = reasoning;
    }
  } else if (role === 'tool') {
    if (has(raw, 'tool_call_id')) out['tool_call_id'] = raw['tool_call_id'] ?? null;
    out['content'] = collapseToolContent(content);
  }
  const name = raw['name'];
  if (typeof name === 'string') out['name'] = name;
  const task = raw['task'];
  if (typeof task === 'string') out['task'] = task;
  if (role === 'developer') out['tools'] = has(raw, 'tools') ? (raw['tools'] ?? null) : null;
  return out;
}
