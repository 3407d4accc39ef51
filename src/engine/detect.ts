/**
 * Default parsers for a chat template, when the caller names none (as
 * `--tool-call-parser` / `--reasoning-parser` would). The rules look for the
 * wire markers the template renders; the first rule that matches and names a
 * registered parser wins. Name the parsers explicitly to override.
 *
 * Tool calls:  `<|tool_call>` gemma4 · `<｜DSML｜` deepseek_v32 ·
 * `<｜tool▁calls▁begin｜>` deepseek_v3 (with a ```json block) or deepseek_v31 ·
 * `<function=` qwen3_coder · `<arg_key>` glm45 · `<tool_call>` hermes ·
 * `[TOOL_CALLS]` mistral · `<|python_tag|>` llama3_json · `<tool_calls>` hunyuan_a13b.
 * Reasoning:   `[THINK]` mistral · `<|channel|>` (harmony) openai ·
 * `<think>` qwen3 in ChatML templates (`<|im_start|>`), else deepseek_r1.
 */
import { TOOL_PARSERS } from '../parsers';
import { REASONING_PARSERS } from '../parsers/reasoning';

type Rule = [test: (src: string) => boolean, parser: string];

const has = (marker: string) => (src: string) => src.includes(marker);

const TOOL_RULES: Rule[] = [
  [has('<|tool_call>'), 'gemma4'],
  [has('<｜DSML｜'), 'deepseek_v32'],
  [(s) => s.includes('<｜tool▁calls▁begin｜>') && s.includes('```json'), 'deepseek_v3'],
  [has('<｜tool▁calls▁begin｜>'), 'deepseek_v31'],
  [has('<function='), 'qwen3_coder'],
  [has('<arg_key>'), 'glm45'],
  [has('<tool_call>'), 'hermes'],
  [has('[TOOL_CALLS]'), 'mistral'],
  [has('<|python_tag|>'), 'llama3_json'],
  [has('<tool_calls>'), 'hunyuan_a13b'],
];

const REASONING_RULES: Rule[] = [
  [has('[THINK]'), 'mistral'],
  [has('<|channel|>'), 'openai'],
  [(s) => s.includes('<think>') && s.includes('<|im_start|>'), 'qwen3'],
  [has('<think>'), 'deepseek_r1'],
];

function first(rules: Rule[], src: string, registry: readonly string[]): string | undefined {
  for (const [test, parser] of rules) if (test(src) && registry.includes(parser)) return parser;
  return undefined;
}

export function detectParsers(templateSource: string): { toolCallParser?: string; reasoningParser?: string } {
  return {
    toolCallParser: first(TOOL_RULES, templateSource, TOOL_PARSERS),
    reasoningParser: first(REASONING_RULES, templateSource, REASONING_PARSERS),
  };
}
