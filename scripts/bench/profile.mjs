// Profiles of the per-request path, for docs/performance.md:
//   node scripts/bench/profile.mjs [--templates DIR] [--out DIR] [--seconds S] [--modes object,cold,turn] [--top N]
// For the small Gemma 4 tool loop and Qwen3 50 turns: a V8 CPU profile of
// renderChat in a loop (node --cpu-prof, top self-time entries printed) for
// each mode: `object` (the request as a JS object), `cold` (raw JSON text
// requests, each with its own first message, so no recent conversation is
// continued) and `turn` (raw JSON text, an agent loop: each request the
// previous one plus two messages); and the context JSON of
// each case written to --out for callgrind on the standalone engine driver:
//   valgrind --tool=callgrind build/tools/jinja-render --bench-json 50 TEMPLATE OUT/<case>.context.json
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { history, NOW, root, smallToolLoop, templatesDir as resolveTemplates, withOwnFirstMessage } from './cases.mjs';

const argv = process.argv.slice(2);
const opt = (k, d) => {
  const i = argv.indexOf(`--${k}`);
  return i >= 0 ? argv[i + 1] : d;
};

const CASES = {
  'gemma4-tool-loop': ['gemma4__official_v4.jinja', smallToolLoop],
  'qwen3-50-turns': ['qwen3__official.jinja', () => history(100)],
};

if (opt('child') !== undefined) {
  // the profiled process: renderChat of one case for --seconds
  const api = createRequire(import.meta.url)(join(root, 'dist', 'cjs', 'index.js'));
  const [file, make] = CASES[opt('child')];
  const opts = { template: api.compileTemplate(readFileSync(join(resolveTemplates(opt('templates')), file), 'utf8')), bosToken: '<bos>', eosToken: '<eos>', now: NOW };
  const request = make();
  let texts;
  if (opt('mode') === 'object') {
    texts = [request];
  } else if (opt('mode') === 'cold') {
    texts = Array.from({ length: 400 }, (_, i) => JSON.stringify(withOwnFirstMessage(request, i)));
  } else {
    const n = request.messages.length;
    const turns = Math.max(1, Math.min(10, Math.floor((n - 2) / 2)));
    texts = Array.from({ length: turns + 1 }, (_, j) => JSON.stringify({ ...request, messages: request.messages.slice(0, n - 2 * (turns - j)) }));
  }
  const until = Date.now() + 1000 * Number(opt('seconds', '5'));
  let i = 0;
  while (Date.now() < until) for (let k = 0; k < 100; k++) api.renderChat(texts[i++ % texts.length], opts);
} else {
  const api = createRequire(import.meta.url)(join(root, 'dist', 'cjs', 'index.js'));
  const out = opt('out', join(tmpdir(), 'nvc-profile'));
  mkdirSync(out, { recursive: true });
  const dir = resolveTemplates(opt('templates'));
  for (const [name, [file, make]] of Object.entries(CASES)) {
    const path = join(dir, file);
    let src;
    try {
      src = readFileSync(path, 'utf8');
    } catch {
      console.log(`skip ${name}: ${path} not found`);
      continue;
    }
    const compiled = api.compileTemplate(src);
    const built = api.buildTemplateContext(
      JSON.stringify(make()),
      { contentFormat: compiled.contentFormat, undeclaredVariables: compiled.undeclaredVariables, templateSource: src },
      { specialTokens: { bos_token: '<bos>', eos_token: '<eos>' } },
    );
    writeFileSync(join(out, `${name}.context.json`), built.contextJson);
    for (const mode of (opt('modes') ?? 'object,cold,turn').split(',')) {
      const profDir = join(out, `${name}.${mode}.cpuprofile.d`);
      rmSync(profDir, { recursive: true, force: true });
      const self = new URL(import.meta.url).pathname;
      execFileSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', profDir, self, '--child', name, '--mode', mode, '--seconds', opt('seconds', '5'), ...(opt('templates') ? ['--templates', opt('templates')] : [])], { stdio: 'inherit' });
      const prof = join(profDir, readdirSync(profDir)[0]);
      console.log(`\n${name}: renderChat (${{ object: 'JS object request', cold: 'raw JSON text, cold requests', turn: 'raw JSON text, agent loop, next turns' }[mode]}), ${prof}`);
      console.log(execFileSync(process.execPath, [join(root, 'scripts', 'bench', 'cpuprofile-top.mjs'), prof, opt('top', '20')]).toString());
    }
    console.log(`context for callgrind: ${join(out, `${name}.context.json`)} (template ${path})`);
  }
}
