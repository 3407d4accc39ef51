/**
 * Default parsers for a chat template, by the wire markers it renders (what
 * one would pass as `--tool-call-parser` / `--reasoning-parser`). The first
 * matching rule wins; name parsers explicitly to override.
 *
 * Tool calls, in order: `<|tool_call>` gemma4 · `<｜DSML｜` deepseek_v32 ·
 * `<｜tool▁calls▁begin｜>` deepseek_v3 with a ```json block, else deepseek_v31 ·
 * `<function=` qwen3_coder · `<arg_key>` glm45 · `<minimax:tool_call>` minimax_m2 ·
 * `<|tool_calls_section_begin|>` kimi_k2 · `<seed:tool_call>` seed_oss ·
 * `<|channel|>` openai (Harmony) · `<start_function_call>` functiongemma ·
 * `<|action_start|>` internlm · `functools[` phi4_mini_json · `<|tool_call|>` granite ·
 * `<tool_calls>` hunyuan_a13b · `<tool_call>` hermes · `[TOOL_CALLS]` mistral ·
 * Llama 4 headers with a `"parameters"` JSON example llama4_json · `<|python_start|>` llama4_pythonic ·
 * `[func_name1(` (a pythonic example) pythonic · `<|python_tag|>`, or Llama 3 headers with a
 * `"parameters"` JSON example, llama3_json.
 *
 * Reasoning: `<|channel>` (Gemma 4) gemma4 · `[THINK]` mistral · `<|channel|>` openai_gptoss · `<seed:think>` seed_oss ·
 * with `<think>`: glm45 (`<arg_key>`), kimi_k2, minimax_m2, hunyuan_a13b (`<tool_calls>`),
 * deepseek_v3 (DeepSeek markers and a `thinking` switch: V3.1/V3.2), deepseek_r1 (DeepSeek
 * markers without one), qwen3 (ChatML `<|im_start|>`), else deepseek_r1.
 */
export interface DetectedParsers {
  toolCallParser?: string;
  reasoningParser?: string;
}

type Rule = [test: (src: string) => boolean, parser: string];
const has = (...markers: string[]) => (src: string) => markers.every((m) => src.includes(m));

const TOOL_RULES: Rule[] = [
  [has('<|tool_call>'), 'gemma4'],
  [has('<｜DSML｜'), 'deepseek_v32'],
  [has('<｜tool▁calls▁begin｜>', '```json'), 'deepseek_v3'],
  [has('<｜tool▁calls▁begin｜>'), 'deepseek_v31'],
  [has('<function='), 'qwen3_coder'],
  [has('<arg_key>'), 'glm45'],
  [has('<minimax:tool_call>'), 'minimax_m2'],
  [has('<|tool_calls_section_begin|>'), 'kimi_k2'],
  [has('<seed:tool_call>'), 'seed_oss'],
  [has('<|channel|>'), 'openai'],
  [has('<start_function_call>'), 'functiongemma'],
  [has('<|action_start|>'), 'internlm'],
  [has('functools'), 'phi4_mini_json'],
  [has('<|tool_call|>'), 'granite'],
  [has('<tool_calls>'), 'hunyuan_a13b'],
  [has('<tool_call>'), 'hermes'],
  [has('[TOOL_CALLS]'), 'mistral'],
  [has('<|header_start|>', '"parameters"'), 'llama4_json'],
  [has('<|python_start|>'), 'llama4_pythonic'],
  [has('[func_name1('), 'pythonic'],
  [has('<|python_tag|>'), 'llama3_json'],
  [has('<|start_header_id|>', '"parameters"'), 'llama3_json'],
];

const REASONING_RULES: Rule[] = [
  [has('<|channel>'), 'gemma4'],
  [has('[THINK]'), 'mistral'],
  [has('<|channel|>'), 'openai_gptoss'],
  [has('<seed:think>'), 'seed_oss'],
  [has('<think>', '<arg_key>'), 'glm45'],
  [has('<think>', '<|tool_calls_section_begin|>'), 'kimi_k2'],
  [has('<think>', '<minimax:tool_call>'), 'minimax_m2'],
  [has('<think>', '<tool_calls>'), 'hunyuan_a13b'],
  [has('<think>', '<｜Assistant｜>', 'thinking'), 'deepseek_v3'],
  [has('<think>', '<｜Assistant｜>'), 'deepseek_r1'],
  [has('<think>', '<|im_start|>'), 'qwen3'],
  [has('<think>'), 'deepseek_r1'],
];

function first(rules: Rule[], src: string): string | undefined {
  for (const [test, parser] of rules) if (test(src)) return parser;
  return undefined;
}

/** The tool-call and reasoning parsers a chat template's markers call for (absent when none fits). */
export function detectParsers(templateSource: string): DetectedParsers {
  const out: DetectedParsers = {};
  const tool = first(TOOL_RULES, templateSource);
  const reasoning = first(REASONING_RULES, templateSource);
  if (tool) out.toolCallParser = tool;
  if (reasoning) out.reasoningParser = reasoning;
  return out;
}
