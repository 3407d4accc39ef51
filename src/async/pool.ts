/**
 * A small worker_threads pool for renderChatAsync: every per-request step
 * runs in a worker, the main thread only hands the request over and takes
 * the result back.
 *
 * - Lazy: no worker exists before the first request; more start (up to the
 *   pool size) only while all running ones are busy.
 * - Sized to the machine: availableParallelism() - 1 (at least 1, at most 4);
 *   NODE_VLLM_CPP_ASYNC_WORKERS overrides it, 0 turns the pool off.
 * - Never keeps a process alive: a worker is ref'd only while it has work.
 * - A worker that dies fails its pending requests with BackendError and is
 *   replaced on the next request.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { BackendError } from '../errors';
import type { RenderChatOptions, RenderChatResult } from '../render';
import { applyPatches, decodeError, type Patch, type WireThrown } from './wire';

/** main -> worker */
export interface JobMessage {
  id: number;
  request: unknown;
  /** The options with `template` removed when it was a CompiledTemplate, and `now` fixed at the call. */
  options: RenderChatOptions;
  /** [hash, source] of a CompiledTemplate option. */
  compiled?: [string, string];
}

/** worker -> main */
export type ReplyMessage =
  | {
      id: number;
      ok: true;
      prompt: string;
      contentFormat: RenderChatResult['contentFormat'];
      warnings: string[];
      templateHash: string;
      backend: RenderChatResult['backend'];
      messages: unknown[];
      tools: unknown[] | null;
      patches: [Patch[], Patch[]];
    }
  | { id: number; ok: false; error: WireThrown };

interface Slot {
  worker: Worker;
  inflight: number;
}

interface Pending {
  slot: Slot;
  resolve: (r: RenderChatResult) => void;
  reject: (e: unknown) => void;
}

function defaultSize(): number {
  const env = process.env.NODE_VLLM_CPP_ASYNC_WORKERS;
  if (env !== undefined && env.trim() !== '') {
    const n = Number(env);
    if (Number.isInteger(n) && n >= 0) return n;
  }
  return Math.max(1, Math.min(availableParallelism() - 1, 4));
}

/** The compiled worker next to this module, or (when running from src/ under a TS loader) the one in dist/. */
function workerScript(): string | undefined {
  for (const p of [join(__dirname, 'worker.js'), join(__dirname, '..', '..', 'dist', 'cjs', 'async', 'worker.js')]) {
    if (existsSync(p)) return p;
  }
  return undefined;
}

export class RenderPool {
  readonly size: number;
  readonly script: string | undefined;
  #slots: Slot[] = [];
  #pending = new Map<number, Pending>();
  #nextId = 1;
  #submitted = 0;

  constructor(size = defaultSize(), script = workerScript()) {
    this.size = script === undefined ? 0 : size;
    this.script = script;
  }

  /** Jobs handed to a worker so far. */
  get submitted(): number {
    return this.#submitted;
  }

  /** Workers running now. */
  get workers(): number {
    return this.#slots.length;
  }

  #spawn(): Slot {
    const worker = new Worker(this.script!);
    const slot: Slot = { worker, inflight: 0 };
    worker.unref();
    worker.on('message', (m: ReplyMessage) => this.#settle(slot, m));
    const fail = (why: string) => {
      const i = this.#slots.indexOf(slot);
      if (i < 0) return;
      this.#slots.splice(i, 1);
      for (const [id, p] of this.#pending) {
        if (p.slot !== slot) continue;
        this.#pending.delete(id);
        p.reject(new BackendError(`render worker ${why}`));
      }
    };
    worker.on('error', (e) => fail(`failed: ${e instanceof Error ? e.message : String(e)}`));
    worker.on('exit', (code) => fail(`exited with code ${code}`));
    this.#slots.push(slot);
    return slot;
  }

  #pick(): Slot {
    let best: Slot | undefined;
    for (const s of this.#slots) if (best === undefined || s.inflight < best.inflight) best = s;
    if (best === undefined || (best.inflight > 0 && this.#slots.length < this.size)) return this.#spawn();
    return best;
  }

  #settle(slot: Slot, m: ReplyMessage): void {
    const p = this.#pending.get(m.id);
    if (p === undefined) return;
    this.#pending.delete(m.id);
    if (--slot.inflight === 0) slot.worker.unref();
    if (!m.ok) {
      p.reject(decodeError(m.error));
      return;
    }
    p.resolve({
      prompt: m.prompt,
      messages: applyPatches(m.messages, m.patches[0]) as unknown[],
      tools: applyPatches(m.tools, m.patches[1]) as unknown[] | null,
      contentFormat: m.contentFormat,
      warnings: m.warnings,
      templateHash: m.templateHash,
      backend: m.backend,
    });
  }

  /**
   * Sends one job. Returns undefined (nothing sent) when the job does not
   * survive structured clone; the caller then renders it on its own thread.
   */
  submit(job: Omit<JobMessage, 'id'>): Promise<RenderChatResult> | undefined {
    const slot = this.#pick();
    const id = this.#nextId++;
    try {
      slot.worker.postMessage({ id, ...job });
    } catch {
      return undefined;
    }
    this.#submitted++;
    if (slot.inflight++ === 0) slot.worker.ref();
    return new Promise<RenderChatResult>((resolve, reject) => this.#pending.set(id, { slot, resolve, reject }));
  }

  /** Stops every worker (pending requests fail with BackendError). */
  async close(): Promise<void> {
    const slots = this.#slots.splice(0);
    for (const [id, p] of this.#pending) {
      this.#pending.delete(id);
      p.reject(new BackendError('render pool closed'));
    }
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }
}

let shared: RenderPool | undefined;

/** The process-wide pool renderChatAsync uses (created on first use). */
export function renderPool(): RenderPool {
  return (shared ??= new RenderPool());
}
