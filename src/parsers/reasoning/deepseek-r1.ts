/**
 * DeepSeek R1 (`deepseek_r1`): `<think>REASONING</think>CONTENT`. The output
 * is reasoning from its first character: R1 templates put `<think>` in the
 * prompt, so the model often writes only `</think>`. The output's first
 * `<think>` is dropped; without `</think>` everything is reasoning.
 *
 * Deliberate difference: vLLM's non-streaming parser drops any text before
 * the first `<think>`; it is kept here, as reasoning (as vLLM's streaming
 * parser classifies it).
 */
import { TagReasoningMachine } from './machine';
import type { TagFormat } from './machine';
import type { ReasoningOptions } from './types';

export const DEEPSEEK_R1_FORMAT: TagFormat = {
  start: '<think>',
  end: '</think>',
  initial: 'reasoning',
  startInReasoning: 'dropFirst',
  startInContent: 'openFirst',
  endInContent: 'text',
};

export const deepseekR1 = (o: ReasoningOptions) => new TagReasoningMachine(o, DEEPSEEK_R1_FORMAT);
