/**
 * The bug this package exists for, end to end: a Gemma 4 tool loop (user ->
 * assistant tool call -> tool result -> next generation) rendered with Gemma 4
 * and with non-Gemma templates that iterate `arguments|items` (Qwen3.5/3.6) or
 * print `arguments|tojson` (Llama 3.1), for valid, empty, null, structured and
 * invalid arguments. Expected prompts and failures come from pinned Python
 * vLLM (test/golden/expected).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderChat, ToolArgumentsError } from '../../src';
import { compileEntry, goldenDirs, listTemplates, loadExpected, loadGoldenCases, runGoldenCase } from '../../src/golden/suite';

const dirs = goldenDirs();
const TEMPLATES = ['gemma4__official_v4.jinja', 'gemma4__vllm_example.jinja', 'qwen3_6__official.jinja', 'qwen3_5__official_think.jinja', 'llama3_1__vllm_json.jinja'];
const SHAPES = ['gemma4_terminal', 'args_empty_string', 'args_null', 'args_missing', 'args_object', 'args_invalid_json', 'args_invalid_json_lenient'];
const cases = new Map(loadGoldenCases(dirs.cases).map((c) => [c.id, c]));
const available = listTemplates(dirs.templates)?.filter((t) => TEMPLATES.includes(t.file)) ?? [];

describe.skipIf(available.length === 0)('tool loop across templates and argument variants', () => {
  for (const t of available) {
    describe(t.file, () => {
      const expected = loadExpected(t.file, dirs.expected)!;
      compileEntry(t);
      for (const shape of SHAPES) {
        it(shape, () => {
          const c = cases.get(shape)!;
          const exp = expected.cases[shape];
          const actual = runGoldenCase(t.compiled!, c);
          if (exp.ok) {
            expect(actual).toMatchObject({ ok: true, prompt: exp.prompt });
          } else {
            expect(actual).toMatchObject({ ok: false, errorType: exp.error_type });
          }
        });
      }
    });
  }

  it.skipIf(!available.some((t) => t.file === 'gemma4__official_v4.jinja'))('Gemma 4 sees a mapping: call:terminal{command:<|"|>date<|"|>}', () => {
    const c = cases.get('gemma4_terminal')!;
    const prompt = renderChat(c.request, { templatePath: path.join(dirs.templates, 'gemma4__official_v4.jinja'), bosToken: '<bos>' }).prompt;
    expect(prompt).toContain('<|tool_call>call:terminal{command:<|"|>date<|"|>}<tool_call|>');
    expect(prompt).not.toContain('"command"');
  });

  it.skipIf(available.length === 0)('strict names the argument path and the decoder reason; lenient warns', () => {
    const c = cases.get('args_invalid_json')!;
    const templatePath = path.join(dirs.templates, available[0].file);
    let err: unknown;
    try {
      renderChat(c.request, { templatePath });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ToolArgumentsError);
    expect((err as ToolArgumentsError).path).toBe('messages[1].tool_calls[0].function.arguments');
    expect((err as ToolArgumentsError).reason).toMatch(/^Unterminated string starting at: line 1 column \d+ \(char \d+\)$/);
    const lenient = renderChat(c.request, { templatePath, policy: 'lenient' });
    // (a template that reads bos_token also gets the missing-token warning here: none was given)
    const argWarnings = lenient.warnings.filter((w) => !w.startsWith('the template reads '));
    expect(argWarnings).toHaveLength(1);
    expect(argWarnings[0]).toContain('messages[1].tool_calls[0].function.arguments');
    expect(fs.existsSync(templatePath)).toBe(true);
  });
});
