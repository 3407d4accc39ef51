/**
 * Step3 (`step3`): everything before the first `</think>` is reasoning
 * (a `<think>` is not removed), everything after it content.
 */
import { TagReasoningMachine } from './machine';
import type { ReasoningOptions } from './types';

export const step3 = (o: ReasoningOptions) =>
  new TagReasoningMachine(o, {
    start: '<think>',
    end: '</think>',
    initial: 'reasoning',
    startInReasoning: 'text',
    startInContent: o.promptEndsInReasoning === false ? 'openFirst' : 'text',
    endInContent: 'text',
  });
