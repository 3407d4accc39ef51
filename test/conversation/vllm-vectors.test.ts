import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTemplateContext, cutContinueFinal, parsePyJson } from '../../src/conversation';
import { NodeVllmError } from '../../src/errors';
import { tagOf } from '../protocol/canonical';

interface Vec {
  id: string;
  body: string;
  policy: 'strict' | 'lenient';
  contentFormat: 'string' | 'openai';
  undeclared: string[];
  supportsDeveloperRole: boolean;
  templateSource?: string;
  context?: unknown;
  warnings?: string[];
  error?: { error_type: string; error_message: string } | null;
  continuePrompt?: string;
}

const vectors = JSON.parse(readFileSync(join(__dirname, '../protocol/vectors.json'), 'utf8'));
const cases = (vectors.conversation ?? []) as Vec[];

const facts = (v: Vec) => ({
  contentFormat: v.contentFormat,
  undeclaredVariables: new Set(v.undeclared),
  supportsDeveloperRole: v.supportsDeveloperRole,
  templateSource: v.templateSource,
});
const options = (v: Vec) => ({ policy: v.policy, specialTokens: { bos_token: '<bos>', eos_token: '<eos>' } });

describe('template variables match vLLM 0.25.0 + transformers (real pipeline)', () => {
  for (const v of cases.filter((c) => c.continuePrompt === undefined)) {
    it(v.id, () => {
      if (v.error) {
        let err: unknown;
        try {
          buildTemplateContext(v.body, facts(v), options(v));
        } catch (e) {
          err = e;
        }
        expect(err, `expected ${v.error.error_type}: ${v.error.error_message}`).toBeInstanceOf(NodeVllmError);
        if (v.error.error_type !== 'ValidationError') expect((err as Error).message).toContain(v.error.error_message.slice(0, 60));
        return;
      }
      const built = buildTemplateContext(v.body, facts(v), options(v));
      // the order of template variables is irrelevant; everything below the top level is compared in order
      expect(sortTop(tagOf(parsePyJson(built.contextJson)))).toEqual(sortTop(v.context));
      expect(built.warnings).toEqual(v.warnings ?? []);
    });
  }
});

describe('continue_final_message tag-and-cut matches transformers', () => {
  for (const v of cases.filter((c) => c.continuePrompt !== undefined)) {
    it(v.id, () => {
      const built = buildTemplateContext(v.body, facts(v), options(v));
      expect(built.continueFinal).not.toBeNull();
      const ctx = parsePyJson(built.contextJson) as { messages: Array<{ role: string; content: unknown }> };
      // the template: dump (taken from Python's output) + "---" + one line per message
      const dump = v.continuePrompt!.split('---')[0]!;
      const body = ctx.messages
        .map((m) => `<${m.role}>${typeof m.content === 'string' ? m.content : pyListRepr(m.content)}</${m.role}>\n`)
        .join('');
      expect(cutContinueFinal(`${dump}---${body}`, built.continueFinal!)).toBe(v.continuePrompt);
    });
  }
});

/** Python repr of a list of {"type": "text", "text": ...} dicts with plain ASCII strings. */
function pyListRepr(v: unknown): string {
  const items = (v as Array<Record<string, string>>).map(
    (d) => `{${Object.entries(d).map(([k, x]) => `'${k}': '${x}'`).join(', ')}}`,
  );
  return `[${items.join(', ')}]`;
}

function sortTop(t: unknown): unknown {
  const [kind, entries] = t as [string, Array<[string, unknown]>];
  return [kind, [...entries].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))];
}
