#!/usr/bin/env node
// Load test of `node-vllm-cpp serve` on loopback with autocannon: the server
// (dist build, as the CLI configures it) in a child process generating on the
// test stand-in libvllm (scripted output: a Gemma 4 tool call), so the numbers
// are the HTTP layer + our render + our parsers + the bridge, not a model.
//
//   npm run build:ts && node scripts/bench-server.mjs [--requests N] [--connections C] [--stream-requests N]
//                                                     [--library LIBVLLM --model DIR [--threads N]]
//
// Prints requests/s and p50/p99 latency per scenario, the server's event-loop
// delay during the run, and its memory before and after (after a GC).
import { fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const argv = process.argv.slice(2);
const opt = (k, d) => {
  const i = argv.indexOf(`--${k}`);
  return i >= 0 ? argv[i + 1] : d;
};

/** The stand-in's TypeScript helpers (build the library, write a scripted model), transpiled on the fly. */
function fakeLibvllmHelpers() {
  const ts = require('typescript');
  const srcPath = join(root, 'test', 'support', 'fake-libvllm', 'index.ts');
  const out = ts.transpileModule(readFileSync(srcPath, 'utf8'), { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } });
  const dir = mkdtempSync(join(tmpdir(), 'bench-server-'));
  const file = join(dir, 'fake-libvllm.cjs');
  // __dirname of the helper must stay its own directory (it compiles fake-libvllm.c from there).
  writeFileSync(file, `__dirname = ${JSON.stringify(dirname(srcPath))};\n${out.outputText}`);
  return require(file);
}

const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'terminal',
      description: 'Run a shell command and return its output.',
      parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
    },
  },
];
const CALL = '<|tool_call>call:terminal{command:<|"|>date<|"|>}<tool_call|>';
// One tool loop turn: the history carries an earlier call with string arguments, as OpenAI clients send it.
const MESSAGES = [
  { role: 'system', content: 'You are a helpful assistant with shell access.' },
  { role: 'user', content: 'What is the date on the server?' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'terminal', arguments: '{"command": "date"}' } }] },
  { role: 'tool', tool_call_id: 'call_1', content: 'Wed Jan 15 10:30:00 UTC 2026' },
  { role: 'user', content: 'And again, please.' },
];

// ---- child: the server ----
if (process.env.BENCH_SERVER_CHILD) {
  const { serveConfig, buildBackend } = require(join(root, 'dist', 'cjs', 'cli', 'serve.js'));
  const { createServer } = require(join(root, 'dist', 'cjs', 'server', 'index.js'));
  const args = JSON.parse(process.env.BENCH_SERVER_CHILD);
  const config = serveConfig(args);
  const backend = await buildBackend(config);
  const app = await createServer({ backend, servedModelName: config.servedModelName, maxConcurrency: config.maxConcurrency, maxQueue: config.maxQueue, logger: false });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  let eld = monitorEventLoopDelay({ resolution: 10 });
  const memory = () => {
    globalThis.gc?.();
    const m = process.memoryUsage();
    return { rss: m.rss, heapUsed: m.heapUsed, external: m.external };
  };
  process.on('message', async (msg) => {
    if (msg === 'eld-start') {
      eld = monitorEventLoopDelay({ resolution: 10 });
      eld.enable();
      process.send({ ok: true });
    } else if (msg === 'eld-stop') {
      eld.disable();
      process.send({ p50: eld.percentile(50) / 1e6, p99: eld.percentile(99) / 1e6, max: eld.max / 1e6 });
    } else if (msg === 'memory') {
      process.send(memory());
    } else if (msg === 'close') {
      await app.close();
      process.exit(0);
    }
  });
  process.send({ address });
} else {
  await main();
}

async function main() {
  if (!existsSync(join(root, 'dist', 'cjs', 'server', 'index.js'))) {
    console.error('dist/ is missing: run `npm run build:ts` first');
    process.exit(1);
  }
  const autocannon = require('autocannon');
  const requests = Number(opt('requests', '10000'));
  const streamRequests = Number(opt('stream-requests', '2000'));
  const connections = Number(opt('connections', '16'));
  // --library LIB --model DIR: the real engine (e.g. the tiny checkpoint of docs/tiny-model.md); the
  // tool call is then forced with vLLM's structured_outputs regex, since the model's own text is arbitrary.
  const real = opt('library') !== undefined;
  if (real && opt('model') === undefined) throw new Error('--library needs --model DIR');
  const { buildFakeLibvllm, makeFakeModel } = real ? {} : fakeLibvllmHelpers();
  const model = real ? opt('model') : makeFakeModel({
    chatTemplate: readFileSync(join(root, 'examples', 'chat_template.jinja'), 'utf8'),
    prependBos: true,
    specialTokens: ['<|tool_call>', '<tool_call|>', '<|"|>', '<|turn>', '<turn|>', '<|tool_response>', '<tool_response|>'],
    rules: [{ output: CALL, chunk: 4 }],
  });
  const library = real ? opt('library') : buildFakeLibvllm();
  const args = ['--model', model, '--library', library, '--served-model-name', 'bench', '--tool-call-parser', 'gemma4', '--max-concurrency', String(connections * 2)];
  if (real) args.push('--threads', opt('threads', '1'), '--max-model-len', '2048');
  const child = fork(fileURLToPath(import.meta.url), [], { env: { ...process.env, BENCH_SERVER_CHILD: JSON.stringify(args) }, execArgv: ['--expose-gc', ...(process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean)] });
  child.once('exit', (code) => {
    if (code !== 0) {
      console.error(`the server process exited with ${code}`);
      process.exit(1);
    }
  });
  const ask = (msg) =>
    new Promise((resolve) => {
      child.once('message', resolve);
      if (msg) child.send(msg);
    });
  const { address } = await ask();

  const forced = real ? { temperature: 0, max_tokens: 64, structured_outputs: { regex: CALL.replace(/[|{}()[\]\\.*+?^$]/g, (m) => '\\' + m) } } : {};
  const body = (extra) => JSON.stringify({ model: 'bench', messages: MESSAGES, tools: TOOLS, ...forced, ...extra });
  // Every response must be the parsed tool call: check a sample before timing.
  const probe = await (await fetch(`${address}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body({}) })).json();
  const call = probe.choices?.[0]?.message?.tool_calls?.[0];
  if (!call || call.function.name !== 'terminal' || JSON.parse(call.function.arguments).command !== 'date') {
    throw new Error(`unexpected response: ${JSON.stringify(probe)}`);
  }

  const run = (title, amount, payload) =>
    new Promise((resolve, reject) => {
      autocannon(
        { url: `${address}/v1/chat/completions`, method: 'POST', headers: { 'content-type': 'application/json' }, body: payload, connections, amount },
        (err, r) => (err ? reject(err) : resolve({ title, r })),
      );
    });

  await run('warm-up', 500, body({}));
  const memBefore = await ask('memory');
  await ask('eld-start');
  const results = [];
  results.push(await run(`chat, JSON, tool call (${requests} requests)`, requests, body({})));
  results.push(await run(`chat, SSE, tool call (${streamRequests} requests)`, streamRequests, body({ stream: true })));
  const eld = await ask('eld-stop');
  const memAfter = await ask('memory');
  const exited = new Promise((r) => child.once('exit', r));
  child.send('close');
  await exited;

  const mib = (b) => (b / 1048576).toFixed(1);
  const engine = real ? `libvllm ${library}, model ${model} (tool call forced by a regex)` : 'stand-in libvllm (scripted Gemma 4 tool call)';
  console.log(`node ${process.version}, ${connections} connections, loopback, ${engine}`);
  for (const { title, r } of results) {
    console.log(
      `${title}: ${r.requests.average.toFixed(0)} req/s, latency p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, max ${r.latency.max} ms; ` +
        `${r['2xx']} 2xx, ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`,
    );
  }
  console.log(`server event-loop delay during the runs: p50 ${eld.p50.toFixed(1)} ms, p99 ${eld.p99.toFixed(1)} ms, max ${eld.max.toFixed(1)} ms`);
  console.log(
    `server memory after GC: before rss ${mib(memBefore.rss)} MiB heap ${mib(memBefore.heapUsed)} MiB; ` +
      `after ${requests + streamRequests} requests rss ${mib(memAfter.rss)} MiB heap ${mib(memAfter.heapUsed)} MiB`,
  );
  const bad = results.some(({ r }) => r.non2xx > 0 || r.errors > 0);
  process.exit(bad ? 1 : 0);
}
