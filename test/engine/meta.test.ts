/**
 * Template facts the conversation layer relies on, compared with Python:
 * undeclared variables (jinja2.meta) and vLLM's content-format detection.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileTemplate } from '../../src';
import { goldenDirs } from '../../src/golden/suite';

interface Facts {
  undeclared: string[];
  content_format: 'string' | 'openai';
}
const expected = JSON.parse(fs.readFileSync(path.join(__dirname, 'meta.expected.json'), 'utf8')) as {
  snippets: Record<string, Facts & { template: string }>;
  templates: Record<string, Facts & { sha256: string }>;
};

function check(source: string, exp: Facts): void {
  const t = compileTemplate(source);
  expect(t.contentFormat).toBe(exp.content_format);
  expect([...t.undeclaredVariables].sort()).toEqual(exp.undeclared);
}

describe('template facts: snippets', () => {
  for (const [name, exp] of Object.entries(expected.snippets)) it(name, () => check(exp.template, exp));
});

const dir = goldenDirs().templates;
describe.skipIf(!fs.existsSync(dir))('template facts: shared templates', () => {
  for (const [name, exp] of Object.entries(expected.templates)) {
    it(name, () => {
      const file = path.join(dir, name);
      const raw = fs.readFileSync(file);
      expect(createHash('sha256').update(raw).digest('hex'), `${name} changed; run scripts/engine-cases/meta.py`).toBe(exp.sha256);
      check(raw.toString('utf8'), exp);
    });
  }
});
