/** Message content normalisation (vLLM `_parse_chat_message_content_parts`, text-only). */

import { RequestValidationError } from '../errors';
import { isPyDict, makePyDict, pyTruthy } from '../protocol/pyjson';
import type { ContentFormat } from './types';

export const TEXT_PART_TYPES: ReadonlySet<string> = new Set(['text', 'input_text', 'output_text', 'refusal', 'thinking']);
export const MEDIA_PART_TYPES: ReadonlySet<string> = new Set([
  'image_url', 'input_image', 'image_embeds', 'image_pil', 'audio_url', 'input_audio', 'audio_embeds', 'video_url',
  'prompt_embeds', 'file', 'input_file',
]);

const VLLM_SUPPORTED_PART_TYPES = [
  'audio_embeds', 'audio_url', 'image_embeds', 'image_pil', 'image_url', 'input_audio', 'input_image', 'input_text',
  'output_text', 'prompt_embeds', 'refusal', 'text', 'thinking', 'tool_reference', 'video_url',
].join(', ');

/** The text a part contributes, or undefined when the part is skipped. */
function partValue(part: unknown, path: string, wrap: boolean): unknown {
  if (typeof part === 'string') return wrap ? makePyDict([['type', 'text'], ['text', part]]) : part;
  if (!isPyDict(part)) throw new RequestValidationError(`${path}: content parts must be strings or objects`, path);
  const type = part['type'];
  if (type === undefined || type === null) {
    if ('tool_reference' in part) return toolReference(part, wrap);
    for (const k of ['image_url', 'image_pil', 'image_embeds', 'audio_embeds', 'audio_url', 'input_audio', 'video_url']) {
      if (k in part) throw mediaError(k, path);
    }
    throw new RequestValidationError(`${path}: Missing 'type' field in multimodal part.`, `${path}.type`);
  }
  if (typeof type !== 'string') throw new RequestValidationError(`${path}: Invalid 'type' field in multimodal part.`, `${path}.type`);
  if (TEXT_PART_TYPES.has(type)) {
    const key = type === 'refusal' ? 'refusal' : type === 'thinking' ? 'thinking' : 'text';
    const value = Object.prototype.hasOwnProperty.call(part, key) ? part[key] : null;
    if (value === null && (type === 'text' || type === 'refusal')) return undefined; // skipped (vLLM logs a warning)
    return wrap ? makePyDict([['type', 'text'], ['text', value]]) : value;
  }
  if (type === 'tool_reference') return toolReference(part, wrap);
  if (MEDIA_PART_TYPES.has(type)) throw mediaError(type, path);
  throw new RequestValidationError(
    `${path}: Unsupported chat content part type: '${type}'. Supported types: ${VLLM_SUPPORTED_PART_TYPES}.`,
    `${path}.type`,
  );
}

function toolReference(part: Record<string, unknown>, wrap: boolean): unknown {
  const name = part['name'] ?? null;
  return wrap ? makePyDict([['type', 'tool_reference'], ['name', name]]) : name;
}

function mediaError(type: string, path: string): RequestValidationError {
  return new RequestValidationError(
    `${path}: content part type '${type}' is not supported: media inputs cannot be rendered by this package (text only)`,
    `${path}.type`,
  );
}

/**
 * Normalise a message's `content`: `string` format -> the text parts joined
 * with "\n" (falsy parts dropped, no parts -> ""); `openai` format -> a list of
 * `{"type": "text", "text": ...}` dicts (a string becomes a one-element list,
 * null -> []).
 */
export function normalizeContent(content: unknown, format: ContentFormat, path: string): unknown {
  const wrap = format === 'openai';
  // the common shapes, without building the intermediate part list
  if (content === null || content === undefined) return wrap ? [] : '';
  if (typeof content === 'string') return wrap ? [{ type: 'text', text: content }] : content;
  if (!Array.isArray(content)) {
    throw new RequestValidationError(`${path}: Expected string, array or null, received ${typeof content}`, path);
  }
  const out: unknown[] = [];
  for (let j = 0; j < content.length; j++) {
    const v = partValue(content[j], `${path}[${j}]`, wrap);
    if (pyTruthy(v)) out.push(v);
  }
  if (wrap) return out;
  let text = '';
  for (let j = 0; j < out.length; j++) {
    const t = out[j];
    text += (j ? '\n' : '') + (typeof t === 'string' ? t : String(t));
  }
  return text;
}

/** vLLM collapses a tool message's all-text list content to a joined string. */
export function collapseToolContent(content: unknown): unknown {
  if (!Array.isArray(content)) return content;
  const hasNonText = content.some((item) => isPyDict(item) && item['type'] !== 'text');
  if (hasNonText) return content;
  const texts = content
    .filter((item) => isPyDict(item) && item['type'] === 'text')
    .map((item) => {
      const d = item as Record<string, unknown>;
      return Object.prototype.hasOwnProperty.call(d, 'text') ? d['text'] : '';
    });
  return texts.length ? texts.join('\n') : '';
}
