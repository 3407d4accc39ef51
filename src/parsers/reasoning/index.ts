/**
 * Reasoning parsers: model output -> `{ reasoning, content }`, whole-text
 * and streaming. Names follow vLLM's `--reasoning-parser`. vLLM applies the
 * reasoning parser first and gives the content to the tool-call parser;
 * callers do the same.
 */
import { ToolParseError } from '../types';
import { deepseekR1 } from './deepseek-r1';
import { deepseekV3 } from './deepseek-v3';
import { Gemma4ReasoningMachine } from './gemma4';
import { glm45 } from './glm45';
import { GraniteMachine } from './granite';
import { HunyuanMachine } from './hunyuan-a13b';
import { kimiK2 } from './kimi-k2';
import type { ReasoningMachine } from './machine';
import { minimaxM2, minimaxM2AppendThink } from './minimax-m2';
import { mistral } from './mistral';
import { Olmo3Machine } from './olmo3';
import { HarmonyReasoningMachine } from './openai';
import { qwen3, seedOss } from './qwen3';
import { step3 } from './step3';
import type { ReasoningDelta, ReasoningOptions, ReasoningResult, StreamingReasoningParser } from './types';

export type { ReasoningDelta, ReasoningOptions, ReasoningResult, StreamingReasoningParser } from './types';

const FACTORIES: Record<string, (o: ReasoningOptions) => ReasoningMachine> = {
  deepseek_r1: deepseekR1,
  deepseek_v3: deepseekV3,
  qwen3,
  seed_oss: seedOss,
  glm45,
  glm47: glm45,
  kimi_k2: kimiK2,
  minimax_m2: minimaxM2,
  minimax_m2_append_think: minimaxM2AppendThink,
  mistral,
  step3,
  olmo3: (o) => new Olmo3Machine(o),
  granite: (o) => new GraniteMachine(o),
  hunyuan_a13b: (o) => new HunyuanMachine(o),
  gemma4: (o) => new Gemma4ReasoningMachine(o),
  openai_gptoss: (o) => new HarmonyReasoningMachine(o),
  // Aliases for the gpt-oss Harmony format.
  openai: (o) => new HarmonyReasoningMachine(o),
  'gpt-oss': (o) => new HarmonyReasoningMachine(o),
};

export const REASONING_PARSERS: readonly string[] = Object.freeze(Object.keys(FACTORIES));

function machineFor(opts: ReasoningOptions): ReasoningMachine {
  const f = Object.prototype.hasOwnProperty.call(FACTORIES, opts.parser) ? FACTORIES[opts.parser] : undefined;
  if (!f) {
    throw new ToolParseError(`Unknown reasoning parser "${String(opts.parser)}". Known parsers: ${REASONING_PARSERS.join(', ')}`);
  }
  return f(opts);
}

export function createStreamingReasoningParser(opts: ReasoningOptions): StreamingReasoningParser {
  return machineFor(opts);
}

/** Fold reasoning deltas into the final split (empty -> null). */
export function accumulateReasoning(deltas: readonly ReasoningDelta[]): ReasoningResult {
  let reasoning = '';
  let content = '';
  for (const d of deltas) {
    if (d.reasoning) reasoning += d.reasoning;
    if (d.content) content += d.content;
  }
  return { reasoning: reasoning || null, content: content || null };
}

/** Split a complete output; the streaming parser fed the whole text, so both always agree. */
export function parseReasoning(text: string, opts: ReasoningOptions): ReasoningResult {
  const m = machineFor(opts);
  return accumulateReasoning([m.push(text), m.end()]);
}
