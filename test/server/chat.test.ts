/**
 * `serve` end to end with the official openai client on loopback: the
 * configuration the CLI builds (serveConfig -> buildBackend -> createServer),
 * generating on the test stand-in libvllm (scripted outputs: Gemma 4
 * tool-call text and Qwen3 <tool_call> blocks), and in `--upstream` mode on a
 * second instance of the server acting as the completions endpoint.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FastifyInstance } from 'fastify';
import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBackend, serveConfig } from '../../src/cli/serve';
import { createServer, type ServerBackend } from '../../src/server';
import { buildFakeLibvllm, makeFakeModel } from '../support/fake-libvllm';
import { client, listen, until } from './support';

const root = path.join(__dirname, '..', '..');
const GEMMA_TEMPLATE = fs.readFileSync(path.join(root, 'examples', 'chat_template.jinja'), 'utf8');

// A small Qwen3/Hermes-style template (ours): tool calls render as <tool_call> JSON blocks with the
// arguments mapping through tojson, so a string that reached the template raw would show up quoted.
const QWEN_STYLE_TEMPLATE = `{%- for m in messages -%}
<|im_start|>{{ m.role }}
{% if m.content %}{{ m.content }}{% endif %}
{%- for c in m.tool_calls or [] %}
<tool_call>
{"name": "{{ c.function.name }}", "arguments": {{ c.function.arguments | tojson }}}
</tool_call>
{%- endfor %}<|im_end|>
{% endfor -%}
{%- if add_generation_prompt %}<|im_start|>assistant
{% endif -%}`;

const terminal: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'terminal',
    description: 'Run a shell command and return its output.',
    parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
  },
};
const weather: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather for a city.',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

const GEMMA_CALL = '<|tool_call>call:terminal{command:<|"|>date<|"|>}<tool_call|>';
// The second turn's prompt must show the call as the template renders a mapping (hand-derived from the template).
const GEMMA_CALL_RENDERED = '<|turn>model\n<|tool_call>call:terminal{command:<|"|>date<|"|>}<tool_call|><|tool_response>response:terminal{value:<|"|>Wed Jan 15 10:30:00 UTC 2026<|"|>}<tool_response|>';
const QWEN_CALLS =
  '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Tokyo"}}\n</tool_call>';
const QWEN_CALLS_RENDERED =
  '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call><tool_call>\n{"name": "get_weather", "arguments": {"city": "Tokyo"}}\n</tool_call>';
/** On its chat entry point the stand-in matches rules against the request JSON, where the prompt is a JSON string. */
const inRequestJson = (s: string): string => JSON.stringify(s).slice(1, -1);

let lib: string;
let gemmaDir: string;
let qwenDir: string;
const servers: FastifyInstance[] = [];
const backends: ServerBackend[] = [];

async function serve(args: string[]): Promise<{ base: string; openai: OpenAI; app: FastifyInstance }> {
  const config = serveConfig([...args, '--port', '0']);
  const backend = await buildBackend(config);
  backends.push(backend);
  const app = await createServer({ backend, servedModelName: config.servedModelName, apiKey: config.apiKey, maxConcurrency: config.maxConcurrency });
  servers.push(app);
  const base = await listen(app);
  return { base, app, openai: client(base) };
}

let gemma: { base: string; openai: OpenAI; app: FastifyInstance };
let qwen: { base: string; openai: OpenAI };

beforeAll(async () => {
  lib = buildFakeLibvllm();
  gemmaDir = makeFakeModel({
    chatTemplate: GEMMA_TEMPLATE,
    prependBos: true,
    specialTokens: ['<|tool_call>', '<tool_call|>', '<|"|>', '<|turn>', '<turn|>', '<|tool_response>', '<tool_response|>'],
    rules: [
      { match: 'SLOW', output: 'x'.repeat(400), chunk: 1, delayMs: 20 },
      { match: inRequestJson(GEMMA_CALL_RENDERED), output: 'The server date is Wednesday, January 15, 2026.', chunk: 5 },
      { match: '<|tool_response>', output: 'the tool call reached the template in the wrong shape' },
      { match: 'What is the date', output: GEMMA_CALL, chunk: 4 },
      { output: 'Hello from the stand-in engine.', chunk: 6 },
    ],
  });
  qwenDir = makeFakeModel({
    chatTemplate: QWEN_STYLE_TEMPLATE,
    specialTokens: ['<|im_start|>', '<|im_end|>', '<tool_call>', '</tool_call>'],
    rules: [
      { match: inRequestJson(QWEN_CALLS_RENDERED), output: 'Paris is sunny, Tokyo is rainy.', chunk: 4 },
      { match: 'weather', output: QWEN_CALLS, chunk: 7 },
      { output: 'plain answer' },
    ],
  });
  gemma = await serve(['--model', gemmaDir, '--library', lib, '--served-model-name', 'gemma-tiny', '--tool-call-parser', 'gemma4']);
  qwen = await serve(['--model', qwenDir, '--library', lib, '--served-model-name', 'qwen-tiny', '--tool-call-parser', 'hermes']);
});

afterAll(async () => {
  while (servers.length) await servers.pop()!.close();
});

/** What an OpenAI client reassembles from a stream. */
async function accumulate(stream: AsyncIterable<ChatCompletionChunk>) {
  let content = '';
  const calls: Array<{ id?: string; name: string; arguments: string }> = [];
  const finishes: string[] = [];
  let usage: ChatCompletionChunk['usage'] | undefined;
  const ids = new Set<string>();
  for await (const c of stream) {
    ids.add(c.id);
    if (c.usage) usage = c.usage;
    const ch = c.choices[0];
    if (!ch) continue;
    if (ch.delta.content) content += ch.delta.content;
    for (const tc of ch.delta.tool_calls ?? []) {
      calls[tc.index] ??= { name: '', arguments: '' };
      if (tc.id) calls[tc.index].id = tc.id;
      if (tc.function?.name) calls[tc.index].name += tc.function.name;
      if (tc.function?.arguments) calls[tc.index].arguments += tc.function.arguments;
    }
    if (ch.finish_reason) finishes.push(ch.finish_reason);
  }
  return { content, calls, finishes, usage, ids };
}

describe('chat on the stand-in engine', () => {
  it('non-streaming chat', async () => {
    const r = await gemma.openai.chat.completions.create({ model: 'gemma-tiny', messages: [{ role: 'user', content: 'Hi' }] });
    expect(r.object).toBe('chat.completion');
    expect(r.model).toBe('gemma-tiny');
    expect(r.id).toMatch(/^chatcmpl-[0-9a-f]{32}$/);
    expect(r.choices[0].message).toMatchObject({ role: 'assistant', content: 'Hello from the stand-in engine.' });
    expect(r.choices[0].finish_reason).toBe('stop');
    // the stand-in counts one token per code point, plus one for BOS
    expect(r.usage?.completion_tokens).toBe('Hello from the stand-in engine.'.length);
  });

  it('streaming chat with include_usage', async () => {
    const stream = await gemma.openai.chat.completions.create({
      model: 'gemma-tiny',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const r = await accumulate(stream);
    expect(r.content).toBe('Hello from the stand-in engine.');
    expect(r.finishes).toEqual(['stop']);
    expect(r.ids.size).toBe(1);
    expect(r.usage?.completion_tokens).toBe('Hello from the stand-in engine.'.length);
    expect(r.usage?.total_tokens).toBe(r.usage!.prompt_tokens + r.usage!.completion_tokens);
  });

  it('streaming without include_usage sends no usage chunk, yet the token metrics count it', async () => {
    const before = await (await fetch(`${gemma.base}/metrics`)).text();
    const count = (t: string) => Number(/^node_vllm_cpp_generation_tokens_total\{endpoint="chat"\} (\d+)$/m.exec(t)?.[1] ?? 0);
    const stream = await gemma.openai.chat.completions.create({ model: 'gemma-tiny', messages: [{ role: 'user', content: 'Hi' }], stream: true });
    const chunks: ChatCompletionChunk[] = [];
    for await (const c of stream) chunks.push(c);
    expect(chunks.some((c) => c.usage)).toBe(false);
    expect(chunks.every((c) => c.choices.length === 1)).toBe(true);
    const after = await (await fetch(`${gemma.base}/metrics`)).text();
    expect(count(after) - count(before)).toBe('Hello from the stand-in engine.'.length);
  });

  it('Gemma 4 streaming tool loop: the string arguments reach the next turn as a mapping', async () => {
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is the date on the server?' }];
    const turn1 = await accumulate(await gemma.openai.chat.completions.create({ model: 'gemma-tiny', messages, tools: [terminal], stream: true }));
    expect(turn1.finishes).toEqual(['tool_calls']);
    expect(turn1.content).toBe('');
    expect(turn1.calls).toHaveLength(1);
    expect(turn1.calls[0].name).toBe('terminal');
    expect(JSON.parse(turn1.calls[0].arguments)).toEqual({ command: 'date' });
    expect(typeof turn1.calls[0].id).toBe('string');
    const call = turn1.calls[0];
    messages.push({ role: 'assistant', content: null, tool_calls: [{ id: call.id!, type: 'function', function: { name: call.name, arguments: call.arguments } }] });
    messages.push({ role: 'tool', tool_call_id: call.id!, content: 'Wed Jan 15 10:30:00 UTC 2026', name: 'terminal' } as ChatCompletionMessageParam);
    const turn2 = await accumulate(await gemma.openai.chat.completions.create({ model: 'gemma-tiny', messages, tools: [terminal], stream: true }));
    expect(turn2.content).toBe('The server date is Wednesday, January 15, 2026.');
    expect(turn2.finishes).toEqual(['stop']);
    expect(turn2.calls).toEqual([]);
  });

  it('Gemma 4 tool loop, non-streaming', async () => {
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is the date on the server?' }];
    const r1 = await gemma.openai.chat.completions.create({ model: 'gemma-tiny', messages, tools: [terminal] });
    expect(r1.choices[0].finish_reason).toBe('tool_calls');
    const tc = r1.choices[0].message.tool_calls!;
    expect(tc).toHaveLength(1);
    expect(tc[0].type).toBe('function');
    const fn = (tc[0] as { function: { name: string; arguments: string } }).function;
    expect(fn.name).toBe('terminal');
    expect(typeof fn.arguments).toBe('string');
    expect(JSON.parse(fn.arguments)).toEqual({ command: 'date' });
    messages.push(r1.choices[0].message as ChatCompletionMessageParam);
    messages.push({ role: 'tool', tool_call_id: tc[0].id, content: 'Wed Jan 15 10:30:00 UTC 2026', name: 'terminal' } as ChatCompletionMessageParam);
    const r2 = await gemma.openai.chat.completions.create({ model: 'gemma-tiny', messages, tools: [terminal] });
    expect(r2.choices[0].message.content).toBe('The server date is Wednesday, January 15, 2026.');
  });

  it('parallel tool calls from Qwen3 <tool_call> blocks, streamed and whole, and the loop back', async () => {
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is the weather in Paris and Tokyo?' }];
    const s = await accumulate(await qwen.openai.chat.completions.create({ model: 'qwen-tiny', messages, tools: [weather], stream: true }));
    expect(s.finishes).toEqual(['tool_calls']);
    expect(s.calls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([
      ['get_weather', { city: 'Paris' }],
      ['get_weather', { city: 'Tokyo' }],
    ]);
    expect(new Set(s.calls.map((c) => c.id)).size).toBe(2);
    const r = await qwen.openai.chat.completions.create({ model: 'qwen-tiny', messages, tools: [weather] });
    const calls = r.choices[0].message.tool_calls! as Array<{ id: string; function: { name: string; arguments: string } }>;
    expect(calls.map((c) => JSON.parse(c.function.arguments))).toEqual([{ city: 'Paris' }, { city: 'Tokyo' }]);
    messages.push(r.choices[0].message as ChatCompletionMessageParam);
    for (const [i, c] of calls.entries()) messages.push({ role: 'tool', tool_call_id: c.id, content: i === 0 ? 'sunny' : 'rainy' });
    const next = await qwen.openai.chat.completions.create({ model: 'qwen-tiny', messages, tools: [weather] });
    expect(next.choices[0].message.content).toBe('Paris is sunny, Tokyo is rainy.');
  });

  it('malformed tool-call arguments in the history: 400 with the JSON path as param', async () => {
    const err = await gemma.openai.chat.completions
      .create({
        model: 'gemma-tiny',
        tools: [terminal],
        messages: [
          { role: 'system', content: 'You run commands.' },
          { role: 'user', content: 'What is the date on the server?' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'terminal', arguments: '{"command": "date"' } }] },
          { role: 'tool', tool_call_id: 'c1', content: 'x' },
        ],
      })
      .catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err.status).toBe(400);
    expect(err.error.param).toBe('messages[2].tool_calls[0].function.arguments');
    expect(err.error.type).toBe('invalid_request_error');
    expect(err.error.code).toBe('ERR_TOOL_ARGUMENTS');
    // the same error before a stream starts: a 400, not an event inside a 200 stream
    const e2 = await gemma.openai.chat.completions
      .create({
        model: 'gemma-tiny',
        stream: true,
        messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'terminal', arguments: 'not json' } }] }],
      })
      .catch((e) => e);
    expect(e2).toBeInstanceOf(OpenAI.BadRequestError);
    expect(e2.error.param).toBe('messages[0].tool_calls[0].function.arguments');
  });

  it('request validation errors name their path', async () => {
    const r = await fetch(`${gemma.base}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], tools: [] }),
    });
    expect(r.status).toBe(400);
    const body = (await r.json()) as { error: { param: string; type: string } };
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.param).toBe('tools');
  });

  it('aborting mid-stream cancels the generation in the engine', async () => {
    const ac = new AbortController();
    const stream = await gemma.openai.chat.completions.create(
      { model: 'gemma-tiny', messages: [{ role: 'user', content: 'SLOW' }], stream: true },
      { signal: ac.signal },
    );
    let text = '';
    const started = Date.now();
    await (async () => {
      for await (const c of stream) {
        text += c.choices[0]?.delta?.content ?? '';
        if (text.length >= 3) ac.abort();
      }
    })().catch(() => {});
    expect(text.length).toBeGreaterThanOrEqual(3);
    expect(text.length).toBeLessThan(400);
    // the whole output would take 400 x 20 ms = 8 s; cancelled, the engine holds no request
    const engine = backends[0].generator as unknown as { activeRequests: number };
    await until(() => engine.activeRequests === 0, 3000);
    expect(Date.now() - started).toBeLessThan(4000);
    const m = await (await fetch(`${gemma.base}/metrics`)).text();
    expect(m).toMatch(/^node_vllm_cpp_requests_total\{endpoint="\/v1\/chat\/completions",status="499"\} 1$/m);
  });

  it('raw-prompt completions reach the engine with add_special_tokens', async () => {
    const r = await gemma.openai.completions.create({ model: 'gemma-tiny', prompt: 'Hi there', max_tokens: 5 });
    expect(r.choices[0].text).toBe('Hello');
    expect(r.choices[0].finish_reason).toBe('length');
    // vLLM's extension: with add_special_tokens false the tokenizer adds no BOS, so a prompt that
    // spells BOS itself tokenizes like the plain prompt with the default (true)
    const spelled = await gemma.openai.completions.create({
      model: 'gemma-tiny',
      prompt: '<bos>Hi there',
      max_tokens: 5,
      add_special_tokens: false,
    } as Parameters<typeof gemma.openai.completions.create>[0] & { stream?: false });
    expect(spelled.usage?.prompt_tokens).toBe(r.usage?.prompt_tokens);
  });
});

describe('a dead engine', () => {
  it('answers 503 with Retry-After, and /health turns 503', async () => {
    const dir = makeFakeModel({ chatTemplate: GEMMA_TEMPLATE, rules: [{ match: 'KILL', kill: true }, { output: 'fine' }] });
    const s = await serve(['--model', dir, '--library', lib, '--served-model-name', 'mortal']);
    expect((await s.openai.chat.completions.create({ model: 'mortal', messages: [{ role: 'user', content: 'hello' }] })).choices[0].message.content).toBe('fine');
    expect((await fetch(`${s.base}/health`)).status).toBe(200);
    const err = await s.openai.chat.completions.create({ model: 'mortal', messages: [{ role: 'user', content: 'KILL' }] }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    expect(err.status).toBe(503);
    expect(err.headers.get('retry-after')).toBe('1');
    expect(err.error).toMatchObject({ type: 'server_error', code: 'ERR_ENGINE_DEAD' });
    const health = await fetch(`${s.base}/health`);
    expect(health.status).toBe(503);
    expect(((await health.json()) as { error: { code: string } }).error.code).toBe('ERR_ENGINE_DEAD');
    const again = await s.openai.chat.completions.create({ model: 'mortal', messages: [{ role: 'user', content: 'hello' }] }).catch((e) => e);
    expect(again.status).toBe(503);
  });
});

describe('--upstream: a second server instance as the completions endpoint', () => {
  it('runs the streaming Gemma 4 tool loop with our rendering and parsing, generation upstream', async () => {
    const up = await serve([
      '--model',
      gemmaDir,
      '--upstream',
      gemma.base,
      '--upstream-model',
      'gemma-tiny',
      '--served-model-name',
      'via-upstream',
      '--tool-call-parser',
      'gemma4',
    ]);
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is the date on the server?' }];
    const turn1 = await accumulate(
      await up.openai.chat.completions.create({ model: 'via-upstream', messages, tools: [terminal], stream: true, stream_options: { include_usage: true } }),
    );
    expect(turn1.finishes).toEqual(['tool_calls']);
    expect(turn1.calls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([['terminal', { command: 'date' }]]);
    // the same prompt as the direct engine path: same token count (no second BOS from the upstream's tokenizer)
    const direct = await gemma.openai.chat.completions.create({ model: 'gemma-tiny', messages, tools: [terminal] });
    expect(turn1.usage?.prompt_tokens).toBe(direct.usage?.prompt_tokens);
    const call = turn1.calls[0];
    messages.push({ role: 'assistant', content: null, tool_calls: [{ id: call.id!, type: 'function', function: { name: call.name, arguments: call.arguments } }] });
    messages.push({ role: 'tool', tool_call_id: call.id!, content: 'Wed Jan 15 10:30:00 UTC 2026', name: 'terminal' } as ChatCompletionMessageParam);
    const turn2 = await accumulate(await up.openai.chat.completions.create({ model: 'via-upstream', messages, tools: [terminal], stream: true }));
    expect(turn2.content).toBe('The server date is Wednesday, January 15, 2026.');
    expect(turn2.finishes).toEqual(['stop']);
    const models = await up.openai.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['via-upstream']);
  });
});
