#!/usr/bin/env node
// npm run bench: render 100-message agentic tool-call histories with our
// embedded engine and with Python Jinja2 (transformers' environment) on the
// same machine in the same run, and print the ratio.
//
//   node scripts/bench.mjs [--templates DIR] [--iterations N]
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

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

const TEMPLATES = [
  ['qwen3', 'qwen3__official.jinja'],
  ['gemma4', 'gemma4__official_v4.jinja'],
  ['qwen3.6', 'qwen3_6__official.jinja'],
  ['llama3.1', 'llama3_1__vllm_json.jinja'],
  ['example', join(root, 'examples', 'chat_template.jinja')],
];

// A 50-turn agentic history: system, user, then 49 (assistant tool call, tool result) pairs, and an answer.
function history() {
  const messages = [
    { role: 'system', content: 'You are a coding agent. Use the tools to inspect and change the repository.' },
    { role: 'user', content: 'Find why the build fails on CI and fix it. Keep the change minimal.' },
  ];
  for (let i = 0; i < 48; i++) {
    const id = `call_${i}`;
    const args = i % 3 === 0
      ? { command: `grep -rn "TODO ${i}" src/ | head -n 20`, timeout: 30.0 }
      : i % 3 === 1
        ? { path: `src/module_${i}.ts`, content: `export const value${i} = ${i};\nexport function f${i}(x: number) {\n  return x * ${i} + "\\"quoted\\"";\n}\n` }
        : { query: `failing test ${i}`, limit: 10, filters: { lang: 'ts', paths: ['src', 'test'] } };
    const name = i % 3 === 0 ? 'terminal' : i % 3 === 1 ? 'write_file' : 'search';
    messages.push({ role: 'assistant', content: i % 4 === 0 ? `Step ${i}: checking.` : null, tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] });
    messages.push({ role: 'tool', tool_call_id: id, content: `result ${i}: ` + 'ok '.repeat(20 + (i % 7)) });
  }
  messages.push({ role: 'assistant', content: 'The build failed because of a missing export; fixed in src/module_1.ts.' });
  messages.push({ role: 'user', content: 'Thanks. Now run the tests again.' });
  const tools = ['terminal', 'write_file', 'search'].map((name) => ({
    type: 'function',
    function: { name, description: `The ${name} tool.`, parameters: { type: 'object', properties: { command: { type: 'string' }, path: { type: 'string' }, content: { type: 'string' } }, required: [] } },
  }));
  return { messages, tools };
}

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
    engineMs: timeIt(() => compiled.renderJson(built.contextJson, { now }), iterations),
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
