/**
 * UpstreamGenerator against a second instance of our own server acting as
 * the OpenAI-compatible completions endpoint (loopback).
 */
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { AbortError, EngineUnavailableError } from '../../src/errors';
import { createServer, sseData, UpstreamError, UpstreamGenerator, type ServerBackend } from '../../src/server';
import type { GenerationChunk } from '../../src/engine/types';
import { listen, ScriptedGenerator, until } from './support';

const servers: FastifyInstance[] = [];
afterEach(async () => {
  while (servers.length) await servers.pop()!.close();
});

function completionsOnly(generator: ScriptedGenerator, modelName = 'upstream-model'): ServerBackend {
  const no = (): never => {
    throw new Error('chat is not used here');
  };
  return { generator, modelName, chat: no, chatStream: no };
}

async function upstream(generator: ScriptedGenerator, apiKey?: string) {
  const app = await createServer({ backend: completionsOnly(generator), apiKey });
  servers.push(app);
  return listen(app);
}

async function collect(it: AsyncIterable<GenerationChunk>): Promise<GenerationChunk[]> {
  const out: GenerationChunk[] = [];
  for await (const c of it) out.push(c);
  return out;
}

describe('UpstreamGenerator', () => {
  it('streams the upstream text, then its finish reason and usage; sampling fields pass through', async () => {
    const gen = new ScriptedGenerator(['Hello, world'], 3);
    const base = await upstream(gen);
    const g = new UpstreamGenerator({ url: base, extraBody: { add_special_tokens: false } });
    const chunks = await collect(g.stream('<bos>PROMPT', { temperature: 0.25, top_k: 5, stop: ['\n'], skip_special_tokens: false }));
    expect(chunks.map((c) => c.text).join('')).toBe('Hello, world');
    expect(chunks.slice(0, -1).every((c) => c.finishReason === undefined)).toBe(true);
    expect(chunks[chunks.length - 1]).toEqual({
      text: '',
      finishReason: 'stop',
      usage: { prompt_tokens: 11, completion_tokens: 4, total_tokens: 15 },
    });
    // the model name came from the upstream's /v1/models
    expect(gen.calls).toHaveLength(1);
    expect(gen.calls[0].prompt).toBe('<bos>PROMPT');
    expect(gen.calls[0].params).toMatchObject({ temperature: 0.25, top_k: 5, stop: ['\n'], skip_special_tokens: false });
    // no limit given: an explicit null, not the completions default of 16
    expect(gen.calls[0].params.max_tokens).toBeNull();
  });

  it('max_tokens (or max_completion_tokens) reaches the upstream and its length finish comes back', async () => {
    const gen = new ScriptedGenerator(['abcdefgh'], 1);
    const base = await upstream(gen);
    const g = new UpstreamGenerator({ url: `${base}/v1`, model: 'upstream-model' });
    const chunks = await collect(g.stream('x', { max_completion_tokens: 3 }));
    expect(chunks.map((c) => c.text).join('')).toBe('abc');
    expect(chunks[chunks.length - 1].finishReason).toBe('length');
    expect(gen.calls[0].params.max_tokens).toBe(3);
  });

  it('errors: a refused key is an UpstreamError (502), an unknown model passes 404 as 502, a dead port is 503', async () => {
    const base = await upstream(new ScriptedGenerator(['x']), 'sk-up');
    const denied = await collect(new UpstreamGenerator({ url: base, model: 'm' }).stream('x', {})).catch((e) => e);
    expect(denied).toBeInstanceOf(UpstreamError);
    expect(denied.status).toBe(502);
    expect(denied.message).toContain('Incorrect API key provided');
    const ok = await collect(new UpstreamGenerator({ url: base, apiKey: 'sk-up' }).stream('x', {}));
    expect(ok.map((c) => c.text).join('')).toBe('x');
    const wrongModel = await collect(new UpstreamGenerator({ url: base, apiKey: 'sk-up', model: 'nope' }).stream('x', {})).catch((e) => e);
    expect(wrongModel).toBeInstanceOf(UpstreamError);
    expect(wrongModel.message).toContain('The model `nope` does not exist.');
    // a client error of the upstream (a bad parameter) stays a client error
    const badPrompt = await collect(new UpstreamGenerator({ url: base, apiKey: 'sk-up', model: 'upstream-model', extraBody: { n: 3 } }).stream('x', {})).catch((e) => e);
    expect(badPrompt.status).toBe(400);
    const closed = servers.pop()!;
    await closed.close();
    const dead = await collect(new UpstreamGenerator({ url: base, model: 'm' }).stream('x', {})).catch((e) => e);
    expect(dead).toBeInstanceOf(EngineUnavailableError);
    expect(dead.status).toBe(503);
  });

  it('aborting the signal cancels the upstream generation', async () => {
    const gen = new ScriptedGenerator(['abcdefgh'], 2);
    gen.hold = new Promise(() => {});
    const base = await upstream(gen);
    const ac = new AbortController();
    const g = new UpstreamGenerator({ url: base, model: 'upstream-model' });
    const seen: string[] = [];
    const err = await (async () => {
      for await (const c of g.stream('x', {}, { signal: ac.signal })) {
        seen.push(c.text);
        ac.abort();
      }
    })().catch((e) => e);
    expect(err).toBeInstanceOf(AbortError);
    expect(seen).toEqual(['ab']);
    await until(() => gen.calls[0]?.aborted === true);
  });
});

describe('sseData', () => {
  it('joins multi-line data fields, ignores comments and other fields, accepts CRLF and a missing final blank line', async () => {
    const text = ': comment\r\nevent: x\r\ndata: a\r\ndata: b\r\n\r\ndata:c\n\ndata: [DONE]';
    const bytes = new TextEncoder().encode(text);
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        // split inside a CRLF and inside a multi-byte character's neighbourhood
        for (let i = 0; i < bytes.length; i += 5) c.enqueue(bytes.slice(i, i + 5));
        c.close();
      },
    });
    const out: string[] = [];
    for await (const d of sseData(body)) out.push(d);
    expect(out).toEqual(['a\nb', 'c', '[DONE]']);
  });
});
