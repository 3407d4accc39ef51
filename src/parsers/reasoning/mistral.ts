/**
 * Mistral (`mistral`): `[THINK]REASONING[/THINK]`. Without `[THINK]` the
 * output is content; text before `[THINK]` and after `[/THINK]` is content;
 * a `[/THINK]` without a preceding `[THINK]` is dropped.
 */
import { TagReasoningMachine } from './machine';
import type { ReasoningOptions } from './types';

export const mistral = (o: ReasoningOptions) =>
  new TagReasoningMachine(o, {
    start: '[THINK]',
    end: '[/THINK]',
    initial: 'content',
    startInReasoning: 'text',
    startInContent: 'openFirst',
    endInContent: 'dropFirstBeforeStart',
  });
