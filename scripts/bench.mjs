#!/usr/bin/env node
// npm run bench: render 100-message agentic tool-call histories with our
// embedded engine and with Python Jinja2 (transformers' environment) on the
// same machine in the same run, and print the ratio; then the per-request
// sections of scripts/bench/pipeline.mjs (renderChat vs the bare render, raw
// text vs object, pinned vLLM's whole path, minijinja, history scaling,
// renderChatAsync's main-thread cost and event-loop delay under load), and
// the per-case cost of the `batch` command (scripts/bench/batch.mjs).
//
//   node scripts/bench.mjs [--templates DIR] [--iterations N] [--duration S] [--rate R] [--copies N] [--only engine,pipeline,scaling,async,batch]
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { history } from './bench/cases.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const api = require(join(root, 'dist', 'cjs', 'index.js'));

const argv = process.argv.slice(2);
const opt = (k, d) => {
  const i = argv.indexOf(`--${k}`);
  return i >= 0 ? argv[i + 1] : d;
};
const templatesDir = opt('templates', process.env.NODE_VLLM_CPP_TEMPLATES ?? join(root, '..', 'shared', 'templates'));
const iterations = Number(opt('iterations', '200'));
const only = opt('only', undefined)?.split(',');
const section = (name) => only === undefined || only.includes(name);

const TEMPLATES = [
  ['qwen3', 'qwen3__official.jinja'],
  ['gemma4', 'gemma4__official_v4.jinja'],
  ['qwen3.6', 'qwen3_6__official.jinja'],
  ['llama3.1', 'llama3_1__vllm_json.jinja'],
  ['example', join(root, 'examples', 'chat_template.jinja')],
];

// The 50-turn agentic history (100 messages) of scripts/bench/cases.mjs.

// Best of several timed runs after a warm-up long enough for V8 to optimise,
// the same procedure as the Python side below.
const RUNS = 5;
function timeIt(fn, n) {
  for (let i = 0; i < Math.max(200, n); i++) fn();
  let best = Infinity;
  for (let r = 0; r < RUNS; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn();
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e6 / n);
  }
  return best;
}

const PY = `
import json, sys, time
sys.path.insert(0, ${JSON.stringify(join(root, 'scripts', 'engine-cases'))})
from generate import make_env
env = make_env()
jobs = json.load(open(sys.argv[1]))
out = {}
for name, (src, ctx_json, n) in jobs.items():
    t = env.from_string(src)
    ctx = json.loads(ctx_json)
    for _ in range(min(50, n)): t.render(**ctx)
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n): s = t.render(**ctx)
        best = min(best, (time.perf_counter() - t0) * 1000 / n)
    out[name] = {"ms": best, "len": len(s), "prompt": s}
json.dump(out, sys.stdout)
`;

if (section('engine')) {
  const req = history();
  const jobs = {};
  const ours = {};
  for (const [name, file] of TEMPLATES) {
    const p = file.startsWith('/') ? file : join(templatesDir, file);
    if (!existsSync(p)) {
      console.log(`skip ${name}: ${p} not found`);
      continue;
    }
    const src = readFileSync(p, 'utf8');
    const compiled = api.compileTemplate(src);
    const opts = { template: compiled, bosToken: '<bos>', eosToken: '<eos>', now: '2026-01-15T10:30:00' };
    const built = api.buildTemplateContext(req, { contentFormat: compiled.contentFormat, undeclaredVariables: compiled.undeclaredVariables, templateSource: src }, { specialTokens: { bos_token: '<bos>', eos_token: '<eos>' } });
    const now = [2026, 1, 15, 10, 30, 0, 0];
    const prompt = compiled.renderJson(built.contextJson, { now });
    ours[name] = {
      // (the whole context parsed every call, as a first render of it: reuseParsed off)
      engineMs: timeIt(() => compiled.renderJson(built.contextJson, { now, reuseParsed: false }), iterations),
      fullMs: timeIt(() => api.renderChat(req, opts), iterations),
      prompt,
    };
    jobs[name] = [src, built.contextJson, iterations];
  }

  const dir = mkdtempSync(join(tmpdir(), 'nvc-bench-'));
  writeFileSync(join(dir, 'jobs.json'), JSON.stringify(jobs));
  writeFileSync(join(dir, 'bench.py'), PY);
  const py = JSON.parse(execFileSync('python3', [join(dir, 'bench.py'), join(dir, 'jobs.json')], { maxBuffer: 1 << 28 }).toString());

  console.log(`100-message agentic history, best of ${RUNS} runs x ${iterations} iterations (Python ${execFileSync('python3', ['-c', 'import jinja2,sys;print(sys.version.split()[0], "jinja2", jinja2.__version__)']).toString().trim()})`);
  console.log('template    python ms   ours ms (engine)  speedup   ours ms (renderChat)  speedup   same prompt');
  for (const name of Object.keys(ours)) {
    const o = ours[name];
    const p = py[name];
    const same = p.prompt === o.prompt ? 'yes' : 'NO';
    console.log(
      `${name.padEnd(10)}  ${p.ms.toFixed(3).padStart(9)}   ${o.engineMs.toFixed(3).padStart(9)}        ${(p.ms / o.engineMs).toFixed(1).padStart(6)}x   ${o.fullMs.toFixed(3).padStart(9)}             ${(p.ms / o.fullMs).toFixed(1).padStart(6)}x   ${same}`,
    );
  }
}

const pipeline = await import('./bench/pipeline.mjs');
if (section('pipeline')) pipeline.caseTable(api, templatesDir);
if (section('scaling')) pipeline.scaling(api, templatesDir);
if (section('async')) await pipeline.asyncSection(templatesDir, { duration: Number(opt('duration', '5')), overallRate: Number(opt('rate', '500')) });
if (section('batch')) (await import('./bench/batch.mjs')).batchSection(api, templatesDir, { copies: Number(opt('copies', '2000')) });
