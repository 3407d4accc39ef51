/**
 * The OpenAI-compatible routes as an encapsulated Fastify plugin:
 *
 *   POST /v1/chat/completions   JSON, or SSE with `stream: true`
 *   POST /v1/completions        raw-prompt completions, JSON or SSE
 *   GET  /v1/models
 *   GET  /health
 *   GET  /metrics               Prometheus text format
 *
 * Errors answer OpenAI's body `{"error": {"message", "type", "param", "code"}}`.
 * Generations pass through a bounded admission queue; a client that goes away
 * aborts its generation.
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { AbortError, EngineDeadError, NodeVllmError } from '../errors';
import type { FinishReason, GenerateOptions, SamplingParams, Usage } from '../engine/types';
import { HttpError, toErrorResponse } from './errors';
import { Limiter, QueueFullError } from './limiter';
import { ServerMetrics } from './metrics';
import { SAMPLING_FIELDS, type ChatCompletionChunkLike, type ServerBackend } from './types';

export interface NodeVllmCppPluginOptions {
  backend: ServerBackend;
  /** Names clients may send as `model`; the first is the one responses carry. Default: the backend's `modelName`. */
  servedModelName?: string | string[];
  /** Required `Authorization: Bearer` key(s) for `/v1/*`. Default: none. */
  apiKey?: string | string[];
  /** Generations running at once. Default 64. */
  maxConcurrency?: number;
  /** Requests waiting for a slot before new ones get 503. Default 256. */
  maxQueue?: number;
  /** The `Retry-After` seconds sent with 503. Default 1. */
  retryAfterSeconds?: number;
  /** Largest accepted JSON body in bytes (413 beyond). Default 32 MiB. */
  bodyLimit?: number;
  /** Metrics to update; pass your own to share a registry. Default: a fresh ServerMetrics. */
  metrics?: ServerMetrics;
  /** Shared serving state (in-flight generations), for drain/abort on shutdown. */
  state?: ServingState;
}

/** The generations in flight, so a shutdown can wait for them or abort them. */
export class ServingState {
  readonly inflight = new Set<AbortController>();
  /** Set when the server starts closing: new requests get 503 with Retry-After. */
  closing = false;
  /** The engine's failure once a request reported it dead (EngineDeadError): `/health` answers 503. */
  engineDead: string | undefined;
  abortAll(): void {
    for (const ac of this.inflight) ac.abort();
  }
}

interface RequestContext {
  endpoint: string;
  stream: boolean;
  start: bigint;
}

const contexts = new WeakMap<ServerResponse, RequestContext>();
const rawBodies = new WeakMap<FastifyRequest['raw'], string>();

const COMPLETION_FIELDS: ReadonlyArray<keyof SamplingParams> = [...SAMPLING_FIELDS, 'max_tokens', 'max_completion_tokens'];

function unixNow(): number {
  return Math.floor(Date.now() / 1000);
}

function keyMatches(given: string, keys: readonly string[]): boolean {
  const g = Buffer.from(given);
  let ok = false;
  for (const k of keys) {
    const kb = Buffer.from(k);
    if (kb.length === g.length && timingSafeEqual(kb, g)) ok = true;
  }
  return ok;
}

function objectBody(req: FastifyRequest): Record<string, unknown> {
  const b = req.body;
  if (b === null || typeof b !== 'object' || Array.isArray(b)) {
    throw new HttpError(400, 'The request body must be a JSON object', 'ERR_REQUEST_VALIDATION');
  }
  return b as Record<string, unknown>;
}

/** 400 for a field set to anything but its one supported value (`undefined`: only absent or null). */
function rejectUnsupported(body: Record<string, unknown>, supported: Record<string, unknown>): void {
  for (const [field, value] of Object.entries(supported)) {
    const v = body[field];
    if (v === undefined || v === null || v === value) continue;
    throw new HttpError(400, `\`${field}\` = ${JSON.stringify(v)} is not supported by this server`, 'ERR_UNSUPPORTED', field);
  }
}

/** Writes to a response, waiting for 'drain' when the socket buffer is full; false once the client is gone. */
async function write(res: ServerResponse, text: string): Promise<boolean> {
  if (res.destroyed || res.writableEnded) return false;
  if (res.write(text)) return true;
  return new Promise((resolve) => {
    const done = (ok: boolean) => () => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(ok);
    };
    const onDrain = done(true);
    const onClose = done(false);
    res.on('drain', onDrain);
    res.on('close', onClose);
  });
}

function sse(data: unknown): string {
  return `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

/**
 * The body text with `"stream_options": {"include_usage": true}` as its first
 * key. Only used when the body has no `stream_options` key, so the text stays
 * a valid JSON object and every other byte (numbers, key order) is unchanged.
 */
export function withStreamUsage(text: string): string {
  const i = text.indexOf('{');
  const rest = text.slice(i + 1);
  const sep = /^\s*\}/.test(rest) ? '' : ',';
  return `${text.slice(0, i + 1)}"stream_options":{"include_usage":true}${sep}${rest}`;
}

/** The chunks without the trailing usage-only chunk (choices: []), whose usage goes to `onUsage`. */
async function* withoutUsageChunk(
  chunks: AsyncIterable<ChatCompletionChunkLike>,
  onUsage: (u: ChatCompletionChunkLike['usage']) => void,
): AsyncGenerator<ChatCompletionChunkLike> {
  for await (const c of chunks) {
    if (c.usage && Array.isArray(c.choices) && c.choices.length === 0) {
      onUsage(c.usage);
      continue;
    }
    yield c;
  }
}

/** OpenAI's finish_reason for a raw completion. */
function completionFinish(reason: FinishReason | undefined): string {
  if (reason === 'length' || reason === 'abort' || reason === 'stop') return reason;
  return 'stop';
}

export const nodeVllmCppPlugin: FastifyPluginAsync<NodeVllmCppPluginOptions> = async (app: FastifyInstance, opts) => {
  const backend = opts.backend;
  if (!backend) throw new TypeError('nodeVllmCppPlugin: options.backend is required');
  const names = opts.servedModelName === undefined ? [backend.modelName] : ([] as string[]).concat(opts.servedModelName);
  if (names.length === 0 || names.some((n) => typeof n !== 'string' || n === '')) throw new TypeError('servedModelName: give one or more non-empty names');
  const modelName = names[0];
  const apiKeys = opts.apiKey === undefined ? [] : ([] as string[]).concat(opts.apiKey).filter((k) => k !== '');
  const retryAfter = opts.retryAfterSeconds ?? 1;
  const metrics = opts.metrics ?? new ServerMetrics();
  const state = opts.state ?? new ServingState();
  const limiter = new Limiter(opts.maxConcurrency ?? 64, opts.maxQueue ?? 256, (s) => {
    metrics.running.set(s.running);
    metrics.waiting.set(s.waiting);
  });
  const bodyLimit = opts.bodyLimit ?? 32 * 1024 * 1024;

  // Keep the body text: chat backends that take it render with Python's number and key-order semantics.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (req, text, done) => {
    const s = text as string;
    rawBodies.set(req.raw, s);
    try {
      done(null, JSON.parse(s));
    } catch (e) {
      done(new HttpError(400, `The request body is not valid JSON: ${(e as Error).message}`, 'ERR_INVALID_JSON'), undefined);
    }
  });

  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
    const ctx: RequestContext = { endpoint: req.routeOptions.url ?? 'unmatched', stream: false, start: process.hrtime.bigint() };
    contexts.set(reply.raw, ctx);
    reply.raw.once('close', () => {
      const status = reply.raw.writableFinished ? reply.raw.statusCode : 499;
      metrics.requests.inc({ endpoint: ctx.endpoint, status: String(status) });
      const seconds = Number(process.hrtime.bigint() - ctx.start) / 1e9;
      metrics.latency.observe({ endpoint: ctx.endpoint, stream: String(ctx.stream) }, seconds);
    });
    if (state.closing) {
      reply.header('connection', 'close');
      throw new HttpError(503, 'The server is shutting down', 'ERR_SHUTTING_DOWN', null, { 'retry-after': String(retryAfter) });
    }
  });

  app.setErrorHandler((err, req, reply) => {
    noteDeath(err);
    const r = toErrorResponse(err, retryAfter);
    if (r.status >= 500 && r.status !== 503) req.log.error({ err }, 'request failed');
    else if (r.status === 503) req.log.warn({ code: r.body.error.code }, r.body.error.message);
    else req.log.info({ status: r.status, code: r.body.error.code, param: r.body.error.param }, r.body.error.message);
    void reply.code(r.status).headers(r.headers).send(r.body);
  });

  app.setNotFoundHandler((req, reply) => {
    void reply.code(404).send({
      error: { message: `${req.method} ${req.url.split('?')[0]} does not exist`, type: 'not_found_error', param: null, code: 'ERR_NOT_FOUND' },
    });
  });

  /** An engine that died stays dead for this server (a supervisor restarts it): remember it for /health. */
  const noteDeath = (e: unknown): void => {
    if (e instanceof EngineDeadError && state.engineDead === undefined) {
      state.engineDead = e.message;
      app.log.error({ err: e }, 'the engine died; /health now answers 503');
    }
  };

  /** A generation's token counts: into the metrics and the request's log. */
  const usageSeen = (req: FastifyRequest, endpoint: string, usage: Partial<Usage> | null | undefined): void => {
    metrics.countUsage(endpoint, usage);
    if (usage) req.log.info({ prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens }, 'generation finished');
  };

  const authenticate = async (req: FastifyRequest): Promise<void> => {
    if (apiKeys.length === 0) return;
    const h = req.headers.authorization;
    const given = typeof h === 'string' && /^Bearer /i.test(h) ? h.slice(7).trim() : '';
    if (!given || !keyMatches(given, apiKeys)) {
      throw new HttpError(401, 'Incorrect API key provided', 'invalid_api_key');
    }
  };

  const checkModel = (body: Record<string, unknown>): void => {
    const m = body.model;
    if (m === undefined || m === null || m === '') return;
    if (typeof m !== 'string') throw new HttpError(400, '`model` must be a string', 'ERR_REQUEST_VALIDATION', 'model');
    if (!names.includes(m)) throw new HttpError(404, `The model \`${m}\` does not exist.`, 'model_not_found', 'model');
  };

  /**
   * Runs one generation: admission, an AbortController tied to the client's
   * connection, and cleanup. `work` gets the signal.
   */
  const generation = async <T>(reply: FastifyReply, work: (signal: AbortSignal) => Promise<T>): Promise<T | undefined> => {
    const ac = new AbortController();
    const onClose = (): void => {
      if (!reply.raw.writableFinished) ac.abort(new AbortError('The client closed the connection'));
    };
    reply.raw.once('close', onClose);
    state.inflight.add(ac);
    let release: (() => void) | undefined;
    try {
      try {
        release = await limiter.acquire(ac.signal);
      } catch (e) {
        if (e instanceof QueueFullError) throw new HttpError(503, e.message, 'ERR_QUEUE_FULL', null, { 'retry-after': String(retryAfter) });
        throw e;
      }
      return await work(ac.signal);
    } catch (e) {
      // The client is gone: there is no one to answer.
      if (reply.raw.destroyed && ac.signal.aborted) {
        reply.log.info('generation aborted: the client disconnected');
        if (!reply.sent) reply.hijack();
        return undefined;
      }
      throw e;
    } finally {
      release?.();
      state.inflight.delete(ac);
      reply.raw.off('close', onClose);
    }
  };

  /** Streams `first` and the rest of `chunks` as SSE, then `data: [DONE]`. Errors after the headers go out as an error event. */
  const pipeSse = async <C>(
    req: FastifyRequest,
    reply: FastifyReply,
    iterator: AsyncIterator<C>,
    first: IteratorResult<C>,
    onChunk: (c: C) => unknown,
  ): Promise<void> => {
    const res = reply.raw;
    const ctx = contexts.get(res);
    if (ctx) metrics.timeToFirstChunk.observe({ endpoint: ctx.endpoint }, Number(process.hrtime.bigint() - ctx.start) / 1e9);
    reply.hijack();
    const headers: Record<string, string | number | string[]> = {};
    for (const [k, v] of Object.entries(reply.getHeaders())) if (v !== undefined) headers[k] = v;
    res.writeHead(200, { ...headers, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
    try {
      let r = first;
      while (!r.done) {
        if (!(await write(res, sse(onChunk(r.value))))) {
          await iterator.return?.();
          return;
        }
        r = await iterator.next();
      }
      await write(res, sse('[DONE]'));
    } catch (e) {
      noteDeath(e);
      if (res.destroyed) return;
      const er = toErrorResponse(e, retryAfter);
      req.log.error({ err: e }, 'stream failed');
      await write(res, sse(er.body));
      await write(res, sse('[DONE]'));
    } finally {
      if (!res.writableEnded) res.end();
    }
  };

  const v1 = { onRequest: authenticate };

  app.get('/health', async (_req, reply) => {
    if (state.engineDead !== undefined || (backend.healthy && !backend.healthy())) {
      return reply.code(503).header('retry-after', String(retryAfter)).send({
        error: { message: `The engine is not available${state.engineDead ? `: ${state.engineDead}` : ''}`, type: 'server_error', param: null, code: 'ERR_ENGINE_DEAD' },
      });
    }
    return reply.code(200).send();
  });

  app.get('/metrics', async (_req, reply) => {
    const text = await metrics.registry.metrics();
    return reply.type(metrics.registry.contentType).send(text);
  });

  app.get('/v1/models', v1, async () => {
    const created = unixNow();
    return {
      object: 'list',
      data: names.map((id) => ({
        id,
        object: 'model',
        created,
        owned_by: 'node-vllm-cpp',
        root: modelName,
        parent: null,
        ...(backend.maxModelLen !== undefined ? { max_model_len: backend.maxModelLen } : {}),
      })),
    };
  });

  app.post('/v1/chat/completions', v1, async (req, reply) => {
    const body = objectBody(req);
    checkModel(body);
    rejectUnsupported(body, { n: 1 });
    const input = backend.acceptsRequestText ? (rawBodies.get(req.raw) ?? body) : body;
    const stream = body.stream === true;
    const ctx = contexts.get(reply.raw);
    if (ctx) ctx.stream = stream;
    // vLLM's id scheme: one id per request, shared by every chunk of a stream.
    const chatId = `chatcmpl-${String(req.id)}`;
    // Token counts for the metrics come from the usage chunk; ask for it when the client did not, and drop it again.
    const injectUsage = stream && body.stream_options === undefined;
    let streamInput = input;
    if (injectUsage) {
      streamInput = typeof input === 'string' ? withStreamUsage(input) : { ...body, stream_options: { include_usage: true } };
    }
    return generation(reply, async (signal) => {
      if (!stream) {
        const result = await backend.chat(input, { signal, requestId: chatId });
        usageSeen(req, 'chat', result.usage);
        result.id = chatId;
        result.model = modelName;
        return result;
      }
      const chunks = backend.chatStream(streamInput, { signal, requestId: chatId });
      const iterator = (injectUsage ? withoutUsageChunk(chunks, (u) => usageSeen(req, 'chat', u)) : chunks)[Symbol.asyncIterator]();
      // The first chunk comes after validation and rendering: their errors still get a proper status.
      const first = await iterator.next();
      await pipeSse(req, reply, iterator, first, (c: ChatCompletionChunkLike) => {
        if (c.usage) usageSeen(req, 'chat', c.usage);
        c.id = chatId;
        c.model = modelName;
        return c;
      });
      return undefined;
    });
  });

  app.post('/v1/completions', v1, async (req, reply) => {
    const body = objectBody(req);
    checkModel(body);
    let prompt = body.prompt;
    if (Array.isArray(prompt) && prompt.length === 1) prompt = prompt[0];
    if (typeof prompt !== 'string') {
      throw new HttpError(400, '`prompt` must be a string (token-id and batched prompts are not supported)', 'ERR_REQUEST_VALIDATION', 'prompt');
    }
    rejectUnsupported(body, { n: 1, best_of: 1, logprobs: undefined, suffix: undefined });
    const params: SamplingParams = {};
    for (const k of COMPLETION_FIELDS) if (body[k] !== undefined) (params as Record<string, unknown>)[k] = body[k];
    // OpenAI's and vLLM's completions default: 16 tokens; an explicit null means "up to the model length".
    if (body.max_tokens === undefined) params.max_tokens = 16;
    const stream = body.stream === true;
    const echo = body.echo === true;
    const includeUsage =
      stream && body.stream_options !== null && typeof body.stream_options === 'object' && (body.stream_options as { include_usage?: unknown }).include_usage === true;
    const ctx = contexts.get(reply.raw);
    if (ctx) ctx.stream = stream;
    const id = `cmpl-${String(req.id)}`;
    const created = unixNow();
    const chunkOf = (text: string, finish: string | null) => ({
      id,
      object: 'text_completion',
      created,
      model: modelName,
      choices: [{ index: 0, text, logprobs: null, finish_reason: finish, stop_reason: null }],
    });
    return generation(reply, async (signal) => {
      // vLLM's extension: add_special_tokens (default true) decides whether the tokenizer adds BOS.
      const addSpecialTokens = body.add_special_tokens !== false;
      const gen = backend.generator.stream(prompt as string, params, { signal, addSpecialTokens } as GenerateOptions)[Symbol.asyncIterator]();
      if (!stream) {
        let text = echo ? (prompt as string) : '';
        let finish: FinishReason | undefined;
        let usage: Usage | undefined;
        for (let r = await gen.next(); !r.done; r = await gen.next()) {
          text += r.value.text;
          if (r.value.finishReason) finish = r.value.finishReason;
          if (r.value.usage) usage = r.value.usage;
        }
        if (finish === 'error') throw new NodeVllmError('The engine ended the generation with an error');
        usageSeen(req, 'completions', usage);
        const out = chunkOf(text, completionFinish(finish));
        return { ...out, usage: usage ?? null };
      }
      // Pull the first piece before the headers go out, so early failures get a status.
      const first = await gen.next();
      let usage: Usage | undefined;
      let echoed = !echo;
      let ended = false;
      async function* completionEvents() {
        for (let r = first; !r.done; r = await gen.next()) {
          const c = r.value;
          if (c.usage) usage = c.usage;
          if (c.finishReason === 'error') throw new NodeVllmError('The engine ended the generation with an error');
          const text = (echoed ? '' : (prompt as string)) + c.text;
          echoed = true;
          if (c.finishReason) {
            ended = true;
            yield chunkOf(text, completionFinish(c.finishReason));
          } else if (text) {
            yield chunkOf(text, null);
          }
        }
        if (!ended) yield chunkOf('', 'stop');
        usageSeen(req, 'completions', usage);
        if (includeUsage) yield { id, object: 'text_completion', created, model: modelName, choices: [], usage: usage ?? null };
      }
      const events = (async function* () {
        try {
          yield* completionEvents();
        } finally {
          await gen.return?.();
        }
      })();
      const firstEvent = await events.next();
      await pipeSse(req, reply, events, firstEvent, (c) => c);
      return undefined;
    });
  });
};

export interface RequestIdOptions {
  /** Honour the client's `x-request-id` (default true); otherwise always generate one. */
  trustRequestId?: boolean;
}

/** Fastify's genReqId: the client's `x-request-id` when it is a sane token, else a fresh hex id. */
export function requestIdGenerator(options: RequestIdOptions = {}): (req: { headers: Record<string, string | string[] | undefined> }) => string {
  const trust = options.trustRequestId !== false;
  return (req) => {
    const h = req.headers['x-request-id'];
    if (trust && typeof h === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(h)) return h;
    return randomUUID().replace(/-/g, '');
  };
}
