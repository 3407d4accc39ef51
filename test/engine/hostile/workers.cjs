// Child process of hardening.test.ts: starts worker_threads Workers that
// render runaway templates with the addon (sync in some rounds, several
// thread-pool renders in others, both in the rest) and terminates them
// mid-render. Prints one JSON line at the end; a crash of the process
// (SIGABRT, SIGSEGV) shows as a missing line and a signal in the parent.
'use strict';
const path = require('path');
const { Worker, isMainThread, parentPort, workerData } = require('worker_threads');

const root = path.join(__dirname, '..', '..', '..');
const RUNAWAY = '{% for i in range(100000) %}{% for j in range(100000) %}{{ i }}{% endfor %}{% endfor %}';

function load() {
  return process.env.NODE_VLLM_CPP_ADDON
    ? require(path.resolve(process.env.NODE_VLLM_CPP_ADDON))
    : require('node-gyp-build')(root);
}

if (isMainThread) {
  const rounds = Number(process.argv[2] || 100);
  (async () => {
    let slowest = 0;
    const t0 = Date.now();
    for (let r = 0; r < rounds; r++) {
      const mode = ['sync', 'async', 'both'][r % 3];
      const w = new Worker(__filename, { workerData: { mode } });
      w.on('error', () => {});
      await new Promise((res) => w.once('message', res));
      await new Promise((res) => setTimeout(res, r % 7));
      const t = Date.now();
      await w.terminate();
      slowest = Math.max(slowest, Date.now() - t);
    }
    // The main environment still renders after all of that.
    const out = new (load().CompiledTemplate)('{{ 6 * 7 }}').render('{}');
    process.stdout.write(JSON.stringify({ rounds, slowestTerminateMs: slowest, totalMs: Date.now() - t0, out }) + '\n');
  })();
} else {
  const t = new (load().CompiledTemplate)(RUNAWAY);
  const opts = { maxRenderMs: 20000, maxOutputBytes: 1 << 30, maxSteps: 1e15 };
  if (workerData.mode !== 'sync') for (let k = 0; k < 3; k++) t.renderAsync('{}', opts).then(() => {}, () => {});
  parentPort.postMessage('started');
  if (workerData.mode !== 'async') {
    try {
      t.render('{}', opts);
    } catch {
      // a limit; the parent terminates long before
    }
  }
}
