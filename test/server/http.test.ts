/**
 * The HTTP layer on loopback with the official openai client: error bodies
 * and statuses, the admission queue, aborts, request ids, metrics, drain,
 * and the plain (req, res) handler. The backend is a scripted generator (the
 * chat pipeline has its own suite in chat.test.ts).
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import Fastify from 'fastify';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createHandler, createServer, nodeVllmCppPlugin, type CreateServerOptions, type ServerBackend } from '../../src/server';
import type { ChatCallOptions } from '../../src/server';
import { client, gate, listen, ScriptedGenerator, until } from './support';

/** A chat backend that answers with the generator's text (no template, no parser): enough for the HTTP framing. */
function echoBackend(generator: ScriptedGenerator): ServerBackend & { closed: boolean } {
  const created = 1_700_000_000;
  const b = {
    generator,
    modelName: 'tiny-model',
    closed: false,
    async chat(request: unknown, options: ChatCallOptions = {}) {
      let text = '';
      let usage;
      for await (const c of generator.stream(JSON.stringify((request as { messages: unknown }).messages), {}, options)) {
        text += c.text;
        usage = c.usage;
      }
      return {
        id: 'backend-id',
        object: 'chat.completion',
        created,
        model: 'backend-model',
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop', logprobs: null }],
        usage,
      };
    },
    async *chatStream(request: unknown, options: ChatCallOptions = {}) {
      const base = { id: 'backend-id', object: 'chat.completion.chunk', created, model: 'backend-model' };
      yield { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] };
      for await (const c of generator.stream(JSON.stringify((request as { messages: unknown }).messages), {}, options)) {
        if (c.text) yield { ...base, choices: [{ index: 0, delta: { content: c.text }, finish_reason: null }] };
        if (c.finishReason) {
          yield { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] };
          yield { ...base, choices: [], usage: c.usage };
        }
      }
    },
    close() {
      b.closed = true;
    },
  };
  return b;
}

const servers: FastifyInstance[] = [];
afterEach(async () => {
  while (servers.length) await servers.pop()!.close();
});

async function start(generator: ScriptedGenerator, options: Partial<CreateServerOptions> = {}) {
  const backend = echoBackend(generator);
  const app = await createServer({ backend, ...options });
  servers.push(app);
  const base = await listen(app);
  return { app, base, backend, openai: client(base, typeof options.apiKey === 'string' ? options.apiKey : 'unused') };
}

async function raw(base: string, path: string, init: RequestInit = {}) {
  const res = await fetch(base + path, init);
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { res, text, json: json as { error: { message: string; type: string; param: string | null; code: string | null } } };
}

const post = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

describe('routes', () => {
  it('lists the served names, answers /health, and uses the first name in responses', async () => {
    const { openai } = await start(new ScriptedGenerator(['hello']), { servedModelName: ['public-name', 'alias'] });
    const models = await openai.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['public-name', 'alias']);
    const r = await openai.chat.completions.create({ model: 'alias', messages: [{ role: 'user', content: 'hi' }] });
    expect(r.model).toBe('public-name');
    expect(r.choices[0].message.content).toBe('hello');
  });

  it('health is 200 with an empty body', async () => {
    const { base } = await start(new ScriptedGenerator(['x']));
    const h = await raw(base, '/health');
    expect(h.res.status).toBe(200);
    expect(h.text).toBe('');
  });

  it('completions: JSON, SSE with include_usage, echo, the 16-token default', async () => {
    const gen = new ScriptedGenerator(['abcdefgh'], 1);
    const { openai } = await start(gen);
    const r = await openai.completions.create({ model: 'tiny-model', prompt: 'P:', max_tokens: 3 });
    expect(r.object).toBe('text_completion');
    expect(r.choices[0].text).toBe('abc');
    expect(r.choices[0].finish_reason).toBe('length');
    expect(r.usage).toEqual({ prompt_tokens: 2, completion_tokens: 3, total_tokens: 5 });
    expect(gen.calls[0].prompt).toBe('P:');
    expect(gen.calls[0].params.max_tokens).toBe(3);

    const s = await openai.completions.create({ model: 'tiny-model', prompt: 'P:', stream: true, echo: true, stream_options: { include_usage: true } });
    const texts: string[] = [];
    const finishes: (string | null)[] = [];
    let usage;
    for await (const c of s) {
      if (c.choices.length) {
        texts.push(c.choices[0].text);
        finishes.push(c.choices[0].finish_reason);
      }
      if (c.usage) usage = c.usage;
    }
    expect(texts.join('')).toBe('P:abcdefgh');
    expect(finishes.filter((f) => f !== null)).toEqual(['stop']);
    expect(finishes[finishes.length - 1]).toBe('stop');
    expect(usage).toEqual({ prompt_tokens: 2, completion_tokens: 8, total_tokens: 10 });
    // OpenAI's completions default is 16 tokens; null asks for no limit.
    expect(gen.calls[1].params.max_tokens).toBe(16);
    await openai.completions.create({ model: 'tiny-model', prompt: 'P:', max_tokens: null });
    expect(gen.calls[2].params.max_tokens).toBeNull();
  });

  it('streaming chat: SSE framing, one id per stream, data: [DONE]', async () => {
    const { base } = await start(new ScriptedGenerator(['Hello there']));
    const res = await fetch(`${base}/v1/chat/completions`, post({ messages: [{ role: 'user', content: 'hi' }], stream: true }, { 'x-request-id': 'abc-123' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('x-request-id')).toBe('abc-123');
    const text = await res.text();
    const events = text.split('\n\n').filter(Boolean);
    expect(events.every((e) => e.startsWith('data: '))).toBe(true);
    expect(events[events.length - 1]).toBe('data: [DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.slice(6)));
    expect(new Set(chunks.map((c) => c.id))).toEqual(new Set(['chatcmpl-abc-123']));
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe('Hello there');
  });

  it('a generated request id when the client sends none (or an unusable one)', async () => {
    const { base } = await start(new ScriptedGenerator(['ok']));
    const a = await fetch(`${base}/v1/chat/completions`, post({ messages: [{ role: 'user', content: 'hi' }] }));
    const id = a.headers.get('x-request-id')!;
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(((await a.json()) as { id: string }).id).toBe(`chatcmpl-${id}`);
    const b = await fetch(`${base}/v1/chat/completions`, post({ messages: [{ role: 'user', content: 'hi' }] }, { 'x-request-id': 'bad id with spaces' }));
    expect(b.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('errors in OpenAI shape', () => {
  it('401 for a missing or wrong key; /health and /metrics stay open', async () => {
    const { base, openai } = await start(new ScriptedGenerator(['ok']), { apiKey: 'sk-right' });
    const wrong = new OpenAI({ baseURL: `${base}/v1`, apiKey: 'sk-wrong', maxRetries: 0 });
    const err = await wrong.chat.completions.create({ model: 'tiny-model', messages: [{ role: 'user', content: 'hi' }] }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(err.status).toBe(401);
    expect(err.error).toEqual({ message: 'Incorrect API key provided', type: 'authentication_error', param: null, code: 'invalid_api_key' });
    const none = await raw(base, '/v1/models');
    expect(none.res.status).toBe(401);
    expect((await openai.models.list()).data[0].id).toBe('tiny-model');
    expect((await raw(base, '/health')).res.status).toBe(200);
    expect((await raw(base, '/metrics')).res.status).toBe(200);
  });

  it('404 for an unknown model and an unknown route', async () => {
    const { base, openai } = await start(new ScriptedGenerator(['ok']));
    const err = await openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect(err.error).toEqual({ message: 'The model `gpt-4o` does not exist.', type: 'not_found_error', param: 'model', code: 'model_not_found' });
    const r = await raw(base, '/v1/embeddings', post({ input: 'x' }));
    expect(r.res.status).toBe(404);
    expect(r.json.error.type).toBe('not_found_error');
  });

  it('413 for a body over the limit, 400 for invalid JSON and a non-object body', async () => {
    const { base } = await start(new ScriptedGenerator(['ok']), { bodyLimit: 1024 });
    const big = await raw(base, '/v1/chat/completions', post({ messages: [{ role: 'user', content: 'x'.repeat(2000) }] }));
    expect(big.res.status).toBe(413);
    expect(big.json.error).toMatchObject({ type: 'invalid_request_error', message: 'Request body is too large' });
    const bad = await raw(base, '/v1/chat/completions', post('{"messages": ['));
    expect(bad.res.status).toBe(400);
    expect(bad.json.error).toMatchObject({ type: 'invalid_request_error', code: 'ERR_INVALID_JSON', param: null });
    const arr = await raw(base, '/v1/completions', post('[1, 2]'));
    expect(arr.res.status).toBe(400);
    const n = await raw(base, '/v1/chat/completions', post({ messages: [{ role: 'user', content: 'hi' }], n: 2 }));
    expect(n.res.status).toBe(400);
    expect(n.json.error).toMatchObject({ param: 'n', code: 'ERR_UNSUPPORTED' });
    const tokens = await raw(base, '/v1/completions', post({ prompt: [1, 2, 3] }));
    expect(tokens.res.status).toBe(400);
    expect(tokens.json.error.param).toBe('prompt');
  });

  it('503 with Retry-After when the queue is full; waiting requests run when a slot frees', async () => {
    const gen = new ScriptedGenerator(['abcdefgh'], 2);
    const g = gate();
    gen.hold = g.promise;
    const { base } = await start(gen, { maxConcurrency: 1, maxQueue: 1, retryAfterSeconds: 7 });
    const body = post({ prompt: 'x', max_tokens: 100 });
    const first = raw(base, '/v1/completions', body);
    await until(() => gen.calls.length === 1);
    const second = raw(base, '/v1/completions', body);
    // the second waits in the queue; the third finds it full
    for (let i = 0; i < 500 && !/^node_vllm_cpp_requests_waiting 1$/m.test((await raw(base, '/metrics')).text); i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    const third = await raw(base, '/v1/completions', body);
    expect(third.res.status).toBe(503);
    expect(third.res.headers.get('retry-after')).toBe('7');
    expect(third.json.error).toMatchObject({ type: 'server_error', code: 'ERR_QUEUE_FULL' });
    const metrics = await raw(base, '/metrics');
    expect(metrics.text).toMatch(/^node_vllm_cpp_requests_waiting 1$/m);
    expect(metrics.text).toMatch(/^node_vllm_cpp_requests_running 1$/m);
    g.open();
    expect((await first).json).toMatchObject({ choices: [{ text: 'abcdefgh' }] });
    expect((await second).json).toMatchObject({ choices: [{ text: 'abcdefgh' }] });
    expect(gen.calls).toHaveLength(2);
  });
});

describe('client disconnect and shutdown', () => {
  it('aborting a stream mid-way cancels the generation', async () => {
    const gen = new ScriptedGenerator(['one two three four'], 4);
    gen.hold = new Promise(() => {}); // never released: only the abort ends it
    const { openai, base } = await start(gen);
    const ac = new AbortController();
    const stream = await openai.chat.completions.create(
      { model: 'tiny-model', messages: [{ role: 'user', content: 'hi' }], stream: true },
      { signal: ac.signal },
    );
    const seen: string[] = [];
    // the client's iteration ends (or throws) once the signal aborts
    await (async () => {
      for await (const c of stream) {
        seen.push(c.choices[0]?.delta?.content ?? '');
        if (seen.join('') === 'one ') ac.abort();
      }
    })().catch(() => {});
    expect(seen.join('')).toBe('one ');
    await until(() => gen.calls[0].aborted);
    expect(gen.calls[0].signal?.aborted).toBe(true);
    expect(gen.calls[0].finished).toBe(false);
    const m = await raw(base, '/metrics');
    expect(m.text).toMatch(/^node_vllm_cpp_requests_total\{endpoint="\/v1\/chat\/completions",status="499"\} 1$/m);
    expect(m.text).toMatch(/^node_vllm_cpp_requests_running 0$/m);
  });

  it('aborting a non-streaming request cancels the generation too', async () => {
    const gen = new ScriptedGenerator(['abcdefgh'], 2);
    gen.hold = new Promise(() => {});
    const { openai } = await start(gen);
    const ac = new AbortController();
    const p = openai.completions.create({ model: 'tiny-model', prompt: 'x' }, { signal: ac.signal }).catch((e) => e);
    await until(() => gen.calls.length === 1);
    ac.abort();
    expect(await p).toBeInstanceOf(OpenAI.APIUserAbortError);
    await until(() => gen.calls[0].aborted);
  });

  it('close() lets an in-flight stream finish, refuses new connections, then closes the backend', async () => {
    const gen = new ScriptedGenerator(['abcdefgh'], 2);
    const g = gate();
    gen.hold = g.promise;
    const { app, base, backend } = await start(gen);
    servers.pop();
    const res = await fetch(`${base}/v1/completions`, post({ prompt: 'x', stream: true }));
    await until(() => gen.calls.length === 1);
    const closing = app.close();
    await new Promise((r) => setTimeout(r, 50));
    expect(backend.closed).toBe(false);
    await expect(fetch(`${base}/health`)).rejects.toThrow();
    g.open();
    const text = await res.text();
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    await closing;
    expect(gen.calls[0].finished).toBe(true);
    expect(backend.closed).toBe(true);
  });

  it('drainTimeoutMs aborts generations that do not finish in time', async () => {
    const gen = new ScriptedGenerator(['abcdefgh'], 2);
    gen.hold = new Promise(() => {});
    const { app, base } = await start(gen, { drainTimeoutMs: 100 });
    servers.pop();
    const res = fetch(`${base}/v1/completions`, post({ prompt: 'x', stream: true }));
    await until(() => gen.calls.length === 1);
    await app.close();
    expect(gen.calls[0].aborted).toBe(true);
    const text = await (await res).text();
    // the abort reaches the client as an error event, then the stream ends
    expect(text).toContain('"error"');
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });
});

describe('metrics', () => {
  it('counts requests, tokens and latency in Prometheus text', async () => {
    const { base, openai } = await start(new ScriptedGenerator(['abcd'], 1));
    await openai.completions.create({ model: 'tiny-model', prompt: 'xyz' });
    await openai.chat.completions.create({ model: 'tiny-model', messages: [{ role: 'user', content: 'hi' }] });
    await raw(base, '/v1/models');
    const m = await raw(base, '/metrics');
    expect(m.res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(m.text).toMatch(/^node_vllm_cpp_requests_total\{endpoint="\/v1\/completions",status="200"\} 1$/m);
    expect(m.text).toMatch(/^node_vllm_cpp_requests_total\{endpoint="\/v1\/chat\/completions",status="200"\} 1$/m);
    expect(m.text).toMatch(/^node_vllm_cpp_generation_tokens_total\{endpoint="completions"\} 4$/m);
    expect(m.text).toMatch(/^node_vllm_cpp_prompt_tokens_total\{endpoint="completions"\} 3$/m);
    expect(m.text).toMatch(/^node_vllm_cpp_request_duration_seconds_count\{endpoint="\/v1\/completions",stream="false"\} 1$/m);
    expect(m.text).toMatch(/^node_vllm_cpp_process_resident_memory_bytes \d+/m);
  });
});

describe('library mounting', () => {
  it('nodeVllmCppPlugin mounts under a prefix inside a host Fastify app, encapsulated', async () => {
    const host = Fastify();
    servers.push(host);
    host.get('/own', async () => ({ own: true }));
    host.post('/own-json', async (req) => req.body);
    await host.register(nodeVllmCppPlugin, { prefix: '/llm', backend: echoBackend(new ScriptedGenerator(['mounted'])), apiKey: 'k' });
    const base = await listen(host);
    const r = await client(`${base}/llm`, 'k').chat.completions.create({ model: 'tiny-model', messages: [{ role: 'user', content: 'hi' }] });
    expect(r.choices[0].message.content).toBe('mounted');
    expect((await raw(base, '/llm/v1/models')).res.status).toBe(401);
    // the host's routes, JSON parser and 404s are untouched by the plugin
    expect((await raw(base, '/own')).json).toEqual({ own: true });
    expect((await raw(base, '/own-json', post({ a: 1 }))).json).toEqual({ a: 1 });
    expect((await raw(base, '/elsewhere')).json).toMatchObject({ statusCode: 404 });
  });

  it('createHandler serves the routes from a plain node:http server', async () => {
    const handler = await createHandler({ backend: echoBackend(new ScriptedGenerator(['plain'])) });
    const server = http.createServer((req, res) => {
      if (req.url?.startsWith('/app-route')) return void res.end('host app');
      handler(req, res);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const r = await client(base).chat.completions.create({ model: 'tiny-model', messages: [{ role: 'user', content: 'hi' }] });
      expect(r.choices[0].message.content).toBe('plain');
      expect(await (await fetch(`${base}/app-route`)).text()).toBe('host app');
      // closed, the handler refuses with OpenAI's 503 while the host keeps serving
      await handler.close();
      const after = await raw(base, '/v1/models');
      expect(after.res.status).toBe(503);
      expect(after.res.headers.get('retry-after')).toBe('1');
      expect(after.json.error).toMatchObject({ type: 'server_error', code: 'ERR_SHUTTING_DOWN' });
      expect(await (await fetch(`${base}/app-route`)).text()).toBe('host app');
    } finally {
      await new Promise((r) => server.close(r));
      await handler.close();
    }
  });
});
