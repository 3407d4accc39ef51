/**
 * Qwen3 (`qwen3`) and Seed-OSS (`seed_oss`): vLLM's parser engine for
 * `<think>`/`</think>` (Seed: `<seed:think>`/`</seed:think>`). Unless
 * `chat_template_kwargs.enable_thinking` is given and falsy, the output is
 * reasoning from its first character (the Qwen3 templates open `<think>` in
 * the prompt); start tags inside reasoning and end tags in content are
 * dropped; a tool-call start tag ends reasoning implicitly and stays in the
 * content. With thinking disabled the output is content, unchanged.
 * Reasoning whitespace is kept as written.
 */
import { IdentityMachine, TagReasoningMachine, engineTags, pyTruthy } from './machine';
import type { TagFormat } from './machine';
import type { ReasoningOptions } from './types';

function qwenStyle(o: ReasoningOptions, f: TagFormat) {
  const kw = o.chatTemplateKwargs ?? {};
  // `chat_template_kwargs.get("enable_thinking", True)`: a present key decides, even when null.
  const enabled = Object.prototype.hasOwnProperty.call(kw, 'enable_thinking') ? pyTruthy(kw.enable_thinking) : true;
  return enabled ? new TagReasoningMachine(o, f) : new IdentityMachine(o);
}

export const QWEN3_FORMAT = engineTags('<think>', '</think>', '<tool_call>', { stripTrailingReasoningWs: false });
export const SEED_OSS_FORMAT = engineTags('<seed:think>', '</seed:think>', '<seed:tool_call>', { stripTrailingReasoningWs: false });

export const qwen3 = (o: ReasoningOptions) => qwenStyle(o, QWEN3_FORMAT);
export const seedOss = (o: ReasoningOptions) => qwenStyle(o, SEED_OSS_FORMAT);
