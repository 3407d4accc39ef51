/**
 * Untrusted templates and inputs: the engine must answer with a typed error
 * (or an output), never crash the process, hang, or exhaust memory.
 */
import * as fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileTemplate, LimitError, SecurityError, TemplateError, TemplateSyntaxError } from '../../src';
import { goldenDirs, listTemplates } from '../../src/golden/suite';
import { rng } from '../support/random';

function outcome(source: string, context = '{}', limits: Record<string, number> = {}): string | TemplateError {
  try {
    return compileTemplate(source).renderJson(context, { now: [2026, 1, 15, 10, 30, 0, 0], ...limits });
  } catch (e) {
    if (e instanceof TemplateError) return e;
    throw e;
  }
}

describe('resource bounds', () => {
  it('deeply nested expressions are a syntax error, not a stack overflow', () => {
    expect(outcome('{{ ' + '('.repeat(100_000) + '1' + ')'.repeat(100_000) + ' }}')).toBeInstanceOf(TemplateSyntaxError);
    expect(outcome('{{ ' + '['.repeat(50_000) + ' }}')).toBeInstanceOf(TemplateSyntaxError);
    expect(outcome('{% if a %}'.repeat(20_000))).toBeInstanceOf(TemplateSyntaxError);
  });

  it('unbounded recursion stops with a RecursionError-typed limit', () => {
    const r = outcome('{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}');
    expect(r).toBeInstanceOf(LimitError);
    expect((r as TemplateError).pythonType).toBe('RecursionError');
  });

  it('output size, evaluation steps and collection sizes are bounded', () => {
    const big = '{% for i in range(100000) %}{% for j in range(100000) %}xxxxxxxxxx{% endfor %}{% endfor %}';
    expect(outcome(big, '{}', { maxOutputBytes: 1 << 20 })).toBeInstanceOf(LimitError);
    expect(outcome('{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}', '{}', { maxSteps: 1_000_000 })).toBeInstanceOf(LimitError);
    expect(outcome("{{ 'x' * 100000000000 }}")).toBeInstanceOf(TemplateError);
    // Jinja2's sandbox caps range() at MAX_RANGE = 100000 with an OverflowError.
    expect((outcome('{{ range(100001)|length }}') as TemplateError).pythonType).toBe('OverflowError');
    expect(outcome('{{ range(100000)|length }}')).toBe('100000');
  });

  it('deeply nested context JSON is rejected cleanly', () => {
    const deep = '{"x": ' + '['.repeat(100_000) + ']'.repeat(100_000) + '}';
    expect(outcome('{{ x }}', deep)).toBeInstanceOf(TemplateError);
  });
});

describe('sandbox', () => {
  it('refuses mutation of context values and hides internals', () => {
    expect(outcome('{{ xs.append(4) }}', '{"xs": [1, 2, 3]}')).toBeInstanceOf(SecurityError);
    expect(outcome("{{ d.update({'a': 1}) }}", '{"d": {}}')).toBeInstanceOf(SecurityError);
    expect(outcome("{{ ''.__class__ }}|{{ xs.__len__ }}", '{"xs": []}')).toBe('|');
  });
});

// Mutated real templates: every outcome is an output or a typed error.
const PIECES = ['{%', '%}', '{{', '}}', '{#', '#}', '(', ')', '[', ']', '|', '.', ',', '-', 'endfor', 'endif', 'loop', 'caller()', 'messages', "'", '"', '\\', '\n', ' if ', ' else ', '**', '//', 'namespace(', '}', '{'];
const CONTEXT = JSON.stringify({
  messages: [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: { a: 1, b: [1.5, null, true] } } }] },
    { role: 'tool', tool_call_id: 'c1', content: 'ok' },
  ],
  tools: [{ type: 'function', function: { name: 'f', description: 'd', parameters: { type: 'object', properties: { a: { type: 'integer' } } } } }],
  add_generation_prompt: true,
  bos_token: '<s>',
});

const templates = listTemplates(goldenDirs().templates) ?? [];
describe.skipIf(templates.length === 0)('mutated real templates never crash', () => {
  it('600 mutations across the shared templates', () => {
    const rand = rng(1234);
    let outputs = 0;
    let errors = 0;
    for (let i = 0; i < 600; i++) {
      const src = fs.readFileSync(templates[i % templates.length].path, 'utf8');
      let s = src;
      for (let k = 0, n = 1 + Math.floor(rand() * 4); k < n; k++) {
        const at = Math.floor(rand() * s.length);
        const op = rand();
        if (op < 0.4) s = s.slice(0, at) + s.slice(at + 1 + Math.floor(rand() * 8));
        else if (op < 0.8) s = s.slice(0, at) + PIECES[Math.floor(rand() * PIECES.length)] + s.slice(at);
        else s = s.slice(0, at) + s.slice(at, at + 40) + s.slice(at);
      }
      const r = outcome(s, CONTEXT, { maxSteps: 2_000_000, maxOutputBytes: 4 << 20 });
      if (typeof r === 'string') outputs++;
      else errors++;
    }
    expect(outputs + errors).toBe(600);
    expect(errors).toBeGreaterThan(0);
  });
});

describe('memory', () => {
  it('reference cycles through namespaces do not outlive the render', () => {
    // Each render builds ns -> [ns, 100 kB string]; without breaking the cycle
    // every render would leak its namespace and string.
    const t = compileTemplate("{% set ns = namespace() %}{% set ns.x = [ns, 'y' * 100000] %}{{ ns.x|length }}");
    const run = (n: number) => {
      for (let i = 0; i < n; i++) expect(t.renderJson('{}')).toBe('2');
    };
    run(200);
    const before = process.memoryUsage().rss;
    run(3000); // 300 MB if leaked
    const grown = process.memoryUsage().rss - before;
    // (with AddressSanitizer, npm run test:asan, freed blocks wait in its quarantine first)
    expect(grown).toBeLessThan((process.env.NODE_VLLM_CPP_SANITIZED ? 3 : 1) * 100 * 1024 * 1024);
  });
});
