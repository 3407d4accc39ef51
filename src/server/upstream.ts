/**
 * A TextGenerator backed by an OpenAI-compatible completions endpoint
 * (`/v1/completions` of vllm.cpp's server, vLLM or llama.cpp's server): our
 * pipeline renders the prompt and parses the output, the upstream only turns
 * the prompt into text.
 */
import { AbortError, EngineUnavailableError, NodeVllmError } from '../errors';
import type { FinishReason, GenerateOptions, GenerationChunk, SamplingParams, TextGenerator, Usage } from '../engine/types';
import { SAMPLING_FIELDS } from './types';

/** The upstream answered with an error, or with something that is not a completions stream. */
export class UpstreamError extends NodeVllmError {
  override name = 'UpstreamError';
  override readonly code: string = 'ERR_UPSTREAM';
  override readonly status: number;
  constructor(message: string, status: number) {
    super(message);
    this.status = status;
  }
}

export interface UpstreamGenerateOptions extends GenerateOptions {
  /** Sent as vLLM's `add_special_tokens`; the chat pipeline passes false (its prompt holds BOS already). */
  addSpecialTokens?: boolean;
}

export interface UpstreamOptions {
  /** Base URL; `/v1/completions` is appended unless the URL already ends in it. */
  url: string;
  /** The upstream's model name. Default: the first model its `/v1/models` lists. */
  model?: string;
  /** Sent as `Authorization: Bearer ...`. */
  apiKey?: string;
  /** Extra fields merged into every request body (e.g. `{ add_special_tokens: false }`). */
  extraBody?: Record<string, unknown>;
  fetch?: typeof fetch;
}

const FINISH: ReadonlySet<string> = new Set(['stop', 'length', 'abort', 'error', 'repetition']);

function finishOf(v: unknown): FinishReason {
  return typeof v === 'string' && FINISH.has(v) ? (v as FinishReason) : 'unknown';
}

function completionsUrl(base: string): string {
  const u = base.replace(/\/+$/, '');
  if (u.endsWith('/v1/completions')) return u;
  return u.endsWith('/v1') ? `${u}/completions` : `${u}/v1/completions`;
}

function modelsUrl(base: string): string {
  return completionsUrl(base).replace(/\/completions$/, '/models');
}

/** Splits a `text/event-stream` body into the payloads of its `data:` fields, one per event. */
export async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buf = '';
  let data: string[] = [];
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buf += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buf.search(/\r\n|\r|\n/)) >= 0) {
        // A CR at the end of what has arrived may be the first half of a CRLF.
        if (!done && nl === buf.length - 1 && buf[nl] === '\r') break;
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + (buf.startsWith('\r\n', nl) ? 2 : 1));
        if (line === '') {
          if (data.length) yield data.join('\n');
          data = [];
        } else if (line.startsWith('data:')) {
          data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
        }
      }
      if (done) {
        if (buf.startsWith('data:')) data.push(buf.slice(buf.startsWith('data: ') ? 6 : 5));
        if (data.length) yield data.join('\n');
        return;
      }
    }
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => {});
  }
}

function errorMessage(text: string): string {
  try {
    const j = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof j.error === 'string') return j.error;
    if (j.error && typeof j.error.message === 'string') return j.error.message;
    if (typeof j.message === 'string') return j.message;
  } catch {
    // not JSON: use the text itself
  }
  return text.slice(0, 500);
}

export class UpstreamGenerator implements TextGenerator {
  readonly url: string;
  private model: string | undefined;
  private modelLookup: Promise<string> | undefined;
  private readonly fetchFn: typeof fetch;

  constructor(private readonly options: UpstreamOptions) {
    this.url = completionsUrl(options.url);
    this.model = options.model;
    this.fetchFn = options.fetch ?? fetch;
  }

  private headers(): Record<string, string> {
    const h: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream' };
    if (this.options.apiKey) h.authorization = `Bearer ${this.options.apiKey}`;
    return h;
  }

  /** The upstream model name: the configured one, else the first id of its `/v1/models`. */
  async modelName(signal?: AbortSignal): Promise<string> {
    if (this.model !== undefined) return this.model;
    this.modelLookup ??= (async () => {
      const res = await this.request(modelsUrl(this.options.url), { method: 'GET', headers: this.headers(), signal });
      const j = (await res.json()) as { data?: Array<{ id?: unknown }> };
      const id = j.data?.[0]?.id;
      if (typeof id !== 'string') throw new UpstreamError(`${modelsUrl(this.options.url)} lists no model`, 502);
      this.model = id;
      return id;
    })();
    try {
      return await this.modelLookup;
    } catch (e) {
      this.modelLookup = undefined;
      throw e;
    }
  }

  private async request(url: string, init: RequestInit): Promise<Response> {
    let res: Response;
    try {
      res = await this.fetchFn(url, init);
    } catch (e) {
      if (init.signal?.aborted) throw new AbortError('The request was aborted');
      throw new EngineUnavailableError(`upstream ${url} is unreachable: ${(e as Error).cause ?? (e as Error).message}`, { cause: e });
    }
    if (!res.ok) {
      const text = await res.text().catch(() => '');
      // The upstream's client errors (a too-long prompt, a bad parameter) are the client's; the rest is ours.
      const status = res.status >= 400 && res.status < 500 && res.status !== 401 && res.status !== 404 ? res.status : 502;
      throw new UpstreamError(`upstream ${url} answered ${res.status}: ${errorMessage(text)}`, status);
    }
    return res;
  }

  async *stream(prompt: string, params: SamplingParams, options: UpstreamGenerateOptions = {}): AsyncGenerator<GenerationChunk> {
    const signal = options.signal;
    const body: Record<string, unknown> = {
      model: await this.modelName(signal),
      prompt,
      stream: true,
      stream_options: { include_usage: true },
    };
    for (const k of SAMPLING_FIELDS) if (params[k] !== undefined) body[k] = params[k];
    // No limit is an explicit null: completions endpoints default to 16 tokens otherwise.
    body.max_tokens = params.max_tokens ?? params.max_completion_tokens ?? null;
    // vLLM's extension: a rendered chat prompt already holds BOS, the upstream must not add another.
    if (options.addSpecialTokens !== undefined) body.add_special_tokens = options.addSpecialTokens;
    Object.assign(body, this.options.extraBody);
    const res = await this.request(this.url, { method: 'POST', headers: this.headers(), body: JSON.stringify(body), signal });
    if (!res.body) throw new UpstreamError(`upstream ${this.url} sent no body`, 502);
    let finishReason: FinishReason | undefined;
    let usage: Usage | undefined;
    try {
      for await (const data of sseData(res.body)) {
        if (data === '[DONE]') break;
        let event: { choices?: Array<{ text?: unknown; finish_reason?: unknown }>; usage?: Usage | null; error?: unknown };
        try {
          event = JSON.parse(data);
        } catch {
          throw new UpstreamError(`upstream ${this.url} sent a chunk that is not JSON: ${data.slice(0, 200)}`, 502);
        }
        if (event.error !== undefined) throw new UpstreamError(`upstream ${this.url} failed mid-stream: ${errorMessage(data)}`, 502);
        if (event.usage) usage = event.usage;
        const choice = event.choices?.[0];
        if (!choice) continue;
        if (choice.finish_reason !== null && choice.finish_reason !== undefined) finishReason = finishOf(choice.finish_reason);
        const text = typeof choice.text === 'string' ? choice.text : '';
        if (text) yield { text };
      }
    } catch (e) {
      if (signal?.aborted) throw new AbortError('The request was aborted');
      if (e instanceof NodeVllmError) throw e;
      throw new UpstreamError(`upstream ${this.url} stream failed: ${(e as Error).message}`, 502);
    }
    if (signal?.aborted) throw new AbortError('The request was aborted');
    const last: GenerationChunk = { text: '', finishReason: finishReason ?? 'unknown' };
    if (usage) last.usage = { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens, total_tokens: usage.total_tokens };
    yield last;
  }
}
