// The `batch` section of `npm run bench`: what one case costs through
// `node-vllm-cpp batch CASES.jsonl` against the API call on the same case.
//
// For each case (the small Gemma 4 tool loop, the qwen3 50-turn history) a
// temporary JSONL holds N distinct requests of its shape (each with its own
// first message: caseRequest), with the template path pointing at
// the shared template. `node bin/node-vllm-cpp.js batch FILE` (worker
// process, the default, and --in-process) runs as a child process with its
// standard output going to a file, as `batch cases.jsonl > out.jsonl` does;
// the same command on a one-line file (process start, addon load, the first
// template load) is subtracted, so
//
//   per case = (time(N lines) - time(1 line)) / (N - 1)
//
// which is then set against renderChat(request, { template: compiled,
// bosToken, eosToken, now }) of the same N requests in turn, in this
// process (warm: after a warm-up, as a long-running server sees it). Best of 9 runs, the commands taking turns
// run by run; the ratios come from the same run. Target: batch per case
// <= 1.5x the API call. For scale, the API call is also timed the way batch
// is, in a fresh process (N calls minus 1 call): that column is the JIT
// warm-up any fresh process pays over N cases.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchCases, NOW, root, withOwnFirstMessage } from './cases.mjs';
import { timeAll } from './pipeline.mjs';

// child: `node batch.mjs --api-child TEMPLATES CASE N` makes N API calls in a fresh process
if (process.argv[2] === '--api-child') {
  const [dir, name, n] = process.argv.slice(3);
  const api = createRequire(import.meta.url)(join(root, 'dist', 'cjs', 'index.js'));
  const c = benchCases(dir).find((x) => x.name === name);
  const opts = { template: api.compileTemplate(readFileSync(c.path, 'utf8')), bosToken: '<bos>', eosToken: '<eos>', now: NOW };
  const requests = Array.from({ length: Number(n) }, (_, i) => caseRequest(c, i));
  for (let i = 0; i < Number(n); i++) api.renderChat(requests[i], opts);
}

const RUNS = 9;
const CASE_NAMES = ['gemma4 tool loop (6 msgs)', 'qwen3 50 turns'];
const JOBS = availableParallelism();
const { BATCH_RANGE_MIN } = createRequire(import.meta.url)(join(root, 'dist', 'cjs', 'cli', 'batch-workers.js'));
const MODES = [
  ['workers', []],
  ['--jobs 1', ['--jobs', '1']],
  ['--in-process', ['--in-process']],
];
const cell = (s, w) => String(s).padStart(w);

/**
 * Case `i` of a file: the case's request with its own first message (a
 * file's cases are distinct requests, and the API call is timed on the
 * same distinct requests: one request again and again would time the
 * reuse of the last request's text, not what a case costs).
 */
function caseRequest(c, i) {
  return withOwnFirstMessage(c.request, i);
}

function caseLine(c, id) {
  const request = caseRequest(c, id);
  const line = { id, template: c.path, messages: request.messages, bos_token: '<bos>', eos_token: '<eos>', now: NOW };
  if (request.tools) line.tools = request.tools;
  return JSON.stringify(line);
}

/** One run of the CLI on `file`, standard output to `outFile`; wall ms. */
function runBatch(file, extra, outFile) {
  const fd = openSync(outFile, 'w');
  try {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, [join(root, 'bin', 'node-vllm-cpp.js'), 'batch', file, ...extra], { stdio: ['ignore', fd, 'pipe'] });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (r.status !== 0) throw new Error(`batch ${file} ${extra.join(' ')} exited ${r.status ?? r.signal}: ${String(r.stderr).slice(-500)}`);
    return ms;
  } finally {
    closeSync(fd);
  }
}

/** N API calls in a fresh process; wall ms. */
function runApiChild(templatesDir, name, n) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--api-child', templatesDir, name, String(n)], { stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`API child exited ${r.status ?? r.signal}: ${String(r.stderr).slice(-500)}`);
  return ms;
}

/** Every output line is ok and holds the API's prompt for its case. */
function checkOutput(outFile, lines, prompts) {
  const out = readFileSync(outFile, 'utf8').split('\n');
  if (out.pop() !== '' || out.length !== lines) return `${out.length} result lines for ${lines} cases`;
  for (const [i, l] of out.entries()) {
    const r = JSON.parse(l);
    if (r.id !== i || r.ok !== true || r.prompt !== prompts[i]) return `line ${i + 1}: ${l.slice(0, 200)}`;
  }
  return undefined;
}

/** Returns the rows for the caller. */
export function batchSection(api, templatesDir, { copies = 2000 } = {}) {
  console.log(`\nbatch: per-case cost of \`node-vllm-cpp batch\` (${copies} distinct cases of one shape per file, minus a 1-line file) vs the API call, same run`);
  const cases = benchCases(templatesDir).filter((c) => CASE_NAMES.includes(c.name));
  const rows = [];
  const dir = mkdtempSync(join(tmpdir(), 'nvc-bench-batch-'));
  try {
    for (const c of cases) {
      if (c.skip) {
        console.log(`skip ${c.name}: ${c.skip}`);
        continue;
      }
      const compiled = api.compileTemplate(readFileSync(c.path, 'utf8'));
      const opts = { template: compiled, bosToken: '<bos>', eosToken: '<eos>', now: NOW };
      const requests = Array.from({ length: copies }, (_, i) => caseRequest(c, i));
      const prompts = requests.map((r) => api.renderChat(r, opts).prompt);
      const many = join(dir, 'many.jsonl');
      const one = join(dir, 'one.jsonl');
      writeFileSync(many, Array.from({ length: copies }, (_, i) => caseLine(c, i)).join('\n') + '\n');
      writeFileSync(one, caseLine(c, 0) + '\n');
      const outFile = join(dir, 'out.jsonl');
      const best = {};
      for (const [mode, extra] of MODES) {
        runBatch(one, extra, outFile); // warm the file cache
        runBatch(many, extra, outFile);
        const bad = checkOutput(outFile, copies, prompts);
        if (bad) throw new Error(`batch ${mode} on ${c.name}: output differs from the API: ${bad}`);
        best[mode] = { many: Infinity, one: Infinity };
      }
      const cold = { many: Infinity, one: Infinity };
      // the API call, warm in this process: timed in each round too, so that
      // both sides of the ratio are the best of the same rounds (this machine's
      // speed drifts over the minutes the rounds take)
      let next = 0;
      const apiCall = () => api.renderChat(requests[next++ % copies], opts);
      const n = Math.max(200, Math.ceil(copies / 2));
      let apiMs = timeAll({ api: apiCall }, n).api;
      for (let r = 0; r < RUNS; r++) {
        for (const [mode, extra] of MODES) {
          best[mode].one = Math.min(best[mode].one, runBatch(one, extra, outFile));
          best[mode].many = Math.min(best[mode].many, runBatch(many, extra, outFile));
        }
        cold.one = Math.min(cold.one, runApiChild(templatesDir, c.name, 1));
        cold.many = Math.min(cold.many, runApiChild(templatesDir, c.name, copies));
        const t0 = process.hrtime.bigint();
        for (let i = 0; i < n; i++) apiCall();
        apiMs = Math.min(apiMs, Number(process.hrtime.bigint() - t0) / 1e6 / n);
      }
      // the worker processes the default splits the file over
      const ranges = Math.max(1, Math.min(JOBS, Math.floor(copies / BATCH_RANGE_MIN.cases), Math.floor(statSync(many).size / BATCH_RANGE_MIN.bytes)));
      const row = { name: c.name, copies, ranges, apiUs: apiMs * 1000, apiColdUs: ((cold.many - cold.one) * 1000) / (copies - 1) };
      for (const [mode] of MODES) {
        row[mode] = {
          startMs: best[mode].one,
          totalMs: best[mode].many,
          perCaseUs: ((best[mode].many - best[mode].one) * 1000) / (copies - 1),
        };
      }
      rows.push(row);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (!rows.length) return rows;
  console.log(`best of ${RUNS} runs; start: the 1-line file (process start, addon load, first template load); prompts checked against the API`);
  console.log(`case                        API us/case  fresh process  /API | ${MODES.map(([m]) => `${m}: start ms  total ms  us/case  /API`).join(' | ')}`);
  for (const r of rows) {
    const fmt = (m) => `${cell(m.startMs.toFixed(0), m === r[MODES[0][0]] ? 16 : 17)}  ${cell(m.totalMs.toFixed(0), 8)}  ${cell(m.perCaseUs.toFixed(1), 7)}  ${cell((m.perCaseUs / r.apiUs).toFixed(2) + 'x', 5)}`;
    console.log(
      `${r.name.padEnd(26)} ${cell(r.apiUs.toFixed(1), 12)}  ${cell(r.apiColdUs.toFixed(1), 13)}  ${cell((r.apiColdUs / r.apiUs).toFixed(2) + 'x', 5)} | ${MODES.map(([m]) => fmt(r[m])).join(' | ')}`,
    );
  }
  const split = rows.map((r) => `${r.ranges} for ${r.name}`).join(', ');
  console.log(`(workers: the default, worker processes at once on this ${JOBS}-CPU machine, each rendering a range of the file (${split}); --jobs 1: one worker process; --in-process: this process.`);
  console.log(' /API: us per case over renderChat(request object, compiled template) of the same distinct cases, warm, in this process (the best of the runs above, timed between them, and of one timing before them); target for batch <= 1.5x.');
  console.log(` fresh process: the same API call timed as batch is, ${copies} calls minus 1 call in a new process: the JIT warm-up every fresh process pays)`);
  return rows;
}
