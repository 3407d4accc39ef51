#!/usr/bin/env node
// Generation bench: tokens/s of the Node bridge against a small C program
// calling libvllm directly (native/tools/vllm-driver.c), same model, prompt
// and sampling, in the same run; and the event-loop delay while 8 streams run.
//
//   VLLM_CPP_LIB=/path/to/libvllm.so node scripts/bench-engine.mjs [--model DIR] [--tokens 256] [--runs 7]
//
// Without --model a tiny random-weight checkpoint is generated into a temporary
// directory (scripts/tiny-model/generate.py). Without VLLM_CPP_LIB it says so and exits 0.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const LIB = process.env.VLLM_CPP_LIB;
if (!LIB) {
  console.log('engine bench skipped: set VLLM_CPP_LIB to a libvllm build');
  process.exit(0);
}
const TOKENS = Number(opt('tokens', '256'));
const RUNS = Number(opt('runs', '7'));
const PROMPT = 'Hello';

let model = opt('model');
const tmp = [];
if (!model) {
  const py = [process.env.NODE_VLLM_CPP_PYTHON, path.join(ROOT, 'scripts/tiny-model/.venv/bin/python'), 'python3'].find(
    (p) => p && (p === 'python3' || fs.existsSync(p)),
  );
  model = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-model-'));
  tmp.push(model);
  execFileSync(py, [path.join(ROOT, 'scripts/tiny-model/generate.py'), '--out', model, '--template', 'gemma4'], { stdio: 'pipe' });
}

const driver = path.join(os.tmpdir(), `node-vllm-cpp-vllm-driver-${process.pid}`);
execFileSync(process.env.CC || 'cc', ['-O2', '-o', driver, path.join(ROOT, 'native/tools/vllm-driver.c'), '-ldl']);
tmp.push(driver);

function cDriver(api) {
  const out = execFileSync(
    driver,
    ['--lib', LIB, '--model', model, '--prompt', PROMPT, '--tokens', String(TOKENS), '--api', api, '--threads', '1', '--repeat', String(RUNS), '--warmup', '1'],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const j = JSON.parse(out);
  return { min: j.min_seconds, median: j.seconds };
}

const { Engine } = await import(path.join(ROOT, 'dist/cjs/index.js'));
const engine = await Engine.load({ model, library: LIB, threads: 1 });
const params = { max_tokens: TOKENS, ignore_eos: true, temperature: 0 };

async function bridgeOnce() {
  const t0 = process.hrtime.bigint();
  let n = 0;
  for await (const c of engine.stream(PROMPT, params)) {
    if (c.usage) n = c.usage.completion_tokens;
  }
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  if (n !== TOKENS) throw new Error(`bridge generated ${n} tokens, expected ${TOKENS}`);
  return s;
}

async function bridge() {
  await bridgeOnce();
  const times = [];
  for (let i = 0; i < RUNS; i++) times.push(await bridgeOnce());
  times.sort((a, b) => a - b);
  return { min: times[0], median: times[Math.floor(times.length / 2)] };
}

// interleave so machine load affects every side alike
const merge = (xs) => ({ min: Math.min(...xs.map((x) => x.min)), median: xs.reduce((a, x) => a + x.median, 0) / xs.length });
const cs = [], cq = [], bs = [];
for (let round = 0; round < 2; round++) {
  cs.push(cDriver('stream'));
  cq.push(cDriver('submit'));
  bs.push(await bridge());
}
const tps = (s) => (TOKENS / s).toFixed(0);
const row = (name, r) => console.log(`${name.padEnd(34)} ${r.min.toFixed(4)}   ${tps(r.min).padStart(8)}       ${r.median.toFixed(4)}   ${tps(r.median).padStart(8)}`);
const over = (b, c) => `${(((b.min - c.min) / c.min) * 100).toFixed(1)}% best-of, ${(((b.median - c.median) / c.median) * 100).toFixed(1)}% median`;
const [c, q, b] = [merge(cs), merge(cq), merge(bs)];
console.log(`generation: ${TOKENS} tokens, greedy, 1 CPU thread, ${RUNS} runs x 2 (after warm-up), libvllm ${engine.libraryVersion}`);
console.log('side                                min s    tok/s (best)   median s   tok/s (median)');
row('C driver, vllm_complete_stream', c);
row('C driver, vllm_request_submit', q);
row('Node bridge, engine.stream()', b);
console.log(`bridge overhead vs complete_stream: ${over(b, c)}; vs request_submit: ${over(b, q)}`);

// event-loop delay while 8 streams run
const h = monitorEventLoopDelay({ resolution: 1 });
const idle = monitorEventLoopDelay({ resolution: 1 });
idle.enable();
await new Promise((r) => setTimeout(r, 500));
idle.disable();
h.enable();
const t0 = Date.now();
await Promise.all(Array.from({ length: 8 }, async () => {
  for await (const _ of engine.stream(PROMPT, params));
}));
const wall = Date.now() - t0;
h.disable();
const ms = (x) => (x / 1e6).toFixed(2);
console.log(`event-loop delay, idle 500 ms:      p50 ${ms(idle.percentile(50))} ms  p99 ${ms(idle.percentile(99))} ms  max ${ms(idle.max)} ms`);
console.log(`event-loop delay, 8 streams (${wall} ms): p50 ${ms(h.percentile(50))} ms  p99 ${ms(h.percentile(99))} ms  max ${ms(h.max)} ms`);

await engine.close();
for (const p of tmp) fs.rmSync(p, { recursive: true, force: true });
