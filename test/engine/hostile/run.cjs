// Child process of hostile.test.ts: renders every payload of payloads.json
// with the addon and prints one JSON line per payload as soon as it ends, so
// a crash (a signal, an abort) is seen by the parent as a missing line
// instead of taking the test runner down.
'use strict';
const fs = require('fs');
const path = require('path');

const root = path.join(__dirname, '..', '..', '..');
const binding = process.env.NODE_VLLM_CPP_ADDON
  ? require(path.resolve(process.env.NODE_VLLM_CPP_ADDON))
  : require('node-gyp-build')(root);
const { payloads } = JSON.parse(fs.readFileSync(path.join(__dirname, 'payloads.json'), 'utf8'));
const only = process.argv[2];
const options = { now: [2026, 1, 15, 10, 30, 5, 123456], maxRenderMs: 2000 };

for (const p of payloads) {
  if (only && p.id !== only) continue;
  const t0 = process.hrtime.bigint();
  const line = { id: p.id };
  try {
    const out = new binding.CompiledTemplate(p.template).render(p.context_json ?? '{}', options);
    line.out = out;
  } catch (e) {
    line.kind = e && e.kind;
    line.pythonType = e && e.pythonType;
    line.message = String(e && e.message).slice(0, 300);
  }
  line.ms = Number(process.hrtime.bigint() - t0) / 1e6;
  line.rssMb = Math.round(process.resourceUsage().maxRSS / 1024);
  fs.writeSync(1, JSON.stringify(line) + '\n');
}
