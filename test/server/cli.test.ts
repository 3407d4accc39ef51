/**
 * The built command, `node-vllm-cpp serve --model DIR --library LIB`, as a
 * child process on loopback: the openai client's streaming tool loop, JSON
 * logs with request ids, and SIGTERM draining an in-flight stream.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { afterEach, expect, it } from 'vitest';
import { buildFakeLibvllm, makeFakeModel } from '../support/fake-libvllm';
import { client, killServed, startServe } from './support';

const root = path.join(__dirname, '..', '..');
const TEMPLATE = fs.readFileSync(path.join(root, 'examples', 'chat_template.jinja'), 'utf8');
const CALL = '<|tool_call>call:terminal{command:<|"|>date<|"|>}<tool_call|>';
// hand-derived from the template: the call rendered from a mapping, then the tool response
const RENDERED = JSON.stringify('call:terminal{command:<|"|>date<|"|>}<tool_call|><|tool_response>response:unknown{value:<|"|>Wed Jan 15<|"|>}').slice(1, -1);

const terminal: ChatCompletionTool = {
  type: 'function',
  function: { name: 'terminal', parameters: { type: 'object', properties: { command: { type: 'string' } } } },
};

afterEach(killServed);

const haveBuild = fs.existsSync(path.join(root, 'dist', 'cjs', 'cli', 'serve.js'));

it.skipIf(!haveBuild)('serve: streaming tool loop with the openai client, request ids in the logs, SIGTERM drains', async () => {
  const model = makeFakeModel({
    chatTemplate: TEMPLATE,
    prependBos: true,
    specialTokens: ['<|tool_call>', '<tool_call|>', '<|"|>'],
    rules: [
      { match: 'DRAIN', output: 'abcdefghij', chunk: 1, delayMs: 40 },
      { match: RENDERED, output: 'It is Wednesday.' },
      { output: CALL, chunk: 5 },
    ],
  });
  const s = await startServe(['--model', model, '--library', buildFakeLibvllm(), '--served-model-name', 'tiny', '--tool-call-parser', 'gemma4', '--enable-auto-tool-choice']);
  const openai = client(s.base);
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is the date?' }];
  let args = '';
  let id = '';
  let finish: string | null = null;
  const stream = await openai.chat.completions.create({ model: 'tiny', messages, tools: [terminal], stream: true });
  for await (const c of stream) {
    const tc = c.choices[0]?.delta?.tool_calls?.[0];
    if (tc?.id) id = tc.id;
    if (tc?.function?.arguments) args += tc.function.arguments;
    finish = c.choices[0]?.finish_reason ?? finish;
  }
  expect(finish).toBe('tool_calls');
  expect(JSON.parse(args)).toEqual({ command: 'date' });
  messages.push({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'terminal', arguments: args } }] });
  messages.push({ role: 'tool', tool_call_id: id, content: 'Wed Jan 15' });
  let text = '';
  for await (const c of await openai.chat.completions.create({ model: 'tiny', messages, tools: [terminal], stream: true })) text += c.choices[0]?.delta?.content ?? '';
  expect(text).toBe('It is Wednesday.');

  const withId = await fetch(`${s.base}/v1/models`, { headers: { 'x-request-id': 'trace-42' } });
  expect(withId.headers.get('x-request-id')).toBe('trace-42');
  await new Promise((r) => setTimeout(r, 50));
  expect(s.logs.some((l) => l.reqId === 'trace-42' && l.msg === 'incoming request')).toBe(true);

  // SIGTERM while a stream is in flight: it completes, then the process exits 0
  const res = await fetch(`${s.base}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'tiny', messages: [{ role: 'user', content: 'DRAIN' }], stream: true }),
  });
  expect(res.status).toBe(200);
  s.child.kill('SIGTERM');
  const body = await res.text();
  const deltas = body
    .split('\n\n')
    .filter((e) => e.startsWith('data: {'))
    .map((e) => JSON.parse(e.slice(6)).choices[0]?.delta?.content ?? '')
    .join('');
  expect(deltas).toBe('abcdefghij');
  expect(body.endsWith('data: [DONE]\n\n')).toBe(true);
  expect(await s.exited).toBe(0);
  expect(s.logs.some((l) => l.msg === 'shutting down: draining in-flight requests')).toBe(true);
});

it.skipIf(!haveBuild)('node-vllm-cpp/server resolves for require and import; the main entry does not load Fastify', () => {
  const check = (code: string) => JSON.parse(execFileSync(process.execPath, ['-e', code], { cwd: root }).toString().trim().split('\n').pop()!);
  expect(check(`require('node-vllm-cpp'); console.log(JSON.stringify(Object.keys(require.cache).filter((k) => /node_modules[\\\\/](fastify|prom-client)[\\\\/]/.test(k)).length))`)).toBe(0);
  expect(
    check(`const s = require('node-vllm-cpp/server'); import('node-vllm-cpp/server').then((m) => console.log(JSON.stringify(
      ['createServer', 'createHandler', 'nodeVllmCppPlugin', 'chatBackend', 'UpstreamGenerator', 'ServerMetrics'].map((n) => typeof s[n] === 'function' && m[n] === s[n]))))`),
  ).toEqual([true, true, true, true, true, true]);
});

it.skipIf(!haveBuild)('without the optional peers fastify and prom-client: the main entry works, the server entry and serve say what to install', () => {
  // a preload that makes the two packages unresolvable, as in a project that did not install them
  const hide = path.join(fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'nvc-peers-')), 'hide.js');
  fs.writeFileSync(
    hide,
    `const M = require('module'); const r = M._resolveFilename;
     M._resolveFilename = function (req, ...a) { if (/^(fastify|prom-client)(\\/|$)/.test(req)) { const e = new Error("Cannot find module '" + req + "'"); e.code = 'MODULE_NOT_FOUND'; throw e; } return r.call(this, req, ...a); };`,
  );
  const run = (args: string[]) => spawnSync(process.execPath, ['-r', hide, ...args], { cwd: root, encoding: 'utf8' });
  const main = run(['-e', `console.log(typeof require('node-vllm-cpp').renderChat)`]);
  expect(main.stdout.trim()).toBe('function');
  const server = run(['-e', `try { require('node-vllm-cpp/server') } catch (e) { console.log(JSON.stringify([e.name, e.code, e.message])) }`]);
  expect(JSON.parse(server.stdout)).toEqual([
    'BackendError',
    'ERR_BACKEND',
    'node-vllm-cpp/server needs fastify@^5 and prom-client@^15 (optional peer dependencies, not installed with the package): npm install fastify prom-client',
  ]);
  const serve = run([path.join(root, 'bin', 'node-vllm-cpp.js'), 'serve', '--model', root, '--upstream', 'http://127.0.0.1:9']);
  expect(serve.status).toBe(1);
  expect(serve.stderr).toContain('BackendError: node-vllm-cpp/server needs fastify@^5 and prom-client@^15');
});
