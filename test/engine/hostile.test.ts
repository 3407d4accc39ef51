/**
 * Hostile templates: sandbox escapes, resource bombs, recursion, huge widths
 * and reference cycles. Each payload must end within a few seconds with
 * Python's exact output or a typed error (the class Python raises; a
 * LimitError where Python itself runs out of time or memory). Expected
 * values come from Jinja2 (scripts/hostile/expected.py). The payloads run in
 * a child process, so a crash fails this test instead of killing the runner.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';

interface Payload {
  id: string;
  template: string;
  /** Our resource bounds may refuse what Python still renders (see docs/limits.md). */
  bounded?: string;
}
type Expected = { expected: string } | { error: string; error_message?: string } | { limit: string };
interface Line {
  id: string;
  out?: string;
  kind?: string;
  pythonType?: string;
  message?: string;
  ms: number;
  rssMb: number;
}

const dir = path.join(__dirname, 'hostile');
const payloads = (JSON.parse(fs.readFileSync(path.join(dir, 'payloads.json'), 'utf8')) as { payloads: Payload[] }).payloads;
const expected = (JSON.parse(fs.readFileSync(path.join(dir, 'expected.json'), 'utf8')) as { results: Record<string, Expected> })
  .results;
const TYPED = new Set(['syntax', 'runtime', 'security', 'raised', 'limit']);
const PER_PAYLOAD_MS = 5000;

describe('hostile templates', () => {
  const child = spawnSync(process.execPath, [path.join(dir, 'run.cjs')], {
    encoding: 'utf8',
    timeout: 240_000,
    maxBuffer: 256 << 20,
  });
  const lines = new Map<string, Line>();
  for (const l of child.stdout.split('\n')) if (l) lines.set((JSON.parse(l) as Line).id, JSON.parse(l) as Line);

  it('has at least 100 payloads, each with a Python answer', () => {
    expect(payloads.length).toBeGreaterThanOrEqual(100);
    for (const p of payloads) expect(expected[p.id], `${p.id}: run scripts/hostile/expected.py`).toBeDefined();
  });

  it('the child process renders every payload and exits cleanly', () => {
    const missing = payloads.find((p) => !lines.has(p.id));
    expect(missing?.id, `child ended with status ${child.status} signal ${child.signal}: ${child.stderr.slice(-2000)}`).toBeUndefined();
    expect(child.status).toBe(0);
  });

  it('the whole run stays well under 2 GB of peak RSS', () => {
    const peak = Math.max(0, ...[...lines.values()].map((l) => l.rssMb));
    // (an addon built with AddressSanitizer, npm run test:asan, takes about twice the memory)
    expect(peak).toBeLessThan(process.env.NODE_VLLM_CPP_SANITIZED ? 3 * 1024 : 1024);
  });

  for (const p of payloads) {
    it(p.id, () => {
      const got = lines.get(p.id);
      if (!got) return; // reported by the test above
      const want = expected[p.id];
      expect(got.ms, `${p.id} took ${got.ms} ms`).toBeLessThan(PER_PAYLOAD_MS);
      if (got.kind !== undefined) expect(TYPED.has(got.kind), `untyped failure: ${got.kind} ${got.message}`).toBe(true);
      if ('limit' in want) {
        expect(got.kind, `Python: ${want.limit}; got ${JSON.stringify(got.out ?? got.message)?.slice(0, 200)}`).toBe('limit');
      } else if (p.bounded && got.kind !== undefined) {
        // A documented bound of ours (p.bounded) refuses what Python renders,
        // with a typed error (checked above).
      } else if ('error' in want) {
        expect(got.pythonType, `Python raised ${want.error}: ${want.error_message}; got ${JSON.stringify(got.out)?.slice(0, 200)}`).toBe(want.error);
      } else {
        expect(got.message, 'unexpected error').toBeUndefined();
        expect(got.out).toBe(want.expected);
      }
    });
  }
});
