#!/usr/bin/env node
// npm run fuzz -- --seconds N [--targets template,json,plan,request] [--no-build]
//
// Runs each fuzz target for N seconds (default 60), one after the other on
// one core at the lowest priority (nice 19):
//   template  libFuzzer: template source vs. a realistic context (native/fuzz/fuzz_template.cpp)
//   json      libFuzzer: the context-JSON parser (native/fuzz/fuzz_json.cpp)
//   plan      libFuzzer: the planned path, request shapes and the messages
//             built from plans (native/fuzz/fuzz_plan.cpp)
//   request   the TypeScript request decoder, differential against Python's
//             json module (scripts/fuzz/request-fuzz.mjs)
// The libFuzzer targets are built first (native/fuzz/build.sh, clang);
// seeds come from scripts/fuzz/seeds.mjs. Corpora grow in
// build-fuzz/corpus/<target>/, findings land in build-fuzz/artifacts/<target>/
// (crash-*, timeout-*, oom-*, leak-*, slow-unit-*); each new one is replayed
// alone, since a process starved of CPU can hit the wall-clock timeout on a
// fast input. Prints one summary line per target (wall and CPU seconds,
// executions, findings with `reproduced`); exits 1 when a run left a finding
// that reproduces.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSeeds } from './seeds.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const out = path.join(root, 'build-fuzz');

function parse(argv) {
  const o = { seconds: 60, targets: ['template', 'json', 'plan', 'request'], build: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--seconds') o.seconds = Number(argv[++i]);
    else if (a.startsWith('--seconds=')) o.seconds = Number(a.slice(10));
    else if (a === '--targets') o.targets = argv[++i].split(',');
    else if (a.startsWith('--targets=')) o.targets = a.slice(10).split(',');
    else if (a === '--no-build') o.build = false;
    else {
      console.error(`usage: npm run fuzz -- --seconds N [--targets template,json,plan,request] [--no-build]\nunknown argument ${a}`);
      process.exit(2);
    }
  }
  if (!(o.seconds > 0)) {
    console.error('--seconds must be a positive number');
    process.exit(2);
  }
  for (const t of o.targets) {
    if (!['template', 'json', 'plan', 'request'].includes(t)) {
      console.error(`unknown target ${t}`);
      process.exit(2);
    }
  }
  return o;
}

/** CPU seconds used by finished child processes of this process (Linux /proc; 0 elsewhere). */
function childCpuSeconds() {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields 16 and 17 of stat(5) (cutime, cstime), in clock ticks (100 per second on Linux)
    return (Number(f[13]) + Number(f[14])) / 100;
  } catch {
    return 0;
  }
}

function findings(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((f) => /^(crash|timeout|oom|leak|slow-unit)-/.test(f));
}

/** Runs one artifact through its target again (10 s, 2 GiB); true when it still fails. */
function replay(target, file) {
  const r = spawnSync(path.join(out, `fuzz_${target}`), [file, '-timeout=10', '-rss_limit_mb=2048', '-malloc_limit_mb=2048'],
    { stdio: 'ignore', env: { ...process.env, ASAN_OPTIONS: process.env.ASAN_OPTIONS ?? 'detect_leaks=1' } });
  return r.status !== 0;
}

function runLibFuzzer(target, seconds) {
  const corpus = path.join(out, 'corpus', target);
  const seeds = path.join(out, 'seeds', target);
  const artifacts = path.join(out, 'artifacts', target);
  fs.mkdirSync(corpus, { recursive: true });
  fs.mkdirSync(artifacts, { recursive: true });
  const before = new Set(findings(artifacts));
  const args = [
    '-n', '19', path.join(out, `fuzz_${target}`), corpus, seeds,
    `-max_total_time=${seconds}`, '-timeout=10', '-rss_limit_mb=2048', '-malloc_limit_mb=2048',
    `-max_len=${target === 'template' ? 65536 : 262144}`, `-artifact_prefix=${artifacts}/`, '-print_final_stats=1',
    // keep going after a finding so one run reports all of them
    '-fork=1', '-ignore_crashes=1', '-ignore_timeouts=1', '-ignore_ooms=1',
  ];
  if (target === 'template') args.push(`-dict=${path.join(root, 'native', 'fuzz', 'jinja.dict')}`);
  const t0 = Date.now();
  const cpu0 = childCpuSeconds();
  const r = spawnSync('nice', args, { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', maxBuffer: 1 << 28,
    env: { ...process.env, ASAN_OPTIONS: process.env.ASAN_OPTIONS ?? 'detect_leaks=1', UBSAN_OPTIONS: 'print_stacktrace=1' } });
  const log = path.join(out, `fuzz_${target}.log`);
  fs.writeFileSync(log, r.stderr ?? '');
  const execs = [...(r.stderr ?? '').matchAll(/#(\d+)[:\s]/g)].map((m) => Number(m[1])).pop() ?? 0;
  const cpuSeconds = Math.round(childCpuSeconds() - cpu0);
  // libFuzzer's timeout is wall-clock time, so a starved process can time out
  // on an input that is fast: every new finding is replayed alone.
  const fresh = findings(artifacts)
    .filter((f) => !before.has(f))
    .map((f) => ({ file: f, reproduced: replay(target, path.join(artifacts, f)) }));
  return { target, seconds: Math.round((Date.now() - t0) / 1000), cpuSeconds, execs, corpus: fs.readdirSync(corpus).length, findings: fresh, log };
}

function runRequest(seconds) {
  const artifacts = path.join(out, 'artifacts', 'request');
  fs.mkdirSync(artifacts, { recursive: true });
  const before = new Set(findings(artifacts));
  const t0 = Date.now();
  const cpu0 = childCpuSeconds();
  const r = spawnSync('nice', ['-n', '19', process.execPath, path.join(root, 'scripts', 'fuzz', 'request-fuzz.mjs'),
    '--seconds', String(seconds), '--seeds', path.join(out, 'seeds', 'request'), '--artifacts', artifacts],
  { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  const stats = (() => { try { return JSON.parse(r.stdout.trim().split('\n').pop()); } catch { return {}; } })();
  const fresh = findings(artifacts).filter((f) => !before.has(f));
  const cpuSeconds = Math.round(childCpuSeconds() - cpu0);
  return { target: 'request', seconds: Math.round((Date.now() - t0) / 1000), cpuSeconds, execs: stats.execs ?? 0, compared: stats.compared ?? 0, findings: fresh, status: r.status };
}

const o = parse(process.argv.slice(2));
if (o.build && o.targets.some((t) => t !== 'request')) {
  const b = spawnSync('bash', [path.join(root, 'native', 'fuzz', 'build.sh')], { stdio: 'inherit' });
  if (b.status !== 0) process.exit(b.status ?? 1);
}
console.error(`seeds: ${JSON.stringify(writeSeeds(path.join(out, 'seeds')))}`);
let bad = false;
for (const t of o.targets) {
  const res = t === 'request' ? runRequest(o.seconds) : runLibFuzzer(t, o.seconds);
  if (res.findings.some((f) => f.reproduced !== false) || (t === 'request' && res.status !== 0)) bad = true;
  console.log(JSON.stringify(res));
}
process.exit(bad ? 1 : 0);
