/** Test doubles for the HTTP layer: a scripted TextGenerator and helpers to run a server on loopback. */
import { spawn, type ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
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

const root = path.join(__dirname, '..', '..');
const children: ChildProcess[] = [];

/** Kills what startServe started and is still running. */
export function killServed(): void {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
}

export interface Served {
  child: ChildProcess;
  base: string;
  logs: Array<Record<string, unknown>>;
  exited: Promise<number | null>;
}

/** Runs `node-vllm-cpp serve --port 0 ARGS` (the dist build) and resolves once it listens. */
export async function startServe(args: string[]): Promise<Served> {
  const child = spawn(process.execPath, [path.join(root, 'bin', 'node-vllm-cpp.js'), 'serve', '--port', '0', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const logs: Array<Record<string, unknown>> = [];
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const base = await new Promise<string>((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (d) => {
      buf += d;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        try {
          const entry = JSON.parse(line) as Record<string, unknown>;
          logs.push(entry);
          const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(String(entry.msg));
          if (m) resolve(m[1]);
        } catch {
          // not a log line
        }
      }
    });
    void exited.then((code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
  });
  return { child, base, logs, exited };
}

