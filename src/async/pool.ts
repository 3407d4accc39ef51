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
import { deserialize } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { BackendError } from '../errors';
import type { RenderChatOptions, RenderChatResult } from '../render';
import { chatResult } from '../result';
import { applyPatches, decodeError, type Patch, type WireThrown } from './wire';

/** main -> worker */
export interface JobMessage {
  id: number;
  request: unknown;
  /** The options, with `template` removed when it was a CompiledTemplate. */
  options: RenderChatOptions;
  /** The clock at the call, when the options give none (strftime_now reads the time of the call). */
  nowMs?: number;
  /** [hash, source] of a CompiledTemplate option; the source only when this worker has not got it yet. */
  compiled?: [string, string | undefined];
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
      /** v8.serialize([messages, tools]), transferred; decoded when the caller first reads either. */
      trees: ArrayBuffer;
      patches: [Patch[], Patch[]];
    }
  | { id: number; ok: false; error: WireThrown };

/** Templates a worker keeps (first in, first out, the same rule on both sides of the channel). */
export const WORKER_TEMPLATE_LIMIT = 64;

interface Slot {
  worker: Worker;
  inflight: number;
  /** Hashes of the template sources this worker holds, in the order it got them. */
  templates: Set<string>;
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
    const slot: Slot = { worker, inflight: 0, templates: new Set() };
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
    p.resolve(resultOf(m));
  }

  /**
   * Sends one job. Returns undefined (nothing sent) when the job does not
   * survive structured clone; the caller then renders it on its own thread.
   */
  submit(job: Omit<JobMessage, 'id'>, template?: { hash: string; source: string }): Promise<RenderChatResult> | undefined {
    const slot = this.#pick();
    const id = this.#nextId++;
    const message: JobMessage = { id, ...job };
    const fresh = template !== undefined && !slot.templates.has(template.hash);
    if (template !== undefined) message.compiled = [template.hash, fresh ? template.source : undefined];
    try {
      slot.worker.postMessage(message);
    } catch {
      return undefined;
    }
    if (fresh) {
      slot.templates.add(template.hash);
      if (slot.templates.size > WORKER_TEMPLATE_LIMIT) slot.templates.delete(slot.templates.values().next().value as string);
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

/**
 * The result with `messages` and `tools` decoded on first read: a server
 * that only needs the prompt never pays for them on its thread.
 */
function resultOf(m: Extract<ReplyMessage, { ok: true }>): RenderChatResult {
  let trees: [unknown[], unknown[] | null] | undefined;
  const decode = (): [unknown[], unknown[] | null] => {
    if (trees === undefined) {
      const [messages, tools] = deserialize(new Uint8Array(m.trees)) as [unknown[], unknown[] | null];
      trees = [applyPatches(messages, m.patches[0]) as unknown[], applyPatches(tools, m.patches[1]) as unknown[] | null];
    }
    return trees;
  };
  return chatResult(m.prompt, () => decode()[0], () => decode()[1], m.contentFormat, m.warnings, m.templateHash, m.backend);
}

let shared: RenderPool | undefined;

/** The process-wide pool renderChatAsync uses (created on first use). */
export function renderPool(): RenderPool {
  return (shared ??= new RenderPool());
}
