/**
 * Engine unit cases: small templates of our own, expected outputs produced by
 * Python Jinja2 in transformers' environment (scripts/engine-cases/generate.py).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileTemplate, TemplateError } from '../../src';

interface EngineCase {
  name: string;
  template: string;
  context_json?: string;
  expected?: string;
  error?: string;
  error_message?: string;
}

// strftime_now's clock in the generator: 2026-01-15 10:30:05.123456
const NOW = [2026, 1, 15, 10, 30, 5, 123456];
const dir = path.join(__dirname, 'cases');
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort();

function run(c: EngineCase): { out?: string; pythonType?: string; message?: string } {
  try {
    return { out: compileTemplate(c.template).renderJson(c.context_json ?? '{}', { now: NOW }) };
  } catch (e) {
    if (e instanceof TemplateError) return { pythonType: e.pythonType, message: e.message };
    throw e;
  }
}

it('has engine case files', () => {
  expect(files.length).toBeGreaterThan(0);
});

for (const file of files) {
  const doc = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as { cases: EngineCase[] };
  describe(file, () => {
    for (const c of doc.cases) {
      it(c.name, () => {
        expect(c.expected !== undefined || c.error !== undefined, 'case has no Python result; run scripts/engine-cases/generate.py').toBe(true);
        const r = run(c);
        if (c.error !== undefined) {
          expect(r.pythonType, `expected ${c.error}: ${c.error_message}; got output ${JSON.stringify(r.out)}`).toBe(c.error);
        } else {
          expect(r.message, 'unexpected error').toBeUndefined();
          expect(r.out).toBe(c.expected);
        }
      });
    }
  });
}
