#!/usr/bin/env node
// Seeded mutation fuzzer for the TypeScript request decoder (src/protocol/
// pyjson.ts) and the request pipeline in front of the engine, with Python's
// json module as the oracle (scripts/fuzz/pyjson_oracle.py):
//   1. parsePyJson(text) returns or throws PyJsonDecodeError, nothing else;
//   2. it agrees with Python's json.loads: the same value (tagged tree,
//      int/float split, key order) or the same exception class and str(e)
//      (documents nested past the decoder's bound are not compared: Python's
//      limit is its recursion limit);
//   3. pyJsonDumps(value) is Python's json.dumps(value, ensure_ascii=False),
//      and serializePyJson(value) decodes back to the same value;
//   4. buildTemplateContext(text) returns or throws a NodeVllmError (never a
//      RangeError, TypeError, ...), and what it hands the engine decodes.
// Runs on the compiled package (dist/cjs; `npm run build:ts` first).
//   node scripts/fuzz/request-fuzz.mjs --seconds N [--seeds DIR] [--artifacts DIR] [--seed S]
// Each finding is written to ARTIFACTS/crash-<sha1> (the input) plus a .txt
// with the reason. The last stdout line is a JSON summary.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const require = createRequire(import.meta.url);
const pj = require(path.join(root, 'dist', 'cjs', 'protocol', 'pyjson.js'));
const conv = require(path.join(root, 'dist', 'cjs', 'conversation', 'index.js'));
const { NodeVllmError } = require(path.join(root, 'dist', 'cjs', 'errors.js'));

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const seconds = Number(opt('--seconds', '60'));
const seedDir = opt('--seeds', path.join(root, 'build-fuzz', 'seeds', 'request'));
const artifacts = opt('--artifacts', path.join(root, 'build-fuzz', 'artifacts', 'request'));
let state = Number(opt('--seed', String(Date.now() % 2147483647))) >>> 0;
fs.mkdirSync(artifacts, { recursive: true });

function rand() {
  // mulberry32
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (a) => a[Math.floor(rand() * a.length)];

const seeds = fs.existsSync(seedDir) ? fs.readdirSync(seedDir).map((f) => fs.readFileSync(path.join(seedDir, f), 'utf8')) : [];
if (seeds.length === 0) seeds.push('{"messages": [{"role": "user", "content": "hi"}]}');

const TOKENS = [
  '{', '}', '[', ']', '"', ':', ',', '\\', '\\u', '\\ud800', '\\udc00', '\\ud83d\\ude00', '\\u00e9', '\\n', '\\"', '\\/', '\\x',
  '0', '-', '.', 'e', 'E', '+', '1e400', '-1e-400', '1.0', '-0', '-0.0', '1E+2', '0.1', '5e-324', 'NaN', 'Infinity', '-Infinity',
  'true', 'false', 'null', 'nul', ' ', '\n', '\t', '\r', '\x00', '\x1f', '\x7f', '\u00e9', '\u2028', '\ufeff', '\ud800', '\udfff',
  '\u{1f600}', '12345678901234567890', '9007199254740993', '-9223372036854775809', '1'.repeat(4301), '"__proto__"', '"10"',
  '"2"', '"role"', '"messages"', '"content"', '"tool_calls"', '"arguments"', '"function"', '"name"', '"type"', '"tools"',
  '"parameters"', '"assistant"', '"user"', '"tool"', '"developer"', '"text"', '"chat_template_kwargs"', '"add_generation_prompt"',
  '"continue_final_message"', '"reasoning_content"', '"documents"',
];

function mutate(s) {
  const n = 1 + Math.floor(rand() * 6);
  for (let k = 0; k < n; k++) {
    const i = Math.floor(rand() * (s.length + 1));
    const j = Math.min(s.length, i + Math.floor(rand() * 16));
    switch (Math.floor(rand() * 8)) {
      case 0: s = s.slice(0, i) + pick(TOKENS) + s.slice(i); break;
      case 1: s = s.slice(0, i) + s.slice(j); break;
      case 2: s = s.slice(0, i) + s.slice(i, j) + s.slice(i); break;
      case 3: s = s.slice(0, i) + pick(TOKENS) + s.slice(j); break;
      case 4: { const o = pick(seeds); const a = Math.floor(rand() * o.length); s = s.slice(0, i) + o.slice(a, a + Math.floor(rand() * 64)) + s.slice(j); break; }
      case 5: s = s.slice(0, i) + String.fromCharCode(Math.floor(rand() * 0x10000)) + s.slice(i); break;
      case 6: { const d = 1 + Math.floor(rand() * 1100); s = '['.repeat(d) + s + ']'.repeat(d); break; }
      default: s = s.replace(/-?\d+(\.\d+)?([eE][-+]?\d+)?/, () => pick(['0', '-0', '1.0', '1e16', '1e22', '123456789012345678901234567890', '2.5e-8', '1e400'])); break;
    }
  }
  return s.length > 200_000 ? s.slice(0, 200_000) : s;
}

function tagOf(v) {
  if (v === null || v === undefined) return ['none'];
  if (typeof v === 'boolean') return ['bool', v];
  if (typeof v === 'bigint') return ['int', v.toString()];
  if (typeof v === 'number') {
    if (Number.isInteger(v) && !Object.is(v, -0)) return ['int', Number.isSafeInteger(v) ? String(v) : BigInt(v).toString()];
    return ['float', pj.pyFloatRepr(v)];
  }
  if (v instanceof pj.PyFloat) return ['float', pj.pyFloatRepr(v.value)];
  if (typeof v === 'string') return ['str', v];
  if (Array.isArray(v)) return ['list', v.map(tagOf)];
  return ['dict', pj.pyEntries(v).map(([k, x]) => [k, tagOf(x)])];
}

const facts = { contentFormat: 'string', undeclaredVariables: new Set(['messages', 'tools', 'documents']), supportsDeveloperRole: false };
const seen = new Set();
let findings = 0;
let execs = 0;
let compared = 0;

function finding(input, reason) {
  const key = reason.slice(0, 120);
  if (seen.has(key)) return;
  seen.add(key);
  findings++;
  const name = 'crash-' + createHash('sha1').update(input).digest('hex');
  fs.writeFileSync(path.join(artifacts, name), input);
  fs.writeFileSync(path.join(artifacts, name + '.txt'), reason + '\n');
  console.error(`finding: ${reason.slice(0, 300)}`);
}

function ours(text) {
  try {
    const v = pj.parsePyJson(text);
    return { ok: true, value: v, tag: tagOf(v) };
  } catch (e) {
    if (e instanceof pj.PyJsonDecodeError) return { ok: false, type: e.pythonType, message: e.message, deep: e.msg === pj.NESTING_TOO_DEEP };
    finding(text, `parsePyJson threw ${e?.name}: ${e?.message}`);
    return undefined;
  }
}

function pipeline(text) {
  try {
    const built = conv.buildTemplateContext(text, facts, { specialTokens: { bos_token: '<s>', eos_token: '</s>' } });
    pj.parsePyJson(built.contextJson);
  } catch (e) {
    if (!(e instanceof NodeVllmError)) finding(text, `buildTemplateContext threw ${e?.name}: ${e?.message}`);
  }
}

function check(text, mine, py) {
  if (!mine) return;
  if (py[0] === 'err' && py[1] === 'RecursionError') return;
  if (!mine.ok && mine.deep) return;
  compared++;
  if (mine.ok !== (py[0] === 'ok')) {
    finding(text, `ours ${mine.ok ? 'decoded' : `raised ${mine.type}: ${mine.message}`}, Python ${py[0] === 'ok' ? 'decoded' : `raised ${py[1]}: ${py[2]}`}`);
    return;
  }
  if (!mine.ok) {
    if (mine.type !== py[1] || mine.message !== py[2]) finding(text, `error differs: ours ${mine.type}: ${mine.message} / Python ${py[1]}: ${py[2]}`);
    return;
  }
  if (JSON.stringify(mine.tag) !== JSON.stringify(py[1])) {
    finding(text, `value differs: ours ${JSON.stringify(mine.tag).slice(0, 200)} / Python ${JSON.stringify(py[1]).slice(0, 200)}`);
    return;
  }
  const dumps = pj.pyJsonDumps(mine.value);
  if (dumps !== py[2]) finding(text, `json.dumps differs: ours ${dumps.slice(0, 200)} / Python ${py[2].slice(0, 200)}`);
  const again = tagOf(pj.parsePyJson(pj.serializePyJson(mine.value)));
  if (JSON.stringify(again) !== JSON.stringify(mine.tag)) finding(text, 'serializePyJson does not decode back to the same value');
}

const oracle = spawn('python3', [path.join(here, 'pyjson_oracle.py')], { stdio: ['pipe', 'pipe', 'inherit'] });
oracle.on('exit', (code, signal) => {
  if (!finished) {
    console.error(`request-fuzz: the Python oracle exited (${signal ?? code}) while ${pending.length} inputs were pending`);
    process.exit(2);
  }
});
let finished = false;
const answers = readline.createInterface({ input: oracle.stdout });
const pending = [];
answers.on('line', (line) => pending.shift()(JSON.parse(line)));
const ask = (text) => new Promise((resolve) => { pending.push(resolve); oracle.stdin.write(JSON.stringify(text) + '\n'); });

const deadline = Date.now() + seconds * 1000;
while (Date.now() < deadline) {
  const batch = [];
  for (let i = 0; i < 200; i++) batch.push(rand() < 0.05 ? pick(seeds) : mutate(pick(seeds)));
  const replies = await Promise.all(batch.map(ask));
  for (let i = 0; i < batch.length; i++) {
    execs++;
    check(batch[i], ours(batch[i]), replies[i]);
    pipeline(batch[i]);
  }
}
finished = true;
oracle.stdin.end();
console.log(JSON.stringify({ target: 'request', execs, compared, findings, seed: opt('--seed', null) }));
process.exit(findings ? 1 : 0);
