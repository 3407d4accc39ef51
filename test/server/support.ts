/** Test doubles for the HTTP layer: a scripted TextGenerator and helpers to run a server on loopback. */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import OpenAI from 'openai';
import type { GenerateOptions, GenerationChunk, SamplingParams, TextGenerator } from '../../src/engine/types';
import { AbortError } from '../../src/errors';

export interface GeneratorCall {
  prompt: string;
  params: SamplingParams;
  signal?: AbortSignal;
  /** Set when the generation saw its signal abort. */
  aborted: boolean;
  /** Set when the generation ran to its end. */
  finished: boolean;
}

/**
 * Answers every prompt with the next scripted output, cut into pieces. A
 * `hold` promise makes a generation wait (after its first piece) until it
 * resolves or the signal aborts, like an engine still decoding.
 */
export class ScriptedGenerator implements TextGenerator {
  readonly calls: GeneratorCall[] = [];
  hold: Promise<void> | undefined;
  private next = 0;

  constructor(
    public outputs: string[],
    readonly pieceSize = 4,
  ) {}

  async *stream(prompt: string, params: SamplingParams, options: GenerateOptions = {}): AsyncGenerator<GenerationChunk> {
    const call: GeneratorCall = { prompt, params, signal: options.signal, aborted: false, finished: false };
    this.calls.push(call);
    const out = this.outputs[this.next++ % this.outputs.length];
    const pieces: string[] = [];
    for (let i = 0; i < out.length; i += this.pieceSize) pieces.push(out.slice(i, i + this.pieceSize));
    const limit = typeof params.max_tokens === 'number' ? params.max_tokens : Infinity;
    const signal = options.signal;
    let emitted = 0;
    for (const piece of pieces) {
      if (emitted >= limit) break;
      if (signal?.aborted) {
        call.aborted = true;
        throw new AbortError('aborted');
      }
      yield { text: piece };
      emitted++;
      if (this.hold && emitted === 1) {
        const hold = this.hold;
        await new Promise<void>((resolve, reject) => {
          const onAbort = (): void => {
            call.aborted = true;
            reject(new AbortError('aborted'));
          };
          if (signal?.aborted) return onAbort();
          signal?.addEventListener('abort', onAbort, { once: true });
          void hold.then(() => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          });
        });
      }
    }
    call.finished = true;
    const finishReason = emitted < pieces.length ? 'length' : 'stop';
    yield { text: '', finishReason, usage: { prompt_tokens: prompt.length, completion_tokens: emitted, total_tokens: prompt.length + emitted } };
  }
}

/** A promise and its resolver. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const a = app.server.address() as AddressInfo;
  return `http://127.0.0.1:${a.port}`;
}

export function client(base: string, apiKey = 'unused'): OpenAI {
  return new OpenAI({ baseURL: `${base}/v1`, apiKey, maxRetries: 0, timeout: 20_000 });
}

/** Polls until `cond` holds (or fails the test after `ms`). */
export async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
