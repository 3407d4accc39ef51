// Prints the top self-time entries of a V8 .cpuprofile (node --cpu-prof):
//   node scripts/bench/cpuprofile-top.mjs FILE.cpuprofile [N]
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { root } from './cases.mjs';

const [file, n = '15'] = process.argv.slice(2);
const prof = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(prof.nodes.map((x) => [x.id, x]));
const self = new Map();
const dt = prof.timeDeltas;
let total = 0;
for (let i = 0; i < prof.samples.length; i++) {
  const node = byId.get(prof.samples[i]);
  const d = dt[i] ?? 0;
  total += d;
  const cf = node.callFrame;
  const where = cf.url ? `${relative(root, cf.url.replace(/^file:\/\//, ''))}:${cf.lineNumber + 1}` : '';
  const key = `${cf.functionName || '(anonymous)'} ${where}`.trim();
  self.set(key, (self.get(key) ?? 0) + d);
}
const rows = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(n));
console.log(`self time, ${(total / 1000).toFixed(0)} ms sampled`);
for (const [k, v] of rows) console.log(`${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`);
