/**
 * GLM-4.5 / 4.6 / 4.7 (`glm45`, `glm47`): `<think>`/`</think>`, reasoning
 * from the first character unless `thinking`/`enable_thinking` are given and
 * both falsy; a `<think>` in content opens reasoning again; `<tool_call>`
 * ends reasoning implicitly. Trailing reasoning whitespace is dropped.
 */
import { IdentityMachine, TagReasoningMachine, engineTags, thinkingKwarg } from './machine';
import type { ReasoningOptions } from './types';

const FORMAT = engineTags('<think>', '</think>', '<tool_call>', { stripTrailingReasoningWs: true, reopenInContent: true });

export const glm45 = (o: ReasoningOptions) => (thinkingKwarg(o) === false ? new IdentityMachine(o) : new TagReasoningMachine(o, FORMAT));
