#!/usr/bin/env node
// Writes the fuzzers' seed corpora into build-fuzz/seeds/<target>/ (an
// ignored folder; nothing here is committed):
//   template  every real chat template (../shared/templates, or
//             $NODE_VLLM_CPP_TEMPLATES) and every template of the engine
//             cases (test/engine/cases)
//   json      the engine cases' context JSON, the golden cases' request
//             bodies (and two contexts of each, the second continuing the
//             first), the protocol decode/error vectors
//   request   the golden cases' request bodies and the protocol vectors'
//             texts (for the TypeScript request decoder)
//   plan      the golden cases' request bodies and the protocol vectors'
//             conversation bodies, alone and with a few of fuzz_plan's
//             flag and plan bytes after a NUL; a few requests written
//             here (tool calls whose arguments are JSON texts, content
//             parts, nesting, unicode and escapes, numbers); and plan
//             texts naming slots (native/fuzz/fuzz_plan.cpp)
// Usage: node scripts/fuzz/seeds.mjs [--out DIR]   prints the counts
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export function templatesDir() {
  return process.env.NODE_VLLM_CPP_TEMPLATES ?? path.resolve(root, '..', 'shared', 'templates');
}

function readJson(p) {
  return JSON.parse(fs.readFileSync(p, 'utf8'));
}

// The marker nonce fuzz_plan.cpp fixes, for plan texts that name slots.
const PLAN_NONCE = '7c1e94b2a05d3f68e2b71c09d4a8f356';

// Requests for the planned path beyond the golden cases (as texts: escapes
// and layout are part of what is fuzzed).
const PLAN_REQUESTS = [
  String.raw`{"model":"m","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":[{"type":"text","text":"What is été?"},{"type":"image_url","image_url":{"url":"data:,x"}},{"type":"text","text":""}]}]}`,
  String.raw`{"messages":[{"role":"user","content":"Weather in Paris and Oslo?"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_0","type":"function","function":{"name":"get_weather","arguments":"{"city": "Paris", "days": 3, "nested": {"a": [1, 2.5, null, true], "b": {}}}"}},{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{}"}},{"id":"call_2","type":"function","function":{"name":"echo","arguments":"[1, 2]"}},{"id":"call_3","type":"function","function":{"name":"echo","arguments":""just a string""}},{"id":"call_4","type":"function","function":{"name":"echo","arguments":"{"emoji": "\ud83d\ude00", "e": "\u00e9"}"}}]},{"role":"tool","tool_call_id":"call_0","content":"{"temp": 18.5}"},{"role":"tool","tool_call_id":"call_1","content":""},{"role":"assistant","content":"Paris: 18.5 °C."}],"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]}`,
  String.raw`{"messages":[{"role":"user","content":"x","metadata":{"a":{"b":{"c":[{"d":"deep","content":"under an opaque key"}]}}},"name":"bob"},{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b","extra":[[["x"]]]}],"reasoning_content":"thinking"}]}`,
  `{"messages":[{"role":"user","content":"line\nbreak \t tab \"quote\" \\ backslash \u0000 nul \u2028 \ud83d\ude00 raw: é 😀 ✓"},{"role":"assistant","content":"\u005c\u0022","reasoning":"é"}],"user":"\u00e9","stop":["\n"]}`,
  String.raw`{"messages":[{"role":"user","content":"numbers","x":1.0,"y":-0.0,"z":12345678901234567890123,"w":1e400,"v":NaN,"u":-Infinity,"t":[0,-1,1e-7]}],"temperature":0.7,"seed":-9223372036854775808}`,
  String.raw`{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"},{"role":"assistant","content":"d"},{"role":"user","content":"e"}]}`,
  String.raw`{"messages":[{"role":"user","content":""},{"role":"assistant","content":"","reasoning_content":"think","thinking":""},{"role":"developer","content":"dev"}]}`,
  ` { "messages" : [ {"role": "user", "content": "hi"} ,
 {"role":"assistant" , "content" : "hello there, how can I help you today?"} ] , "stream" : false }
`,
  String.raw`{"messages":[{"role":"user","content":"one"}],"messages":[{"role":"user","content":"two"}]}`,
  String.raw`{"messages":[{"role":"user","content":"escaped key"}]}`,
  String.raw`{"messages":[{"role":"user","content":"trailing"}]} x`,
  String.raw`{"tools":[{"a":"]}"}],"messages":[{"role":"user","content":"after a member with brackets in a string"}],"n":1}`,
];

/** { template: string[], json: string[], request: string[], plan: string[] } */
export function collectSeeds() {
  const seeds = { template: [], json: [], request: [], plan: [] };
  const tdir = templatesDir();
  if (fs.existsSync(tdir)) {
    for (const f of fs.readdirSync(tdir).sort()) if (f.endsWith('.jinja')) seeds.template.push(fs.readFileSync(path.join(tdir, f), 'utf8'));
  }
  const cdir = path.join(root, 'test', 'engine', 'cases');
  for (const f of fs.readdirSync(cdir).sort()) {
    if (!f.endsWith('.json')) continue;
    for (const c of readJson(path.join(cdir, f)).cases ?? []) {
      if (typeof c.template === 'string') seeds.template.push(c.template);
      if (typeof c.context_json === 'string') seeds.json.push(c.context_json);
    }
  }
  const gdir = path.join(root, 'test', 'golden', 'cases');
  for (const f of fs.readdirSync(gdir).sort()) {
    if (!f.endsWith('.json')) continue;
    // the case file's own text keeps what JSON.parse would lose
    const text = fs.readFileSync(path.join(gdir, f), 'utf8');
    seeds.json.push(text);
    const request = readJson(path.join(gdir, f)).request;
    seeds.request.push(JSON.stringify(request));
    seeds.plan.push(JSON.stringify(request));
    // for the kept-context check of fuzz_json: two contexts (after their
    // `{"messages":[`), split by a NUL byte, the second continuing the first
    const items = (Array.isArray(request?.messages) ? request.messages : []).map((m) => JSON.stringify(m));
    const tail = `],"tools":${JSON.stringify(request?.tools ?? null)},"add_generation_prompt":true}`;
    if (items.length > 1) seeds.json.push(`${items.slice(0, Math.ceil(items.length / 2)).join(',')}${tail}\0${items.join(',')}${tail}`);
  }
  const vectors = readJson(path.join(root, 'test', 'protocol', 'vectors.json'));
  for (const v of [...(vectors.decode ?? []), ...(vectors.errors ?? [])]) {
    if (typeof v.input === 'string') {
      seeds.json.push(v.input);
      seeds.request.push(v.input);
    }
  }
  for (const v of vectors.conversation ?? []) {
    if (typeof v.body !== 'string') continue;
    seeds.request.push(v.body);
    seeds.plan.push(v.body);
  }
  // fuzz_plan's input: request, NUL, flags, plan byte, plan text (see
  // native/fuzz/fuzz_plan.cpp): each request alone (the default flags and
  // identity plans), then under a few flag and plan bytes
  const modes = ['\x01\x01', '\x05\x02', '\x0b\x05', '\x11\x06', '\x09\x0e', '\x04\x07'];
  const requests = [...seeds.plan, ...PLAN_REQUESTS];
  seeds.plan = [...requests];
  for (const r of requests) for (const m of modes) seeds.plan.push(`${r}\0${m}`);
  // plan texts that name slots: a content string moved into a text part,
  // and arguments decoded (plan byte 3: the plan text for every shape)
  const slot = (k) => JSON.stringify(`{"\\u0000${PLAN_NONCE}":${k}}`);
  seeds.plan.push(`{"messages":[{"role":"user","content":"hi"}]}\0\x07\x03{"role":"user","content":[{"type":"text","text":${slot(0)}}]}`);
  seeds.plan.push(`{"messages":[{"role":"user","content":"hi"}]}\0\x07\x03{"role":"user","content":${slot(1)}}`);
  seeds.plan.push(`{"messages":[{"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":"{\\"a\\": [1, {\\"b\\": null}]}"}}]}]}\0\x07\x03` +
    `{"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":{"\\u0000${PLAN_NONCE}":0}}}]}`);
  return seeds;
}

/** Writes each seed as a file named by its sha1 (libFuzzer's own naming). */
export function writeSeeds(outDir) {
  const seeds = collectSeeds();
  const counts = {};
  for (const [target, list] of Object.entries(seeds)) {
    const dir = path.join(outDir, target);
    fs.mkdirSync(dir, { recursive: true });
    const unique = new Set(list);
    for (const s of unique) {
      const name = createHash('sha1').update(s).digest('hex');
      fs.writeFileSync(path.join(dir, name), s);
    }
    counts[target] = unique.size;
  }
  return counts;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--out');
  const out = i > 0 ? process.argv[i + 1] : path.join(root, 'build-fuzz', 'seeds');
  console.log(JSON.stringify(writeSeeds(out)));
}
