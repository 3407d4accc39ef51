/**
 * Reasoning parsers against real vLLM 0.25.0 (test/parsers/goldens/reasoning.json,
 * made by scripts/parser-goldens/generate.py from vLLM's own parser classes).
 * vLLM's empty strings are compared as null (our results never carry "").
 * Where vLLM loses text, the named deviation below gives our expected value.
 * Every streaming chunking must accumulate to our whole-text result.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REASONING_PARSERS, accumulateReasoning, createStreamingReasoningParser, parseReasoning } from '../../src/parsers/reasoning';
import type { ReasoningDelta, ReasoningOptions, ReasoningResult } from '../../src/parsers/reasoning';
import { CHUNKINGS } from './harness';

interface GoldenVector {
  id: string;
  text: string;
  reasoning?: string | null;
  content?: string | null;
  error?: string;
}
interface GoldenRun {
  parser: string;
  chat_template_kwargs: Record<string, unknown> | null;
  vectors: GoldenVector[];
}

const doc = JSON.parse(fs.readFileSync(path.join(__dirname, 'goldens', 'reasoning.json'), 'utf8')) as {
  provenance: { vllm: string };
  runs: Record<string, GoldenRun>;
};

/** Named deviations: run key -> vector id -> [why, our expected value]. */
export const REASONING_DEVIATIONS: Record<string, Record<string, [string, ReasoningResult]>> = {};
const TEXT_BEFORE_THINK: [string, ReasoningResult] = [
  'vLLM drops text before the first <think>; kept as reasoning (as its streaming path classifies it)',
  { reasoning: 'Intro. x', content: 'y' },
];
for (const run of ['deepseek_r1', 'deepseek_v3 {"thinking": true}']) REASONING_DEVIATIONS[run] = { text_before_start: TEXT_BEFORE_THINK };
REASONING_DEVIATIONS.gemma4 = {
  stray_close_inside: [
    "vLLM's whole-text parse makes the text before an unopened <channel|> reasoning, its streaming parse does not; classified from the start, as it streams",
    { reasoning: null, content: 'Answer more' },
  ],
};
REASONING_DEVIATIONS.granite = {
  text_before: ['vLLM drops text before the thought-process marker; kept as content', { reasoning: ' a ', content: 'Sure.  b' }],
};

function stream(chunks: string[], o: ReasoningOptions): ReasoningResult {
  const p = createStreamingReasoningParser(o);
  const deltas: ReasoningDelta[] = chunks.map((c) => p.push(c));
  deltas.push(p.end());
  for (const d of deltas) {
    if (d.reasoning !== undefined) expect(d.reasoning).not.toBe('');
    if (d.content !== undefined) expect(d.content).not.toBe('');
  }
  return accumulateReasoning(deltas);
}

describe('reasoning goldens', () => {
  it('were made by vLLM 0.25.0 and cover every vLLM-run parser in the registry', () => {
    expect(doc.provenance.vllm).toBe('0.25.0');
    const names = new Set(Object.values(doc.runs).map((r) => r.parser));
    for (const n of names) expect(REASONING_PARSERS).toContain(n);
  });

  for (const [key, run] of Object.entries(doc.runs)) {
    const opts: ReasoningOptions = { parser: run.parser, chatTemplateKwargs: run.chat_template_kwargs ?? undefined };
    describe(key, () => {
      it.each(run.vectors)('$id', (v) => {
        expect(v.error, `vLLM raised: ${v.error}`).toBeUndefined();
        const dev = REASONING_DEVIATIONS[key]?.[v.id];
        const expected = dev ? dev[1] : { reasoning: v.reasoning || null, content: v.content || null };
        const whole = parseReasoning(v.text, opts);
        expect(whole).toEqual(expected);
        if (dev) expect({ reasoning: v.reasoning || null, content: v.content || null }).not.toEqual(expected);
        for (const c of CHUNKINGS) expect(stream(c.split(v.text), opts), c.label).toEqual(whole);
      });
    });
  }
});
