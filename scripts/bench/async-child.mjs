// Child processes of `npm run bench` for renderChatAsync (run with
// NODE_VLLM_CPP_ASYNC_WORKERS set by the parent):
//
//   node async-child.mjs main-thread TEMPLATE REQUEST.json [text|object]
//     main-thread cost per request: event-loop active time (ELU) over
//     thousands of renderChatAsync calls kept 50 in flight, divided by the
//     number of calls; prints one JSON line.
//   node async-child.mjs server MODE TEMPLATE REQUEST.json   (MODE: none | async | sync)
//     a node:http server on loopback rendering each POSTed body (the raw
//     request text) with renderChatAsync / renderChat, or only reading it
//     (none); answers IPC 'reset' / 'stats' with event-loop delay and ELU.
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { NOW, root } from './cases.mjs';

const api = createRequire(import.meta.url)(join(root, 'dist', 'cjs', 'index.js'));
const [role, ...args] = process.argv.slice(2);

// CPU time of the main thread alone (Linux: /proc/self/task/<pid>/stat,
// utime + stime in clock ticks); elsewhere undefined and ELU is reported.
// On a loaded machine ELU's "active" also counts time the thread waited
// for a core; the CPU time does not.
const TICK_MS = (() => {
  try {
    return 1000 / Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());
  } catch {
    return 10;
  }
})();
function mainThreadCpuMs() {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * TICK_MS;
  } catch {
    return undefined;
  }
}

function optionsFor(templatePath) {
  return { template: api.compileTemplate(readFileSync(templatePath, 'utf8')), bosToken: '<bos>', eosToken: '<eos>', now: NOW };
}

async function mainThread(templatePath, requestPath, form = 'text') {
  const opts = optionsFor(templatePath);
  // the raw JSON text a server has, or the request as a JS object
  const text = form === 'object' ? JSON.parse(readFileSync(requestPath, 'utf8')) : readFileSync(requestPath, 'utf8');
  const run = async (total) => {
    let next = 0;
    const lane = async () => {
      while (next++ < total) await api.renderChatAsync(text, opts);
    };
    await Promise.all(Array.from({ length: 50 }, lane));
  };
  // the whole pipeline on the main thread, for scale
  const syncTotal = 2000;
  for (let i = 0; i < 200; i++) api.renderChat(text, opts);
  const c1 = mainThreadCpuMs();
  const s0 = performance.now();
  for (let i = 0; i < syncTotal; i++) api.renderChat(text, opts);
  const syncWallMs = (performance.now() - s0) / syncTotal;
  const syncCpu = mainThreadCpuMs() - c1;
  await run(500);
  const total = 6000;
  const c0 = mainThreadCpuMs();
  const e0 = performance.eventLoopUtilization();
  const t0 = performance.now();
  await run(total);
  const wall = performance.now() - t0;
  const elu = performance.eventLoopUtilization(e0);
  const cpu = mainThreadCpuMs() - c0;
  console.log(JSON.stringify({
    mainCpuMs: c0 === undefined ? undefined : cpu / total,
    mainEluMs: elu.active / total,
    wallMs: wall / total,
    syncCpuMs: c1 === undefined ? undefined : syncCpu / syncTotal,
    syncWallMs,
  }));
}

function server(mode, templatePath, requestPath) {
  const opts = optionsFor(templatePath);
  const expected = api.renderChat(readFileSync(requestPath, 'utf8'), opts).prompt;
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  let elu0 = performance.eventLoopUtilization();
  let cpu0 = mainThreadCpuMs();
  let served = 0;
  let wrong = 0;
  const reply = (res, prompt) => {
    if (prompt !== undefined && prompt !== expected) wrong++;
    served++;
    const body = JSON.stringify({ chars: prompt === undefined ? 0 : prompt.length });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };
  const srv = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (mode === 'none') return reply(res, undefined);
      if (mode === 'sync') return reply(res, api.renderChat(text, opts).prompt);
      api.renderChatAsync(text, opts).then(
        (r) => reply(res, r.prompt),
        (e) => {
          res.writeHead(500);
          res.end(String(e));
        },
      );
    });
  });
  srv.listen(0, '127.0.0.1', () => process.send({ port: srv.address().port }));
  process.on('message', (m) => {
    if (m === 'reset') {
      h.reset();
      elu0 = performance.eventLoopUtilization();
      cpu0 = mainThreadCpuMs();
      served = 0;
      wrong = 0;
      process.send({ reset: true });
    } else if (m === 'stats') {
      const elu = performance.eventLoopUtilization(elu0);
      process.send({
        served,
        wrong,
        lagP50: h.percentile(50) / 1e6,
        lagP99: h.percentile(99) / 1e6,
        lagMax: h.max / 1e6,
        mainEluMsPerRequest: served ? elu.active / served : 0,
        mainCpuMsPerRequest: served && cpu0 !== undefined ? (mainThreadCpuMs() - cpu0) / served : undefined,
      });
    } else if (m === 'exit') {
      process.exit(0);
    }
  });
}

if (role === 'main-thread') await mainThread(args[0], args[1], args[2]);
else if (role === 'server') server(args[0], args[1], args[2]);
else throw new Error(`unknown role ${role}`);
