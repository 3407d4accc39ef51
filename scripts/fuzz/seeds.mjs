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

/** { template: string[], json: string[], request: string[] } */
export function collectSeeds() {
  const seeds = { template: [], json: [], request: [] };
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
  for (const v of vectors.conversation ?? []) if (typeof v.body === 'string') seeds.request.push(v.body);
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
