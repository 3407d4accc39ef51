/** The published entry points: CommonJS and the ES module facade expose the same API objects. */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expect, it } from 'vitest';

const root = path.join(__dirname, '..', '..');

it('require() and import() give the same exports, and errors are the same classes', () => {
  const script = `
    const cjs = require(${JSON.stringify(root)});
    import(${JSON.stringify(path.join(root, 'dist', 'esm', 'index.js'))}).then((esm) => {
      const names = Object.keys(cjs).sort();
      const same = names.every((n) => esm[n] === cjs[n]);
      const r = esm.renderChat({ messages: [{ role: 'user', content: 'hi' }] }, { template: '{{ messages[0].content }}|{{ tools }}' });
      console.log(JSON.stringify({ names: names.length, same, prompt: r.prompt, schema: typeof esm.ChatCompletionRequestSchema.parse }));
    });`;
  const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: root }).toString());
  expect(out.same).toBe(true);
  expect(out.names).toBeGreaterThan(40);
  // tools absent -> None, as transformers passes it
  expect(out.prompt).toBe('hi|None');
  expect(out.schema).toBe('function');
});

it('no npm script is a pre/post hook of another by accident (npm run build must build once)', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const names = Object.keys(pkg.scripts);
  // npm's own lifecycle hooks that are meant as such
  const lifecycle = new Set(['install', 'prepare', 'test', 'prepublishOnly', 'preinstall', 'postinstall']);
  const hooks = names.filter((n) => !lifecycle.has(n) && /^(pre|post)/.test(n) && names.includes(n.replace(/^(pre|post)/, '')));
  expect(hooks).toEqual([]);
  expect(pkg.scripts.build).toBe('npm run build:native && npm run build:ts');
});

it('the README errors table lists every exported error class with its real code and status', async () => {
  const api = (await import('../../src')) as unknown as Record<string, unknown>;
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Errors'), readme.indexOf('## Generation with vllm.cpp'));
  const rows = new Map<string, { code: string; status: number }>();
  for (const m of section.matchAll(/^\| `(\w+)` \| `(\w+)` \| (\d+) \|/gm)) rows.set(m[1], { code: m[2], status: Number(m[3]) });
  const NodeVllmError = api.NodeVllmError as new (m: string) => Error;
  const classes = Object.entries(api).filter(
    ([n, v]) => typeof v === 'function' && n !== 'NodeVllmError' && (v as { prototype: unknown }).prototype instanceof NodeVllmError,
  );
  expect(classes.length).toBeGreaterThanOrEqual(16);
  for (const [name, Cls] of classes) {
    const e = new (Cls as new (...a: string[]) => { code: string; status: number })('m', 'p', 'r');
    expect(rows.get(name), `README errors table row for ${name}`).toEqual({ code: e.code, status: e.status });
  }
  expect([...rows.keys()].sort()).toEqual(classes.map(([n]) => n).sort());
});

it('the loader finds the installed package from code bundled outside it, or from NODE_VLLM_CPP_ROOT', () => {
  // A stand-in for a bundle: the compiled modules copied out of the package,
  // next to a node_modules that holds the package (and what it requires).
  const app = fs.mkdtempSync(path.join(os.tmpdir(), 'nvc-bundle-'));
  try {
    fs.cpSync(path.join(root, 'dist', 'cjs'), path.join(app, 'bundle'), { recursive: true });
    fs.mkdirSync(path.join(app, 'node_modules'));
    for (const dep of ['node-gyp-build', 'zod']) fs.symlinkSync(path.join(root, 'node_modules', dep), path.join(app, 'node_modules', dep));
    const script = `const m = require(${JSON.stringify(path.join(app, 'bundle', 'index.js'))});
      try { m.renderChat({ messages: [{ role: 'user', content: 'hi' }] }, { template: '{{ messages[0].content }}' }); console.log('loaded'); }
      catch (e) { console.log(e.code + ' ' + e.message); }`;
    const run = (env: Record<string, string> = {}) =>
      execFileSync(process.execPath, ['-e', script], { cwd: app, env: { ...process.env, NODE_VLLM_CPP_ROOT: '', ...env } }).toString().trim();
    // not installed beside the bundle: a clear error naming the way out
    expect(run()).toMatch(/^ERR_BACKEND node-vllm-cpp: cannot find the package directory .*--external:node-vllm-cpp.*NODE_VLLM_CPP_ROOT/);
    expect(run({ NODE_VLLM_CPP_ROOT: root })).toBe('loaded');
    fs.symlinkSync(root, path.join(app, 'node_modules', 'node-vllm-cpp'));
    expect(run()).toBe('loaded');
  } finally {
    fs.rmSync(app, { recursive: true, force: true });
  }
});
