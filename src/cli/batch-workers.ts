/**
 * The worker processes of `batch`: each renders a contiguous range of the
 * case lines, writing "<line number>\t<result>" per case to a results file.
 * A worker that dies (a native crash, a kill) costs only the case it was
 * rendering: that case gets an `ok: false` line and a fresh worker goes on
 * with the next one.
 *
 * With several workers (`--jobs`), the lines are split into ranges of about
 * the same number of bytes. The first range is supervised on the calling
 * thread, whose output goes out as it comes; each other range is supervised
 * by a worker thread of its own (the supervision blocks in spawnSync, so the
 * calling thread stays synchronous and waits for them with Atomics.wait), and
 * its output follows in line order once the ranges before it are out.
 *
 * The worker threads load this module only: Node's own modules and the JSON
 * decoder (for the id of a case whose worker died), never the addon.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { parsePyJson, serializePyJson } from '../protocol/pyjson';
import { decodeUtf8Strict } from '../protocol/utf8';

/** Set in the environment of a batch worker process: the first line number it renders. */
export const BATCH_WORKER_ENV = 'NODE_VLLM_CPP_BATCH_WORKER';
/** Set with BATCH_WORKER_ENV when the worker renders a range: the line number it stops before. */
export const BATCH_WORKER_END_ENV = 'NODE_VLLM_CPP_BATCH_WORKER_END';

/** A case line: its 0-based line number and its byte range in the input. */
export interface BatchLine {
  n: number;
  start: number;
  end: number;
}

/** How the worker processes are started (the same for every range). */
export interface WorkerCommand {
  /** node's own arguments, the CLI entry and `batch FILE [...]`. */
  args: string[];
  cwd: string;
  /** The input, written to each worker's standard input (batch reading `-`); undefined for a file. */
  stdin: Uint8Array | undefined;
}

/** Where one range's output goes. */
export interface RangeSink {
  /** Whole result lines already encoded, each with its newline (the sink may keep `b`). */
  bytes: (b: Uint8Array) => void;
  /** A result line written here (the newline is added). */
  line: (s: string) => void;
  /** What a worker printed on its standard error (called after that worker ends). */
  stderr: (s: string) => void;
}

/** The id of a case line, for the line reporting that its worker died. */
function caseId(bytes: Uint8Array): unknown {
  try {
    const c = parsePyJson(decodeUtf8Strict(bytes));
    if (c === null || typeof c !== 'object' || Array.isArray(c)) return null;
    return Object.prototype.hasOwnProperty.call(c, 'id') ? ((c as Record<string, unknown>)['id'] ?? null) : null;
  } catch {
    return null;
  }
}

/**
 * A batch result line (no newline): the case's `id` as Python's json.dumps
 * writes what the case holds (big integers and `1.0` as they were), then
 * `ok` and the prompt or the error.
 */
export function resultLine(id: unknown, outcome: { prompt: string } | { error: string }): string {
  return 'prompt' in outcome ? `${promptLineHead(id)}${JSON.stringify(outcome.prompt)}}` : `${resultHead(id)}false,"error":${JSON.stringify(outcome.error)}}`;
}

function resultHead(id: unknown): string {
  return `{"id":${serializePyJson(id ?? null, { compact: true })},"ok":`;
}

/** A prompt's result line up to the prompt's JSON string (the line then ends with `}`). */
function promptLineHead(id: unknown): string {
  return `${resultHead(id)}true,"prompt":`;
}

/**
 * `prefix`, then resultLine(id, outcome) and a newline, as UTF-8 bytes. A
 * prompt is quoted by `quote` where given (the addon's jsonQuoteUtf8: the
 * same bytes, without the strings JSON.stringify and the concatenation
 * would make on the way, which for a long prompt cost as much as a tenth of
 * its render).
 */
export function resultLineBytes(
  prefix: string,
  id: unknown,
  outcome: { prompt: string } | { error: string },
  quote?: (before: string, value: string, after: string) => Uint8Array,
): Uint8Array {
  if (quote !== undefined && 'prompt' in outcome) {
    try {
      return quote(`${prefix}${promptLineHead(id)}`, outcome.prompt, '}\n');
    } catch {
      // (no memory for the addon's copy: the strings' way below)
    }
  }
  return Buffer.from(`${prefix}${resultLine(id, outcome)}\n`, 'utf8');
}

/**
 * The worker's standard output: a file (unlinked at once where the system
 * allows), so that each result line the worker writes costs it one write and
 * nothing here until the worker is done, and so that what it wrote before
 * dying is all there.
 */
function workerOutputFile(): { fd: number; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'node-vllm-cpp-batch-'));
  const file = path.join(dir, 'results');
  const fd = fs.openSync(file, 'w+', 0o600);
  let removed = false;
  try {
    fs.unlinkSync(file);
    fs.rmdirSync(dir);
    removed = true;
  } catch {
    // removed below, once closed
  }
  return {
    fd,
    cleanup: () => {
      fs.closeSync(fd);
      if (!removed) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * @internal Forwards the results of `lines` that `fd` holds from `position` on: each
 * complete "<line number>\t<result>\n" line whose number is that of
 * `lines[next]` or a later one goes to `sink` as its result bytes, and
 * `next` moves past it (a line for an earlier number, or without a number,
 * is skipped). A last line without its newline is what a worker killed in
 * the middle of a write left: it is dropped. The file is read in chunks,
 * each into a fresh buffer, and a chunk's results are moved to its front in
 * place (each drops its prefix, so none overtakes what is still to be
 * read): one `sink.bytes` per chunk instead of one per line.
 */
export function forwardResults(fd: number, position: number, lines: readonly BatchLine[], next: number, sink: RangeSink): { position: number; next: number } {
  let pending: Buffer = Buffer.alloc(0);
  for (;;) {
    const chunk = Buffer.allocUnsafe(1 << 20);
    const got = fs.readSync(fd, chunk, 0, chunk.length, position);
    if (got === 0) break;
    position += got;
    const data: Buffer = pending.length ? Buffer.concat([pending, chunk.subarray(0, got)]) : chunk.subarray(0, got);
    let start = 0;
    let out = 0;
    for (let nl = data.indexOf(0x0a); nl >= 0; nl = data.indexOf(0x0a, start)) {
      const at = resultLineNumber(data, start, nl);
      if (at !== undefined) {
        while (next < lines.length && lines[next]!.n < at.n) next++;
        if (next < lines.length && lines[next]!.n === at.n) {
          data.copyWithin(out, at.tab + 1, nl + 1);
          out += nl - at.tab;
          next++;
        }
      }
      start = nl + 1;
    }
    pending = Buffer.from(data.subarray(start));
    if (out > 0) sink.bytes(data.subarray(0, out));
  }
  return { position, next };
}

/** The line number before the tab of a worker's result line (`data[start..nl]`), and where the tab is; undefined when it has none. */
function resultLineNumber(data: Buffer, start: number, nl: number): { n: number; tab: number } | undefined {
  let n = 0;
  let i = start;
  for (; i < nl; i++) {
    const b = data[i]!;
    if (b === 0x09) break;
    if (b < 0x30 || b > 0x39) return undefined;
    n = n * 10 + (b - 0x30);
  }
  return i === start || i >= nl ? undefined : { n, tab: i };
}

/**
 * Renders `lines` (a contiguous range of the input's case lines) in worker
 * processes, one after another: each worker goes on from the first case
 * without a result, up to the end of the range.
 */
export function superviseRange(cmd: WorkerCommand, input: Uint8Array, lines: readonly BatchLine[], last: boolean, sink: RangeSink): void {
  if (lines.length === 0) return;
  // (the last range runs to the end of the input: its workers need no end)
  const endEnv = last ? {} : { [BATCH_WORKER_END_ENV]: String(lines[lines.length - 1]!.n + 1) };
  const results = workerOutputFile();
  try {
    let next = 0; // index into `lines` of the first case without a result
    let position = 0; // how far the results file has been read
    while (next < lines.length) {
      const r = spawnSync(process.execPath, cmd.args, {
        cwd: cmd.cwd,
        env: { ...process.env, [BATCH_WORKER_ENV]: String(lines[next]!.n), ...endEnv },
        input: cmd.stdin,
        stdio: [cmd.stdin !== undefined ? 'pipe' : 'ignore', results.fd, 'pipe'],
        maxBuffer: 1 << 30,
        encoding: 'utf8',
      });
      if (r.error) throw r.error;
      if (r.stderr) sink.stderr(r.stderr);
      ({ position, next } = forwardResults(results.fd, position, lines, next, sink));
      if (r.status === 0 && r.signal === null) break;
      if (next >= lines.length) break;
      const how = r.signal !== null ? `was killed by ${r.signal}` : `exited with code ${r.status}`;
      const error = `BackendError: the batch worker process ${how} while rendering this case`;
      sink.line(resultLine(caseId(input.subarray(lines[next]!.start, lines[next]!.end)), { error }));
      next++;
    }
  } finally {
    results.cleanup();
  }
}

/**
 * The least a worker process of a batch split over several is given: its
 * start (Node, the addon, the templates) and its JIT warm-up cost as much as
 * the first thousand or so small cases (measured in docs/performance.md).
 */
export const BATCH_RANGE_MIN = { cases: 256, bytes: 4 << 20 };

/**
 * Case lines split into at most `jobs` contiguous ranges of about the same
 * number of bytes, each of at least `min.cases` lines and `min.bytes` bytes
 * (so a small batch gets one range: a worker's start and JIT warm-up cost as
 * much as many cases).
 */
export function splitRanges(lines: readonly BatchLine[], jobs: number, min: { cases: number; bytes: number }): BatchLine[][] {
  let total = 0;
  for (const l of lines) total += l.end - l.start + 1;
  const count = Math.max(1, Math.min(jobs, Math.floor(lines.length / Math.max(1, min.cases)), Math.floor(total / Math.max(1, min.bytes))));
  if (count === 1) return [lines.slice()];
  const out: BatchLine[][] = [];
  let i = 0;
  let seen = 0;
  for (let k = 1; k <= count; k++) {
    const goal = (total * k) / count;
    const range: BatchLine[] = [];
    // every range keeps at least one line, and leaves one for each range after it
    while (i < lines.length && (range.length === 0 || k === count || (seen < goal && lines.length - i > count - k))) {
      const l = lines[i++]!;
      seen += l.end - l.start + 1;
      range.push(l);
    }
    out.push(range);
  }
  return out;
}

/** What a range's worker thread is given. */
export interface RangeJob {
  cmd: WorkerCommand;
  input: Uint8Array;
  lines: BatchLine[];
  last: boolean;
  port: MessagePort;
  /** Int32 slot set to 1 (and notified) when the thread is done. */
  done: SharedArrayBuffer;
}

/** What a range's worker thread sends back: its output in order, bytes and stderr text. */
type RangeOutput = Array<{ bytes: Uint8Array } | { stderr: string }> | { error: string };

/** The compiled module next to this one, or (when running from src/ under a TS loader) the one in dist/. */
function threadScript(): string {
  for (const p of [path.join(__dirname, 'batch-workers.js'), path.join(__dirname, '..', '..', 'dist', 'cjs', 'cli', 'batch-workers.js')]) {
    if (fs.existsSync(p)) return p;
  }
  throw new Error('batch: the compiled batch-workers module was not found (run npm run build:ts)');
}

/** A range's worker thread: supervises the range and sends its output back, then says it is done. */
export function rangeThreadMain(job: RangeJob): void {
  const flag = new Int32Array(job.done);
  let output: RangeOutput = [];
  try {
    const parts: Array<{ bytes: Uint8Array } | { stderr: string }> = [];
    superviseRange(job.cmd, job.input, job.lines, job.last, {
      bytes: (b) => parts.push({ bytes: Buffer.from(b) }),
      line: (s) => parts.push({ bytes: Buffer.from(s + '\n', 'utf8') }),
      stderr: (s) => parts.push({ stderr: s }),
    });
    output = parts;
  } catch (e) {
    output = { error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  } finally {
    job.port.postMessage(output);
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
  }
}

/**
 * The worker thread's code: runs rangeThreadMain of the compiled module, and
 * says it is done even when that module fails to load.
 */
function threadStub(script: string): string {
  return `const { workerData } = require('node:worker_threads');
try {
  require(${JSON.stringify(script)}).rangeThreadMain(workerData);
} catch (e) {
  try { workerData.port.postMessage({ error: String((e && e.stack) || e) }); } catch {}
  const flag = new Int32Array(workerData.done);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}`;
}

/**
 * Renders every range, the first on this thread (its output going to `sink`
 * as it comes) and each other one on a worker thread of its own; the other
 * ranges' output goes to `sink` after it, in order. Returns when all are done.
 */
export function superviseRanges(cmd: WorkerCommand, input: Uint8Array, ranges: BatchLine[][], sink: RangeSink): void {
  const others: Array<{ port: MessagePort; done: Int32Array; thread: Worker }> = [];
  let failure: string | undefined;
  try {
    const script = ranges.length > 1 ? threadScript() : '';
    ranges.slice(1).forEach((lines, k) => {
      const { port1, port2 } = new MessageChannel();
      const done = new SharedArrayBuffer(4);
      const job: RangeJob = { cmd, input, lines, last: k + 1 === ranges.length - 1, port: port2, done };
      const thread = new Worker(threadStub(script), { eval: true, workerData: job, transferList: [port2] });
      others.push({ port: port1, done: new Int32Array(done), thread });
    });
    superviseRange(cmd, input, ranges[0]!, ranges.length === 1, sink);
  } catch (e) {
    // (the other ranges are still waited for below; their output is not given)
    failure = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    throw e;
  } finally {
    for (const o of others) {
      // (the thread posts its output before it sets the flag)
      while (Atomics.load(o.done, 0) === 0) Atomics.wait(o.done, 0, 0, 1000);
      const got = receiveMessageOnPort(o.port)?.message as RangeOutput | undefined;
      o.port.close();
      void o.thread.terminate();
      if (got === undefined || !Array.isArray(got)) {
        failure ??= got === undefined ? 'a batch range thread ended without its results' : got.error;
        continue;
      }
      if (failure !== undefined) continue;
      for (const part of got) {
        if ('bytes' in part) sink.bytes(part.bytes);
        else sink.stderr(part.stderr);
      }
    }
  }
  if (failure !== undefined) throw new Error(failure);
}
