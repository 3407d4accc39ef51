/**
 * Tool-call parsers against real vLLM 0.25.0 (test/parsers/goldens/tools/*.json,
 * made by scripts/parser-goldens/generate.py from vLLM's own parser classes).
 *
 * - names must be equal; arguments are compared as Python values (int vs
 *   float, key order) and, since vLLM's strings here are json.dumps output,
 *   as exact strings;
 * - content is compared exactly when no call was made, and with the
 *   whitespace around it trimmed when calls were made (vLLM's parsers differ
 *   among themselves there; ours follow one streaming-safe rule);
 * - where vLLM loses or corrupts data, the named deviation in
 *   tool-deviations.ts gives our expected value instead;
 * - every streaming chunking accumulates to our whole-text result.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TOOL_PARSERS } from '../../src/parsers';
import { parsePyJson, pyJsonDumps } from '../../src/protocol/pyjson';
import type { ToolShape } from '../../src/parsers';
import { CHUNKINGS, accumulate, parseWhole } from './harness';
import { TOOL_DEVIATIONS, type Expected } from './tool-deviations';

interface GoldenVector {
  id: string;
  text: string;
  content?: string | null;
  tool_calls?: { name: string; arguments: string }[];
  error?: string;
}
interface GoldenDoc {
  parser: string;
  mode: string;
  provenance: { vllm: string };
  tools: ToolShape[];
  vectors: GoldenVector[];
}

const dir = path.join(__dirname, 'goldens', 'tools');
const docs: GoldenDoc[] = fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')));

/** Canonical Python json.dumps form of a JSON text, or the text itself when it is not JSON. */
function canonical(args: string): string {
  try {
    return pyJsonDumps(parsePyJson(args));
  } catch {
    return args;
  }
}

function norm(content: string | null | undefined, calls: number): string | null {
  if (content === null || content === undefined) return null;
  const c = calls > 0 ? content.trim() : content;
  return c === '' ? null : c;
}

function expectedOf(doc: GoldenDoc, v: GoldenVector): { expected: Expected; deviation?: string } {
  const dev = TOOL_DEVIATIONS[doc.mode]?.[v.id];
  if (dev) return { expected: dev[1], deviation: dev[0] };
  const calls = (v.tool_calls ?? []).map((c) => [c.name, canonical(c.arguments)] as [string, string]);
  return { expected: { content: norm(v.content, calls.length), calls } };
}

describe('tool-call goldens', () => {
  it('come from vLLM 0.25.0 and name registered parsers', () => {
    expect(docs.length).toBeGreaterThan(10);
    for (const d of docs) {
      expect(d.provenance.vllm).toBe('0.25.0');
      expect(TOOL_PARSERS).toContain(d.mode === 'mistral_pre_v11' ? 'mistral' : d.mode);
    }
  });

  it('every named deviation differs from what vLLM returned', () => {
    for (const d of docs) {
      for (const [id, [why, exp]] of Object.entries(TOOL_DEVIATIONS[d.mode] ?? {})) {
        const v = d.vectors.find((x) => x.id === id);
        expect(v, `${d.mode}/${id}`).toBeDefined();
        const calls = (v!.tool_calls ?? []).map((c) => [c.name, canonical(c.arguments)]);
        const vllm = { content: norm(v!.content, calls.length), calls };
        expect(v!.error !== undefined || JSON.stringify(vllm) !== JSON.stringify(exp), `${d.mode}/${id}: ${why}`).toBe(true);
      }
    }
  });

  for (const doc of docs) {
    const parser = doc.mode === 'mistral_pre_v11' ? 'mistral' : doc.mode;
    describe(doc.mode, () => {
      it.each(doc.vectors)('$id', (v) => {
        const { expected } = expectedOf(doc, v);
        const opts = { parser, tools: doc.tools };
        const whole = parseWhole(v.text, opts);
        const got = {
          content: norm(whole.content, whole.tool_calls.length),
          calls: whole.tool_calls.map((c) => [c.function.name, c.function.arguments]),
        };
        expect(got, v.error ? `vLLM raised ${v.error}` : undefined).toEqual(expected);
        for (const c of CHUNKINGS) expect(accumulate(c.split(v.text), opts), c.label).toEqual(whole);
      });
    });
  }
});
