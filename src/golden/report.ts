/** `node-vllm-cpp golden report`: matches/total per template and per shape. */
import type { Backend } from '../render';
import { compileEntry, goldenDirs, listTemplates, loadExpected, loadGoldenCases, outcomesMatch, runGoldenCase, type ActualOutcome } from './suite';

export interface GoldenReport {
  backend: Backend;
  templatesDir: string;
  perTemplate: Record<string, { matches: number; total: number; skipped?: string }>;
  perShape: Record<string, { matches: number; total: number }>;
  matches: number;
  total: number;
  text: string;
}

export interface GoldenReportOptions {
  backend?: Backend;
  /** Conversation shapes (default: test/golden/cases of the checkout). */
  casesDir?: string;
  /** Prompts rendered by pinned Python vLLM (default: test/golden/expected of the checkout). */
  expectedDir?: string;
  /** Chat templates (default: $NODE_VLLM_CPP_TEMPLATES or ../shared/templates). */
  templatesDir?: string;
}

export function goldenReport(opts: GoldenReportOptions = {}): GoldenReport {
  const backend = opts.backend ?? 'embedded';
  const dirs = goldenDirs();
  const templatesDir = opts.templatesDir ?? dirs.templates;
  const expectedDir = opts.expectedDir ?? dirs.expected;
  const cases = loadGoldenCases(opts.casesDir ?? dirs.cases);
  const templates = listTemplates(templatesDir) ?? [];
  const perTemplate: GoldenReport['perTemplate'] = {};
  const perShape: GoldenReport['perShape'] = {};
  let matches = 0;
  let total = 0;
  for (const t of templates) {
    const expected = loadExpected(t.file, expectedDir);
    if (!expected) {
      perTemplate[t.file] = { matches: 0, total: 0, skipped: 'no expected file' };
      continue;
    }
    compileEntry(t);
    const row = { matches: 0, total: 0 };
    for (const c of cases) {
      const exp = expected.cases[c.id];
      if (!exp) continue;
      let actual: ActualOutcome;
      if (t.compiled) actual = runGoldenCase(t.compiled, c, backend);
      else actual = { ok: false, errorType: 'TemplateSyntaxError', error: t.compileError ?? '' };
      const ok = outcomesMatch(exp, actual);
      row.total++;
      const s = (perShape[c.id] ??= { matches: 0, total: 0 });
      s.total++;
      if (ok) {
        row.matches++;
        s.matches++;
      }
    }
    perTemplate[t.file] = row;
    matches += row.matches;
    total += row.total;
  }
  const lines: string[] = [];
  lines.push(`golden report: backend ${backend}, templates ${templatesDir}`);
  if (templates.length === 0) lines.push('  (no templates found: nothing compared)');
  lines.push('', 'per template:');
  const w = Math.max(10, ...Object.keys(perTemplate).map((k) => k.length));
  for (const [k, v] of Object.entries(perTemplate)) {
    lines.push(`  ${k.padEnd(w)}  ${v.skipped ? `skipped (${v.skipped})` : `${v.matches}/${v.total}`}`);
  }
  lines.push('', 'per shape:');
  const ws = Math.max(10, ...Object.keys(perShape).map((k) => k.length));
  for (const [k, v] of Object.entries(perShape)) lines.push(`  ${k.padEnd(ws)}  ${v.matches}/${v.total}`);
  lines.push('', `total: ${matches}/${total} byte-exact (${total ? ((100 * matches) / total).toFixed(1) : '0.0'}%)`);
  return { backend, templatesDir, perTemplate, perShape, matches, total, text: lines.join('\n') + '\n' };
}
