/**
 * What the vLLM goldens cannot cover: the gpt-oss Harmony tool calls (vLLM
 * parses them from token ids with openai-harmony; expected values written
 * from the Harmony specification), tool types other than functions, and
 * the default parsers picked for each shared template.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import { detectParsers, parseToolCalls } from '../../src/parsers';
import { goldenDirs } from '../../src/golden/suite';
import { CHUNKINGS, accumulate, parseWhole } from './harness';

function check(text: string, parser: string, expected: { content: string | null; calls: [string, string][] }): void {
  const r = parseWhole(text, { parser });
  expect({ content: r.content, calls: r.tool_calls.map((c) => [c.function.name, c.function.arguments]) }).toEqual(expected);
  for (const c of CHUNKINGS) expect(accumulate(c.split(text), { parser }), c.label).toEqual(r);
}

const CALL = (name: string, args: string, lead = '<|start|>assistant') =>
  `${lead}<|channel|>commentary to=functions.${name} <|constrain|>json<|message|>${args}<|call|>`;

describe('openai (Harmony tool calls, from the specification)', () => {
  it('a function-addressed message is a call', () =>
    check(CALL('get_weather', '{"city":"Paris"}'), 'openai', { content: null, calls: [['get_weather', '{"city": "Paris"}']] }));
  it('the recipient may come before the channel, right after the prompt', () =>
    check(' to=functions.get_weather<|channel|>commentary json<|message|>{"city": "Paris"}<|call|>', 'openai', {
      content: null,
      calls: [['get_weather', '{"city": "Paris"}']],
    }));
  it('final and recipient-less commentary messages are content; analysis is not', () =>
    check(
      '<|channel|>analysis<|message|>think<|end|><|start|>assistant<|channel|>commentary<|message|>Checking.<|end|>' +
        CALL('get_time', '{}') +
        '<|start|>assistant<|channel|>final<|message|>Done.<|return|>',
      'openai',
      { content: 'Checking.\nDone.', calls: [['get_time', '{}']] },
    ));
  it('arguments that are not JSON give a call without arguments; built-in tools are not calls', () =>
    check(CALL('f', '{oops') + '<|start|>assistant<|channel|>commentary to=browser.search<|message|>{}<|call|>', 'openai', {
      content: null,
      calls: [['f', '']],
    }));
  it('plain text without Harmony headers is content', () => check('Hello.', 'openai', { content: 'Hello.', calls: [] }));
});

describe('tools of other types', () => {
  it("accepts the openai package's ChatCompletionTool[] and ignores custom tools for schemas", () => {
    const tools: ChatCompletionTool[] = [
      { type: 'custom', custom: { name: 'get_weather', description: 'free text' } },
      { type: 'function', function: { name: 'set', parameters: { type: 'object', properties: { n: { type: 'integer' } } } } },
    ];
    const text = '<tool_call>get_weather\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call><tool_call>set\n<arg_key>n</arg_key>\n<arg_value>3</arg_value>\n</tool_call>';
    const r = parseToolCalls(text, { parser: 'glm45', tools });
    // No schema for the custom tool: its value stays a string; the function tool's is typed.
    expect(r.tool_calls.map((c) => c.function.arguments)).toEqual(['{"days": "3"}', '{"n": 3}']);
  });
});

const templatesDir = goldenDirs().templates;

// The parsers each shared template's output calls for (vLLM's recommended pairs).
const EXPECTED_DEFAULTS: Record<string, { toolCallParser?: string; reasoningParser?: string }> = {
  'deepseek_v3_1__vllm_example.jinja': { toolCallParser: 'deepseek_v31', reasoningParser: 'deepseek_v3' },
  'deepseek_v3_2__vllm_example.jinja': { toolCallParser: 'deepseek_v31', reasoningParser: 'deepseek_v3' },
  'deepseek_v3__official.jinja': { toolCallParser: 'deepseek_v3', reasoningParser: 'deepseek_r1' },
  'functiongemma__official.jinja': { toolCallParser: 'functiongemma' },
  'gemma4__official_v4.jinja': { toolCallParser: 'gemma4', reasoningParser: 'gemma4' },
  'gemma4__vllm_example.jinja': { toolCallParser: 'gemma4', reasoningParser: 'gemma4' },
  'glm4_5__official_glm4moe.jinja': { toolCallParser: 'glm45', reasoningParser: 'glm45' },
  'gpt_oss__official.jinja': { toolCallParser: 'openai', reasoningParser: 'openai_gptoss' },
  'granite__vllm_example.jinja': { toolCallParser: 'granite' },
  'hermes__vllm_example.jinja': { toolCallParser: 'hermes' },
  'hunyuan_a13b__vllm_example.jinja': { toolCallParser: 'hunyuan_a13b', reasoningParser: 'hunyuan_a13b' },
  'internlm2__vllm_tool.jinja': { toolCallParser: 'internlm' },
  'kimi_k2__thinking.jinja': { toolCallParser: 'kimi_k2', reasoningParser: 'kimi_k2' },
  'llama3_1__vllm_json.jinja': { toolCallParser: 'llama3_json' },
  'llama3_2__official_3b_instruct.jinja': { toolCallParser: 'llama3_json' },
  'llama4__vllm_json.jinja': { toolCallParser: 'llama4_json' },
  'minimax_m2__unsloth.jinja': { toolCallParser: 'minimax_m2', reasoningParser: 'minimax_m2' },
  'mistral__7b_instruct_v0_3.jinja': { toolCallParser: 'mistral' },
  'phi4_mini__vllm_example.jinja': { toolCallParser: 'phi4_mini_json' },
  'qwen3_5__official_think.jinja': { toolCallParser: 'qwen3_coder', reasoningParser: 'qwen3' },
  'qwen3_6__official.jinja': { toolCallParser: 'qwen3_coder', reasoningParser: 'qwen3' },
  'qwen3__official.jinja': { toolCallParser: 'hermes', reasoningParser: 'qwen3' },
  'qwen3coder__vllm_example.jinja': { toolCallParser: 'qwen3_coder' },
  'toolace__vllm_example.jinja': { toolCallParser: 'pythonic' },
};

describe.skipIf(!fs.existsSync(templatesDir))('detectParsers on the shared templates', () => {
  it.each(Object.entries(EXPECTED_DEFAULTS))('%s', (file, expected) => {
    expect(detectParsers(fs.readFileSync(path.join(templatesDir, file), 'utf8'))).toEqual(expected);
  });
  it('covers every shared template', () => {
    const files = fs.readdirSync(templatesDir).filter((f) => f.endsWith('.jinja'));
    expect(files.sort()).toEqual(Object.keys(EXPECTED_DEFAULTS).sort());
  });
});

describe('detectParsers on marker snippets', () => {
  it.each([
    ['{{ "<seed:tool_call>" }}{{ "<seed:think>" }}', { toolCallParser: 'seed_oss', reasoningParser: 'seed_oss' }],
    ['{{ "[THINK]" }}{{ "[TOOL_CALLS]" }}', { toolCallParser: 'mistral', reasoningParser: 'mistral' }],
    ['<|python_start|>', { toolCallParser: 'llama4_pythonic' }],
    ['no markers at all', {}],
  ] as const)('%s', (src, expected) => expect(detectParsers(src)).toEqual(expected));
});
