/**
 * vLLM converts `developer` messages to `system` when the template does not
 * mention the role, then merges all system messages into one at the front.
 */

import { isPyDict, makePyDict, pyEntries, pyTruthy } from '../protocol/pyjson';

let lastSource: string | undefined;
let lastSupports = false;

export function templateSupportsDeveloper(source: string): boolean {
  if (source === lastSource) return lastSupports; // the same template is rendered again and again
  lastSupports = source.includes('"developer"') || source.includes("'developer'");
  lastSource = source;
  return lastSupports;
}

export function convertDeveloperToSystem(conversation: Record<string, unknown>[]): Record<string, unknown>[] {
  if (!conversation.some((m) => m['role'] === 'developer')) return conversation;
  const converted = conversation.map((m) =>
    m['role'] === 'developer'
      ? (makePyDict(pyEntries(m).filter(([k]) => k !== 'tools').map(([k, v]) => [k, k === 'role' ? 'system' : v] as const)) as Record<string, unknown>)
      : m,
  );
  return consolidateSystemMessages(converted);
}

function consolidateSystemMessages(conversation: Record<string, unknown>[]): Record<string, unknown>[] {
  const contents: unknown[] = [];
  const others: Record<string, unknown>[] = [];
  let needs = false;
  conversation.forEach((m, i) => {
    if (m['role'] !== 'system') {
      others.push(m);
      return;
    }
    if (i > 0 || contents.length) needs = true;
    let content: unknown = Object.prototype.hasOwnProperty.call(m, 'content') ? m['content'] : '';
    if (Array.isArray(content)) {
      const parts: unknown[] = [];
      for (const part of content) {
        if (isPyDict(part) && Object.prototype.hasOwnProperty.call(part, 'text')) parts.push(part['text']);
        else if (typeof part === 'string') parts.push(part);
      }
      content = parts.join('\n');
    }
    if (pyTruthy(content)) contents.push(content);
  });
  if (!needs) return conversation;
  return [makePyDict([['role', 'system'], ['content', contents.join('\n\n')]]) as Record<string, unknown>, ...others];
}
