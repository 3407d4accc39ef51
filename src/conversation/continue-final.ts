/**
 * `continue_final_message` as transformers implements it: append a tag to the
 * final message's text before rendering, then cut the rendered prompt at the
 * tag's last occurrence.
 */

import { TemplateRuntimeError } from '../errors';
import { isPyDict, makePyDict, pyDeepCopy, pyEntries } from '../protocol/pyjson';
import type { ContinueFinalState } from './types';

export const CONTINUE_FINAL_MESSAGE_TAG = 'CONTINUE_FINAL_MESSAGE_TAG ';

function valueError(message: string): TemplateRuntimeError {
  const e = new TemplateRuntimeError(message);
  e.pythonType = 'ValueError';
  return e;
}

/** Python's `str.isspace` set, for strip()/rstrip(). */
const PY_SPACE = /[\t\n\v\f\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/;
export function pyRstrip(s: string): string {
  let end = s.length;
  while (end > 0 && PY_SPACE.test(s[end - 1]!)) end--;
  return s.slice(0, end);
}
export function pyStrip(s: string): string {
  let start = 0;
  while (start < s.length && PY_SPACE.test(s[start]!)) start++;
  return pyRstrip(s.slice(start));
}

/**
 * Returns a copy of `messages` whose final message carries the tag, and the
 * state `cutContinueFinal` needs. `templateSource`, when given, is checked
 * for the word `content` as transformers does.
 */
export function prepareContinueFinal(
  messages: readonly unknown[],
  templateSource?: string,
): { messages: unknown[]; state: ContinueFinalState } {
  if (messages.length === 0) throw valueError('continue_final_message is set but the conversation is empty!');
  const copy = pyDeepCopy(messages as unknown[]);
  const last = copy[copy.length - 1];
  const content = isPyDict(last) ? last['content'] : undefined;
  if (content === null || content === undefined) {
    throw valueError('continue_final_message is set but the final message has no "content" to continue!');
  }
  if (templateSource !== undefined && !templateSource.includes('content')) {
    throw valueError('continue_final_message is set to "content" but this is not an accepted field in the chat_template');
  }
  const tag = CONTINUE_FINAL_MESSAGE_TAG;
  let finalText: string;
  if (Array.isArray(content)) {
    let found = -1;
    for (let i = content.length - 1; i >= 0; i--) {
      const block = content[i];
      if (isPyDict(block) && Object.prototype.hasOwnProperty.call(block, 'text')) {
        found = i;
        break;
      }
    }
    if (found < 0) throw valueError('continue_final_message is set but we could not find any text to continue in the final message!');
    const block = content[found] as Record<string, unknown>;
    finalText = String(block['text']);
    content[found] = makePyDict(pyEntries(block).map(([k, v]) => [k, k === 'text' ? finalText + tag : v] as const));
  } else {
    finalText = String(content);
    (last as Record<string, unknown>)['content'] = finalText + tag;
  }
  return { messages: copy, state: { tag, finalText } };
}

/** Cut the rendered prompt at the tag (transformers' post-render step). */
export function cutContinueFinal(prompt: string, state: ContinueFinalState): string {
  const tagStripped = pyStrip(state.tag);
  const finalStripped = pyStrip(state.finalText);
  if (!prompt.includes(finalStripped) || !prompt.includes(tagStripped)) {
    throw valueError(
      'continue_final_message is set but the final message does not appear in the chat after applying the chat template! ' +
        'This can happen if the chat template deletes portions of the final message. Please verify the chat template and ' +
        `final message in your chat to ensure they are compatible.Final message to continue: ${finalStripped}\nRendered chat:\n${prompt}`,
    );
  }
  const loc = prompt.lastIndexOf(tagStripped);
  if (prompt.slice(loc, loc + state.tag.length) === state.tag) return prompt.slice(0, loc);
  return pyRstrip(prompt.slice(0, loc));
}
