// The per-request sections of `npm run bench`, all measured in one run:
//   1. per bench case: bare native render (compileTemplate().renderJson of
//      the context renderChat builds), renderChat with a JS object and with
//      the raw JSON text, and, in Python on the same contexts, pinned vLLM
//      0.25.0's whole per-request path, minijinja's bare render and Jinja2's
//      bare render -> ratios;
//   2. history-length scaling, microseconds per message;
//   3. renderChatAsync: main-thread cost per request, and event-loop delay
//      of a node:http server under autocannon (50 connections) against a
//      no-render baseline.
import { execFileSync, fork } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchCases, history, NOW, NOW_FIELDS, root, smallToolLoop, withOwnFirstMessage } from './cases.mjs';

const require = createRequire(import.meta.url);
const RUNS = 9;

/**
 * Best of RUNS timed runs of n calls after a warm-up, in ms per call, the
 * functions taking turns run by run so that a busy spell on a shared
 * machine hits them alike (the Python side also keeps the best of 9). An
 * entry may be `{ setup, run }`: setup runs untimed before each timed run().
 */
export function timeAll(fns, n) {
  const best = {};
  const entries = Object.entries(fns).map(([k, f]) => [k, typeof f === 'function' ? { run: f } : f]);
  for (const [k, { setup, run }] of entries) {
    for (let i = 0; i < Math.max(50, Math.min(n, 500)); i++) {
      setup?.();
      run();
    }
    best[k] = Infinity;
  }
  for (let r = 0; r < RUNS; r++) {
    for (const [k, { setup, run }] of entries) {
      let ns = 0n;
      if (setup === undefined) {
        const t0 = process.hrtime.bigint();
        for (let i = 0; i < n; i++) run();
        ns = process.hrtime.bigint() - t0;
      } else {
        for (let i = 0; i < n; i++) {
          setup();
          const t0 = process.hrtime.bigint();
          run();
          ns += process.hrtime.bigint() - t0;
        }
      }
      best[k] = Math.min(best[k], Number(ns) / 1e6 / n);
    }
  }
  return best;
}

/**
 * Raw-text requests nothing recent shares messages with: each has its own
 * first message, and there are more of them than conversations kept.
 */
function coldTexts(request, variants = 400) {
  return Array.from({ length: variants }, (_, i) => JSON.stringify(withOwnFirstMessage(request, i)));
}

/** The context JSON renderChat builds for request `text` with `compiled` (source `src`), bench tokens. */
function contextJsonOf(api, compiled, src, text) {
  const facts = { contentFormat: compiled.contentFormat, undeclaredVariables: compiled.undeclaredVariables, templateSource: src };
  return api.buildTemplateContext(text, facts, { specialTokens: { bos_token: '<bos>', eos_token: '<eos>' } }).contextJson;
}

/**
 * An agent loop ending in `request`: its last K turns (K <= 10), each the
 * previous one plus two messages, rendered in order (`turn`, one request per
 * call; the loop's first request is rendered untimed before each pass), and
 * the bare render of the same turns' contexts (`bare`).
 */
function agentLoop(api, compiled, src, request, opts) {
  const n = request.messages.length;
  const turns = Math.max(1, Math.min(10, Math.floor((n - 2) / 2)));
  const texts = [];
  for (let j = 0; j <= turns; j++) texts.push(JSON.stringify({ ...request, messages: request.messages.slice(0, n - 2 * (turns - j)) }));
  const contexts = texts.slice(1).map((t) => contextJsonOf(api, compiled, src, t));
  let b = 0;
  let bk = 0;
  // the loop's requests in order, each timed call one turn (the first request rendered untimed before each pass)
  const loopOf = (requests) => {
    let j = 0;
    return {
      setup: () => {
        if (j === 0) api.renderChat(requests[0], opts);
      },
      run: () => {
        api.renderChat(requests[j + 1], opts);
        j = (j + 1) % turns;
      },
    };
  };
  const turn = loopOf(texts);
  // the same loop as the objects a server's body parser gives (JSON.parse of each turn's text)
  const objects = texts.map((t) => JSON.parse(t));
  const objTurn = loopOf(objects);
  // the bare render parsing each context whole, and (bareKept) taking the messages the previous turn's render parsed
  const bare = () => {
    compiled.renderJson(contexts[b], WHOLE);
    b = (b + 1) % turns;
  };
  const bareKept = () => {
    compiled.renderJson(contexts[bk], { now: NOW_FIELDS });
    bk = (bk + 1) % turns;
  };
  const same = texts.slice(1).every((t, i) => api.renderChat(t, opts).prompt === compiled.renderJson(contexts[i], WHOLE) && api.renderChat(objects[i + 1], opts).prompt === compiled.renderJson(contexts[i], WHOLE));
  return { turn, objTurn, bare, bareKept, turns, same };
}

/**
 * The bare render's options: the whole context parsed on every call, as a
 * render from scratch (renderJson otherwise takes the messages it parsed
 * for a recent context with the same leading bytes: reuseParsed).
 */
const WHOLE = { now: NOW_FIELDS, reuseParsed: false };

/** Enough iterations for ~targetMs per timed run. */
function iterationsFor(fn, targetMs, min = 5, max = 5000) {
  const t0 = process.hrtime.bigint();
  fn();
  fn();
  const one = Number(process.hrtime.bigint() - t0) / 2e6;
  return Math.max(min, Math.min(max, Math.ceil(targetMs / Math.max(one, 1e-3))));
}

function pythonWith(python, modules) {
  if (!existsSync(python)) return `${python} not found`;
  try {
    execFileSync(python, ['-c', `import ${modules.join(', ')}`], { stdio: 'ignore' });
    return undefined;
  } catch {
    return `${python} lacks ${modules.join('/')}`;
  }
}

function runPython(python, mode, jobs) {
  const dir = mkdtempSync(join(tmpdir(), 'nvc-bench-'));
  writeFileSync(join(dir, 'jobs.json'), JSON.stringify(jobs));
  const out = execFileSync(python, [join(root, 'scripts', 'bench', 'python_side.py'), mode, join(dir, 'jobs.json')], {
    maxBuffer: 1 << 30,
    env: { ...process.env, TOKENIZERS_PARALLELISM: 'false' },
  });
  return JSON.parse(out.toString());
}

const fmt = (ms) => (ms >= 10 ? ms.toFixed(1) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(3));
const x = (r) => `${r >= 100 ? r.toFixed(0) : r.toFixed(2)}x`;
const cell = (s, w) => String(s).padStart(w);

export function pythons() {
  const benchVenv = process.env.NODE_VLLM_CPP_BENCH_PYTHON ?? join(process.env.TMPDIR ?? tmpdir(), 'node-vllm-cpp-bench-venv', 'bin', 'python');
  const golden = join(root, 'scripts', 'golden', '.venv', 'bin', 'python');
  const mjWhy = pythonWith(benchVenv, ['minijinja', 'jinja2']);
  const vllmWhy = pythonWith(golden, ['vllm', 'transformers']);
  return {
    minijinja: mjWhy ? { skip: `${mjWhy} (run scripts/bench/setup-minijinja)` } : { python: benchVenv },
    vllm: vllmWhy ? { skip: `${vllmWhy} (run scripts/golden/setup)` } : { python: golden },
    jinja2: mjWhy ? { python: 'python3' } : { python: benchVenv },
  };
}

/** Section 1. Returns the rows for the caller (docs, checks). */
export function caseTable(api, templatesDir, { targetMs = 60 } = {}) {
  const py = pythons();
  const rows = [];
  const jobs = {};
  console.log('\nPer-request path: bare native render vs renderChat (object / raw JSON text) vs Python, same contexts, same run');
  for (const c of benchCases(templatesDir)) {
    if (c.skip) {
      console.log(`skip ${c.name}: ${c.skip}`);
      continue;
    }
    const src = readFileSync(c.path, 'utf8');
    const compiled = api.compileTemplate(src);
    const opts = { template: compiled, bosToken: '<bos>', eosToken: '<eos>', now: NOW };
    const text = JSON.stringify(c.request);
    const cold = coldTexts(c.request);
    const loop = agentLoop(api, compiled, src, c.request, opts);
    const contextJson = contextJsonOf(api, compiled, src, text);
    const now = NOW_FIELDS;
    const bareFn = () => compiled.renderJson(contextJson, WHOLE);
    const objFn = () => api.renderChat(c.request, opts);
    const textFn = () => api.renderChat(text, opts);
    let next = 0;
    const coldFn = () => api.renderChat(cold[next++ % cold.length], opts);
    // the bare render of the cold requests' own contexts, in the same rotation
    const coldContexts = cold.map((t) => contextJsonOf(api, compiled, src, t));
    let nextContext = 0;
    const bareColdFn = () => compiled.renderJson(coldContexts[nextContext++ % coldContexts.length], WHOLE);
    // the cold requests as the objects a server's body parser gives
    const coldObjects = cold.map((t) => JSON.parse(t));
    let nextObject = 0;
    const objColdFn = () => api.renderChat(coldObjects[nextObject++ % coldObjects.length], opts);
    const prompt = bareFn();
    const coldPrompt = coldFn().prompt;
    // (the first bare render of the rotation is cold[0]'s own context)
    const same = loop.same && objFn().prompt === prompt && textFn().prompt === prompt && objColdFn().prompt === coldPrompt && bareColdFn() === coldPrompt;
    const n = iterationsFor(coldFn, targetMs);
    const row = { name: c.name, messages: c.request.messages.length, bytes: text.length, n, same, prompt };
    const t = timeAll({ bare: bareFn, bareCold: bareColdFn, obj: objFn, objCold: objColdFn, cold: coldFn, turn: loop.turn, objTurn: loop.objTurn, turnBare: loop.bare, turnBareKept: loop.bareKept, repeat: textFn }, n);
    row.bareMs = t.bare;
    row.turnBareKeptMs = t.turnBareKept;
    row.objMs = t.obj;
    row.objColdMs = t.objCold;
    row.coldMs = t.cold;
    row.bareColdMs = t.bareCold;
    // per request of the case's own size: the loop's ratio to its bare render, times the case's bare render
    row.turnMs = (t.turn / t.turnBare) * t.bare;
    row.loopMs = t.turn;
    row.objTurnMs = (t.objTurn / t.turnBare) * t.bare;
    row.objLoopMs = t.objTurn;
    row.turnBareMs = t.turnBare;
    row.turns = loop.turns;
    row.repeatMs = t.repeat;
    rows.push(row);
    jobs[c.name] = { template: src, context_json: contextJson, request_text: text, bos: '<bos>', eos: '<eos>', n: Math.max(10, Math.ceil(n / 4)) };
  }
  const results = {};
  for (const mode of Object.keys(jobs).length ? ['vllm', 'minijinja', 'jinja2'] : []) {
    if (py[mode].skip) {
      console.log(`${mode} column skipped: ${py[mode].skip}`);
      continue;
    }
    try {
      results[mode] = runPython(py[mode].python, mode, jobs);
    } catch (e) {
      console.log(`${mode} column failed: ${String(e.stderr ?? e).split('\n').slice(-3).join(' ')}`);
    }
  }
  const versions = [];
  if (results.vllm) versions.push(`vLLM path: ${py.vllm.python}`);
  if (results.minijinja) versions.push(`minijinja/jinja2: ${py.minijinja.python}`);
  if (versions.length) console.log(versions.join('; '));
  console.log(
    'case                        msgs   bare ms |  obj ms  /bare  obj cold ms  /bare  obj turn ms  /bare | text: cold ms  /bare  /own  next turn ms  /bare  /kept  repeat ms  /bare  text/obj | vLLM path ms  /cold  /turn | minijinja ms  /cold  /turn | jinja2 ms | same prompt (ours, vLLM, mj)',
  );
  for (const r of rows) {
    const v = results.vllm?.[r.name];
    const m = results.minijinja?.[r.name];
    const j = results.jinja2?.[r.name];
    const col = (res, w) => (res === undefined ? cell('-', w) : res.error ? cell('error', w) : cell(fmt(res.ms), w));
    const ratio = (res, ours, w) => (res === undefined || res.error ? cell('-', w) : cell(x(res.ms / ours), w));
    const sameAs = (res) => (res === undefined ? '-' : res.error ? res.error.slice(0, 40) : res.prompt === r.prompt ? 'yes' : 'NO');
    r.vllmMs = v?.ms;
    r.minijinjaMs = m?.ms;
    r.jinja2Ms = j?.ms;
    r.vllmSame = v?.prompt === r.prompt;
    r.minijinjaSame = m?.prompt === r.prompt;
    console.log(
      `${r.name.padEnd(26)} ${cell(r.messages, 5)} ${cell(fmt(r.bareMs), 9)} | ${cell(fmt(r.objMs), 7)} ${cell(x(r.objMs / r.bareMs), 6)} ${cell(fmt(r.objColdMs), 12)} ${cell(x(r.objColdMs / r.bareMs), 6)} ${cell(fmt(r.objTurnMs), 12)} ${cell(x(r.objLoopMs / r.turnBareMs), 6)} | ${cell(fmt(r.coldMs), 13)} ${cell(x(r.coldMs / r.bareMs), 6)} ${cell(x(r.coldMs / r.bareColdMs), 5)} ${cell(fmt(r.turnMs), 13)} ${cell(x(r.loopMs / r.turnBareMs), 6)} ${cell(x(r.loopMs / r.turnBareKeptMs), 6)} ${cell(fmt(r.repeatMs), 10)} ${cell(x(r.repeatMs / r.bareMs), 6)} ${cell(x(Math.max(r.coldMs / r.objColdMs, r.loopMs / r.objLoopMs, r.repeatMs / r.objMs)), 9)} | ${col(v, 12)} ${ratio(v, r.coldMs, 6)} ${ratio(v, r.turnMs, 6)} | ${col(m, 12)} ${ratio(m, r.coldMs, 6)} ${ratio(m, r.turnMs, 6)} | ${col(j, 9)} | ${r.same ? 'yes' : 'NO'}, ${sameAs(v)}, ${sameAs(m)}`,
    );
  }
  console.log(
    '(/bare: renderChat time over the bare render of the same context parsing the whole context (reuseParsed: false), target <= 1.25x. obj = the request as one JS object, again and again; obj cold = the cold requests below as parsed objects (what a server\'s body parser gives); obj turn = the next-turn loop below as parsed objects, /bare and ms as for next turn. Raw-text requests: cold = one that shares no messages with a recent request (decoded once, natively: planned messages), /own over the bare render of those requests\' own contexts in the same rotation (the bare column renders one context again and again); ' +
      'next turn = an agent loop, the last turns of the case (up to 10) in order, each the previous request plus two messages (only those are decoded, built and parsed natively), /bare over the bare render of the same turns, ms scaled to the size of the case by that ratio; ' +
      '/kept: over the bare render of the same turns taking the previous turn\'s parsed messages too (renderJson\'s default); repeat = the same text again; text/obj: the largest of text over object like for like (cold over obj cold, next turn over obj turn, repeat over obj), target <= 1. ' +
      'vLLM and minijinja columns: their time over our cold and next-turn times)',
  );
  return rows;
}

/** Section 2: cost per message as the history grows. */
export function scaling(api, templatesDir) {
  const file = join(templatesDir, 'qwen3__official.jinja');
  if (!existsSync(file)) {
    console.log(`\nskip history scaling: ${file} not found`);
    return [];
  }
  const src = readFileSync(file, 'utf8');
  const compiled = api.compileTemplate(src);
  const opts = { template: compiled, bosToken: '<bos>', eosToken: '<eos>', now: NOW };
  console.log('\nHistory-length scaling (qwen3, raw JSON text request): microseconds per message; cold = a request sharing no messages with a recent one, next turn = the agent loop of section 1 (over its bare render parsing each context whole, and over the bare render taking the parsed messages of the previous turn: /kept)');
  console.log('messages   request KB   cold ms   us/msg   next turn ms   us/msg   bare render ms   us/msg   next turn /bare   /kept');
  const out = [];
  for (const total of [10, 100, 1000, 10000]) {
    const request = history(total);
    const text = JSON.stringify(request);
    const cold = coldTexts(request, 40);
    const loop = agentLoop(api, compiled, src, request, opts);
    const contextJson = contextJsonOf(api, compiled, src, text);
    let next = 0;
    const coldFn = () => api.renderChat(cold[next++ % cold.length], opts);
    const bareFn = () => compiled.renderJson(contextJson, WHOLE);
    const n = iterationsFor(coldFn, 100, 3, 2000);
    const t = timeAll({ cold: coldFn, turn: loop.turn, turnBare: loop.bare, turnBareKept: loop.bareKept, bare: bareFn }, n);
    out.push({ total, full: t.cold, turn: t.turn, turnBare: t.turnBare, turnBareKept: t.turnBareKept, bare: t.bare });
    const per = (ms) => ((ms * 1000) / total).toFixed(2);
    console.log(
      `${cell(total, 8)}   ${cell((text.length / 1024).toFixed(0), 10)}   ${cell(fmt(t.cold), 7)}   ${cell(per(t.cold), 6)}   ${cell(fmt(t.turn), 12)}   ${cell(per(t.turn), 6)}   ${cell(fmt(t.bare), 14)}   ${cell(per(t.bare), 6)}   ${cell(x(t.turn / t.turnBare), 15)}   ${cell(x(t.turn / t.turnBareKept), 5)}`,
    );
  }
  return out;
}

function child(args, env) {
  return JSON.parse(
    execFileSync(process.execPath, [join(root, 'scripts', 'bench', 'async-child.mjs'), ...args], { env: { ...process.env, ...env } })
      .toString()
      .trim()
      .split('\n')
      .pop(),
  );
}

/** Section 3: renderChatAsync off the main thread. */
export async function asyncSection(templatesDir, { duration = 5, overallRate = 500 } = {}) {
  const file = join(templatesDir, 'gemma4__official_v4.jinja');
  if (!existsSync(file)) {
    console.log(`\nskip renderChatAsync section: ${file} not found`);
    return {};
  }
  const dir = mkdtempSync(join(tmpdir(), 'nvc-bench-'));
  const reqPath = join(dir, 'request.json');
  const body = JSON.stringify(smallToolLoop());
  writeFileSync(reqPath, body);
  console.log('\nrenderChatAsync, small Gemma 4 agent request as raw JSON text: main-thread CPU per request (6,000 calls, 50 in flight)');
  const pooled = child(['main-thread', file, reqPath], {});
  const pooledObject = child(['main-thread', file, reqPath, 'object'], {});
  const here = child(['main-thread', file, reqPath], { NODE_VLLM_CPP_ASYNC_WORKERS: '0' });
  const ms = (v) => (v === undefined ? '-' : v.toFixed(3));
  console.log('                                        main-thread CPU ms/req   event-loop busy ms/req   wall ms/req');
  console.log(`renderChat (sync, for scale)             ${cell(ms(pooled.syncCpuMs), 22)}   ${cell(ms(pooled.syncWallMs), 22)}`);
  console.log(`renderChatAsync, worker pool             ${cell(ms(pooled.mainCpuMs), 22)}   ${cell(ms(pooled.mainEluMs), 22)}   ${cell(ms(pooled.wallMs), 11)}`);
  console.log(`renderChatAsync, pool, object request    ${cell(ms(pooledObject.mainCpuMs), 22)}   ${cell(ms(pooledObject.mainEluMs), 22)}   ${cell(ms(pooledObject.wallMs), 11)}`);
  console.log(`renderChatAsync, pool off (libuv render) ${cell(ms(here.mainCpuMs), 22)}   ${cell(ms(here.mainEluMs), 22)}   ${cell(ms(here.wallMs), 11)}`);

  const autocannon = require('autocannon');
  const modes = [
    ['no render (baseline)', 'none', {}],
    ['renderChatAsync, worker pool', 'async', {}],
    ['renderChatAsync, pool off', 'async', { NODE_VLLM_CPP_ASYNC_WORKERS: '0' }],
    ['renderChat (sync)', 'sync', {}],
  ];
  const load = {};
  for (const rate of [undefined, overallRate]) {
    console.log(
      `\nnode:http server, POST of that request, autocannon 50 connections x ${duration} s on loopback (same machine), ${rate === undefined ? 'as fast as it goes' : `a fixed ${rate} requests/s for every server`}`,
    );
    console.log('server                          req/s   latency p50 ms   p99 ms | event-loop delay p50 ms   p99 ms    max ms | main-thread CPU ms/req');
    for (const [label, mode, env] of modes) {
      const srv = fork(join(root, 'scripts', 'bench', 'async-child.mjs'), ['server', mode, file, reqPath], { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      const ask = (m) => new Promise((resolve) => {
        srv.once('message', resolve);
        srv.send(m);
      });
      const { port } = await new Promise((resolve) => srv.once('message', resolve));
      const fire = (seconds) =>
        new Promise((resolve, reject) =>
          autocannon(
            { url: `http://127.0.0.1:${port}/v1/chat/completions`, method: 'POST', body, headers: { 'content-type': 'application/json' }, connections: 50, duration: seconds, ...(rate ? { overallRate: rate } : {}) },
            (e, r) => (e ? reject(e) : resolve(r)),
          ),
        );
      await fire(1); // warm-up: JIT, workers started, template compiled in each
      await ask('reset');
      const r = await fire(duration);
      const s = await ask('stats');
      srv.send('exit');
      load[`${mode}${env.NODE_VLLM_CPP_ASYNC_WORKERS === '0' ? '-off' : ''}@${rate ?? 'max'}`] = { ...s, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx };
      const bad = r.errors + r.non2xx + s.wrong ? `  (${r.errors} errors, ${r.non2xx} non-2xx, ${s.wrong} wrong prompts)` : '';
      console.log(
        `${label.padEnd(30)} ${cell(r.requests.average.toFixed(0), 6)}   ${cell(r.latency.p50.toFixed(1), 14)}   ${cell(r.latency.p99.toFixed(1), 6)} | ${cell(s.lagP50.toFixed(2), 23)}   ${cell(s.lagP99.toFixed(2), 6)}   ${cell(s.lagMax.toFixed(1), 7)} | ${cell(s.mainCpuMsPerRequest === undefined ? '-' : s.mainCpuMsPerRequest.toFixed(3), 22)}${bad}`,
      );
    }
  }
  return { pooled, pooledObject, here, load };
}
