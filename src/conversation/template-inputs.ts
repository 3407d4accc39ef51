/**
 * What transformers (5.24, installed with vLLM 0.25.0) does to the
 * conversation before rendering: drop the top-level message keys whose value
 * is None, and alias reasoning fields (`thinking` first, `reasoning_content`
 * set) when any of reasoning_content / thinking / reasoning is not None.
 */

import { makePyDict, PY_KEYS, pyEntries } from '../protocol/pyjson';

const REASONING_FIELDS = ['reasoning_content', 'thinking', 'reasoning'];

/** True when normalisation would rebuild `m` with the same keys and values (no None values, no reasoning fields). */
function alreadyNormal(m: Record<string, unknown>): boolean {
  if ((m as { [PY_KEYS]?: unknown })[PY_KEYS] !== undefined) return false;
  for (const k in m) {
    if (!Object.prototype.hasOwnProperty.call(m, k)) continue;
    const v = m[k];
    if (v === null || v === undefined || k === 'reasoning_content' || k === 'thinking' || k === 'reasoning' || k === '__proto__') {
      return false;
    }
  }
  return true;
}

export function normalizeForTemplate(messages: Record<string, unknown>[]): Record<string, unknown>[] {
  return messages.map((m) => {
    // The messages are the freshly built conversation (nothing else holds
    // them), so one that needs no change is passed through instead of copied.
    if (alreadyNormal(m)) return m;
    const kept = pyEntries(m).filter(([, v]) => v !== null && v !== undefined);
    const dict = Object.fromEntries(kept.filter(([k]) => k !== '__proto__')) as Record<string, unknown>;
    const field = REASONING_FIELDS.find((k) => kept.some(([key]) => key === k) && dict[k] !== null && dict[k] !== undefined);
    if (field === undefined) return makePyDict(kept) as Record<string, unknown>;
    const reasoning = dict[field];
    return makePyDict([['thinking', reasoning], ...kept, ['reasoning_content', reasoning]]) as Record<string, unknown>;
  });
}
