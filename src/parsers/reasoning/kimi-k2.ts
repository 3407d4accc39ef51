/**
 * Kimi K2 (`kimi_k2`): `<think>`/`</think>`, reasoning from the first
 * character unless `thinking`/`enable_thinking` are given and both falsy;
 * `<|tool_calls_section_begin|>` ends reasoning implicitly. Trailing
 * reasoning whitespace is dropped.
 */
import { IdentityMachine, TagReasoningMachine, thinkingKwarg } from './machine';
import type { ReasoningOptions } from './types';

export const kimiK2 = (o: ReasoningOptions) =>
  thinkingKwarg(o) === false
    ? new IdentityMachine(o)
    : new TagReasoningMachine(o, {
        start: '<think>',
        end: '</think>',
        initial: 'reasoning',
        startInReasoning: 'drop',
        startInContent: 'text',
        endInContent: 'drop',
        implicitEnd: ['<|tool_calls_section_begin|>'],
        stripTrailingReasoningWs: true,
      });
