/**
 * What transformers (5.24, installed with vLLM 0.25.0) does to the
 * conversation before rendering: drop the top-level message keys whose value
 * is None, and alias reasoning fields (`thinking` first, `reasoning_content`
 * set) when any of reasoning_content / thinking / reasoning is not None.
 */

import { makePyDict, pyEntries } from '../protocol/pyjson';

const REASONING_FIELDS = ['reasoning_content', 'thinking', 'reasoning'];

export function normalizeForTemplate(messages: Record<string, unknown>[]): Record<string, unknown>[] {
  return messages.map((m) => {
    const kept = pyEntries(m).filter(([, v]) => v !== null && v !== undefined);
    const dict = Object.fromEntries(kept.filter(([k]) => k !== '__proto__')) as Record<string, unknown>;
    const field = REASONING_FIELDS.find((k) => kept.some(([key]) => key === k) && dict[k] !== null && dict[k] !== undefined);
    if (field === undefined) return makePyDict(kept) as Record<string, unknown>;
    const reasoning = dict[field];
    return makePyDict([['thinking', reasoning], ...kept, ['reasoning_content', reasoning]]) as Record<string, unknown>;
  });
}
