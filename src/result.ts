/**
 * The renderChat result object, made in one place for every path (render.ts,
 * the async pool), so its members always come in the same order.
 */

import type { ContentFormat } from './conversation';
import { defineLazy } from './lazy';
import type { Backend, RenderChatResult } from './render';

/** A member's value, or the function that makes it on first read. */
export type Member<T> = T | (() => T);

/**
 * A result with its members in their order; `messages` or `tools` given as a
 * function is made on its first read (defineLazy). Such a member is an
 * accessor from the start: a data member turned into an accessor afterwards
 * would leave the object in V8's dictionary mode.
 */
export function chatResult(
  prompt: string,
  messages: Member<unknown[]>,
  tools: Member<unknown[] | null>,
  contentFormat: ContentFormat,
  warnings: string[],
  templateHash: string,
  backend: Backend,
): RenderChatResult {
  const result = { prompt } as RenderChatResult;
  if (typeof messages === 'function') defineLazy(result, 'messages', messages);
  else result.messages = messages;
  if (typeof tools === 'function') defineLazy(result, 'tools', tools);
  else result.tools = tools;
  result.contentFormat = contentFormat;
  result.warnings = warnings;
  result.templateHash = templateHash;
  result.backend = backend;
  return result;
}
