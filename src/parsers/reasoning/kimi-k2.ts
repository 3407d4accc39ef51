/**
 * Kimi K2 (`kimi_k2`): `<think>`/`</think>`, reasoning from the first
 * character unless `thinking`/`enable_thinking` are given and both falsy;
 * `<|tool_calls_section_begin|>` ends reasoning implicitly. Trailing
 * reasoning whitespace is dropped.
 */
import { IdentityMachine, TagReasoningMachine, engineTags, thinkingKwarg } from './machine';
import type { ReasoningOptions } from './types';

const FORMAT = engineTags('<think>', '</think>', '<|tool_calls_section_begin|>', { stripTrailingReasoningWs: true });

export const kimiK2 = (o: ReasoningOptions) => (thinkingKwarg(o) === false ? new IdentityMachine(o) : new TagReasoningMachine(o, FORMAT));
