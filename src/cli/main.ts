/**
 * The node-vllm-cpp command line. Option names follow `vllm serve` where vLLM
 * has one (`--chat-template`, `--tool-call-parser`, ...); the older spellings
 * (`--template`, `--parser`) stay as aliases.
 *
 *   render --chat-template PATH --request REQUEST.json|- [options]   print the prompt
 *   batch CASES.jsonl [--backend B] [--jobs N | --in-process]  one JSON result line per case
 *   example [--chat-template PATH] [--json]                    render the bundled tool-loop conversation
 *   parse --tool-call-parser NAME [--tools tools.json] [--stream --chunk-size N] < output.txt
 *   golden report [--cases DIR --expected DIR --templates DIR]  golden matches per template and shape
 *   golden roundtrip [--templates DIR]                          render -> parse round trip per template/parser pair
 *
 * Exit status: 0 success, 2 usage errors (unknown command or option, missing
 * or invalid option value), 1 everything else (unreadable files, render
 * errors, golden runs that compared nothing, unexplained round-trip losses).
 *
 * The batch and parse output contracts are used by tooling outside the
 * package: keep them stable.
 */
import { isUtf8 } from 'node:buffer';
import * as fs from 'node:fs';
import { availableParallelism } from 'node:os';
import * as path from 'node:path';
import { skipWs, takeMembers } from '../protocol/json-spans';
import { parsePyJson } from '../protocol/pyjson';
import { decodeUtf8Strict, Utf8DecodeError } from '../protocol/utf8';
import { renderChat, renderChatPrompt, type Backend, type ChatRequestInput, type RenderChatOptions } from '../render';
import { loadEmbedded, packageRoot } from '../native/loader';
import { compileTemplate, type CompiledTemplate } from '../native/embedded';
import { loadTemplateFromPath } from '../templates/load';
import { PARSE_USAGE, runParse } from './parse';
import { cmdServe, SERVE_USAGE } from './serve';
import { decodeJson, InputFileError, parseArgs, readBytes, readInput, readToolsFile, str, UsageError } from './args';
import { BATCH_RANGE_MIN, BATCH_WORKER_END_ENV, BATCH_WORKER_ENV, resultLine, resultLineBytes, splitRanges, superviseRanges, type BatchLine } from './batch-workers';
import { goldenReport } from '../golden/report';
import { goldenDirs } from '../golden/suite';
import { roundTripPairs, roundTripReport } from '../golden/roundtrip';

const RENDER_USAGE = `usage: node-vllm-cpp render --chat-template PATH --request REQUEST.json [options]

  --chat-template PATH       a chat_template.jinja, tokenizer_config.json, chat_template.json
                             or a model directory (alias --template)
  --request FILE             the Chat Completions request body; - reads standard input
  --tools FILE               tools for the request (a JSON list, or an object with "tools")
  --chat-template-content-format auto|string|openai   (default auto, as vLLM)
  --chat-template-kwargs JSON           the request's chat_template_kwargs (replaces the file's)
  --default-chat-template-kwargs JSON   server-side defaults; the request's kwargs win
  --continue-final-message   continue the last assistant message (no generation prompt)
  --no-generation-prompt     add_generation_prompt = false
  --bos-token T, --eos-token T          special tokens (default: tokenizer_config.json beside the template)
  --now ISO8601              clock for strftime_now
  --policy strict|lenient    invalid tool-call arguments: reject (pinned vLLM) or coerce to {}
  --backend embedded|vllm.cpp
  --json                     print {prompt, warnings, content_format, template_sha256}`;

const BATCH_USAGE = `usage: node-vllm-cpp batch CASES.jsonl [--backend embedded|vllm.cpp] [--jobs N | --in-process]

One case per line: {"id", "template": PATH, "messages", "tools"?, "add_generation_prompt"?,
"bos_token"?, "eos_token"?, "now"?, "kwargs"?}; prints one {"id", "ok", "prompt"|"error"} line per case,
in input order.
Cases render in worker processes: one that crashes its worker gets its own "ok": false line
and the next cases go on in a fresh worker.
  --jobs N       worker processes at once, each rendering a contiguous range of the cases
                 (default: the CPUs available; one per 256 cases and 4 MiB of input at most)
  --in-process   render in this process instead`;

const EXAMPLE_USAGE = `usage: node-vllm-cpp example [--chat-template PATH] [--now ISO8601] [--json]

Renders the bundled examples/tool-loop.json through examples/chat_template.jinja
(or the template or model directory given).`;

const GOLDEN_USAGE = `usage: node-vllm-cpp golden report [--backend embedded|vllm.cpp] [--cases DIR] [--expected DIR] [--templates DIR] [--json]
       node-vllm-cpp golden roundtrip [--templates DIR]

The golden corpus (test/golden/cases, test/golden/expected) lives in the
source repository; in a checkout they are the defaults. --templates defaults
to $NODE_VLLM_CPP_TEMPLATES or ../shared/templates. report exits 1 when a
directory is missing or nothing was compared; roundtrip exits 1 also on an
unexplained loss.`;

const USAGE = `usage:
  node-vllm-cpp render --chat-template PATH --request REQUEST.json|- [--tools FILE] [--bos-token T] [--eos-token T]
                       [--chat-template-content-format F] [--chat-template-kwargs JSON] [--default-chat-template-kwargs JSON]
                       [--continue-final-message] [--no-generation-prompt] [--now ISO8601] [--policy strict|lenient]
                       [--backend embedded|vllm.cpp] [--json]
  node-vllm-cpp batch CASES.jsonl [--backend embedded|vllm.cpp] [--jobs N | --in-process]
  node-vllm-cpp example [--chat-template PATH] [--json]
  node-vllm-cpp parse --tool-call-parser NAME [--tools tools.json] [--stream --chunk-size N] < output.txt
  node-vllm-cpp golden report [--backend embedded|vllm.cpp] [--cases DIR] [--expected DIR] [--templates DIR]
  node-vllm-cpp golden roundtrip [--templates DIR]
  node-vllm-cpp serve --model DIR [--library LIBVLLM] [options]   OpenAI-compatible server (serve --help)
  node-vllm-cpp COMMAND --help

PATH is a chat_template.jinja file, a tokenizer_config.json or a model directory.
Exit status: 0 ok, 2 usage error, 1 any other failure.`;

const COMMAND_USAGE: Record<string, string> = {
  render: RENDER_USAGE,
  batch: BATCH_USAGE,
  example: EXAMPLE_USAGE,
  parse: PARSE_USAGE,
  golden: GOLDEN_USAGE,
  serve: SERVE_USAGE,
};

export interface CliIO {
  stdout: (s: string) => void;
  /**
   * Standard output for text that is already UTF-8 bytes (batch passes its
   * worker's result lines through as they are); when absent, such bytes are
   * decoded and given to `stdout`. Interleaves with `stdout` in call order.
   */
  stdoutBytes?: (b: Uint8Array) => void;
  stderr: (s: string) => void;
  /** Standard input: raw bytes (decoded as strict UTF-8 here), or text already decoded. */
  readStdin: () => string | Uint8Array;
}

function errorLine(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return `Error: ${String(e)}`;
}

function backendOf(v: string | undefined): Backend | undefined {
  if (v === undefined) return undefined;
  if (v !== 'embedded' && v !== 'vllm.cpp') throw new UsageError(`--backend must be embedded or vllm.cpp, got ${v}`);
  return v;
}

function policyOf(v: string | undefined): 'strict' | 'lenient' | undefined {
  if (v === undefined) return undefined;
  if (v !== 'strict' && v !== 'lenient') throw new UsageError(`--policy must be strict or lenient, got ${v}`);
  return v;
}

function contentFormatOf(v: string | undefined): RenderChatOptions['contentFormat'] {
  if (v === undefined) return undefined;
  if (v !== 'auto' && v !== 'string' && v !== 'openai') throw new UsageError(`--chat-template-content-format must be auto, string or openai, got ${v}`);
  return v;
}

/** A JSON object given inline on the command line. */
function kwargsOf(v: string | undefined, flag: string): Record<string, unknown> | undefined {
  if (v === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = parsePyJson(v);
  } catch (e) {
    throw new UsageError(`--${flag} must be a JSON object: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError(`--${flag} must be a JSON object`);
  return parsed as Record<string, unknown>;
}

const TEMPLATE_ALIASES = { template: 'chat-template' } as const;

function cmdRender(argv: string[], io: CliIO): number {
  const a = parseArgs(
    argv,
    new Set([
      'chat-template', 'request', 'tools', 'bos-token', 'eos-token', 'now', 'policy', 'backend',
      'chat-template-content-format', 'chat-template-kwargs', 'default-chat-template-kwargs',
    ]),
    new Set(['no-generation-prompt', 'continue-final-message', 'json']),
    TEMPLATE_ALIASES,
  );
  if (a.help) {
    io.stdout(RENDER_USAGE + '\n');
    return 0;
  }
  if (a.positionals.length) throw new UsageError(`render: unexpected argument ${JSON.stringify(a.positionals[0])}`);
  const template = str(a, 'chat-template');
  const requestPath = str(a, 'request');
  if (!template || !requestPath) throw new UsageError('render needs --chat-template PATH and --request REQUEST.json');
  const options: RenderChatOptions = {
    templatePath: template,
    bosToken: str(a, 'bos-token'),
    eosToken: str(a, 'eos-token'),
    now: str(a, 'now'),
    policy: policyOf(str(a, 'policy')),
    backend: backendOf(str(a, 'backend')),
    contentFormat: contentFormatOf(str(a, 'chat-template-content-format')),
    chatTemplateKwargs: kwargsOf(str(a, 'default-chat-template-kwargs'), 'default-chat-template-kwargs'),
  };
  const requestKwargs = kwargsOf(str(a, 'chat-template-kwargs'), 'chat-template-kwargs');
  const toolsFile = str(a, 'tools');
  if (toolsFile === '-' && requestPath === '-') throw new UsageError('render: --request and --tools cannot both read standard input');
  const requestText = readInput(requestPath, '--request', io.readStdin);
  // The text itself is rendered (full numeric fidelity) unless an option changes the request.
  let request: ChatRequestInput = requestText;
  if (requestKwargs || toolsFile) {
    const body = decodeJson(requestText, `--request ${requestPath}`);
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new InputFileError(`--request ${requestPath}: a request must be a JSON object`);
    const edited: Record<string, unknown> = { ...(body as Record<string, unknown>) };
    if (toolsFile) edited.tools = readToolsFile(toolsFile, io.readStdin);
    if (requestKwargs) edited.chat_template_kwargs = requestKwargs;
    request = edited as ChatRequestInput;
  }
  if (a.flags.has('no-generation-prompt')) options.addGenerationPrompt = false;
  if (a.flags.has('continue-final-message')) {
    options.continueFinalMessage = true;
    options.addGenerationPrompt = false;
  }
  const result = renderChat(request, options);
  if (a.flags.has('json')) {
    io.stdout(JSON.stringify({ prompt: result.prompt, warnings: result.warnings, content_format: result.contentFormat, template_sha256: result.templateHash }) + '\n');
  } else {
    for (const w of result.warnings) io.stderr(`warning: ${w}\n`);
    io.stdout(result.prompt);
  }
  return 0;
}

type Lossless = Record<string, unknown>;

function field(obj: Lossless, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined;
}

function optString(obj: Lossless, key: string): string | undefined {
  const v = field(obj, key);
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new TypeError(`"${key}" must be a string`);
  return v;
}

/**
 * Templates loaded and compiled once per batch run, keyed by the case's
 * template string and whether it has tools (a tokenizer config listing
 * templates picks `tool_use` for those): the files do not change during a
 * run. The key is looked up before anything else is done with the string,
 * so a case whose template was seen before costs one Map lookup. A path that
 * fails to load or compile is remembered as such and its cases go through
 * renderChat's own loading, so each of them fails with the same error line as
 * before, in the same order against request errors.
 */
interface BatchTemplate {
  /** The template string resolved against the input's directory. */
  templatePath: string;
  /** Undefined when loading or compiling failed. */
  compiled: CompiledTemplate | undefined;
  specialTokens: Record<string, string> | undefined;
}

type BatchTemplates = Map<string, BatchTemplate>;

function batchTemplate(run: BatchRun, template: string, hasTools: boolean): BatchTemplate {
  const key = (hasTools ? '1' : '0') + template;
  let hit = run.templates.get(key);
  if (hit === undefined) {
    const templatePath = path.resolve(run.baseDir, template);
    hit = { templatePath, compiled: undefined, specialTokens: undefined };
    try {
      const loaded = loadTemplateFromPath(templatePath, { hasTools });
      hit.compiled = compileTemplate(loaded.source);
      hit.specialTokens = loaded.specialTokens;
    } catch {
      // left undefined: the cases of this template go through renderChat's own loading
    }
    run.templates.set(key, hit);
  }
  return hit;
}

/** One run's state: the input, base directory, backend, template cache and whether the whole input is valid UTF-8. */
interface BatchRun {
  input: Buffer;
  baseDir: string;
  backend: Backend | undefined;
  templates: BatchTemplates;
  /** The whole input is UTF-8, so every line is (0x0A never occurs inside a sequence). */
  inputIsUtf8: boolean;
  /** The rest of the last line rendered from its raw text, and the options it gave (runRawCase). */
  lastRest?: { rest: string; hasTools: boolean; options: RenderChatOptions };
}

/** A case's render options (validated by renderChat, like any request; one options shape for every case). */
function caseOptions(c: Lossless, run: BatchRun, hasTools: boolean): RenderChatOptions {
  const template = optString(c, 'template');
  if (!template) throw new TypeError('"template" (a path) is required');
  const agp = field(c, 'add_generation_prompt');
  const kwargs = field(c, 'kwargs');
  const t = batchTemplate(run, template, hasTools);
  return {
    template: t.compiled,
    templatePath: t.compiled === undefined ? t.templatePath : undefined,
    specialTokens: t.specialTokens,
    bosToken: optString(c, 'bos_token'),
    eosToken: optString(c, 'eos_token'),
    now: optString(c, 'now'),
    addGenerationPrompt: agp === undefined ? true : Boolean(agp),
    chatTemplateKwargs: kwargs === undefined || kwargs === null ? undefined : (kwargs as Record<string, unknown>),
    backend: run.backend,
  };
}

/**
 * A case rendered from its raw text: its `messages` and `tools` go to
 * renderChat as request text, as a server's raw request does (decoded once,
 * natively), its `id` is decoded on its own, and the rest of the line is
 * decoded here, once for a run of lines that share it. Undefined
 * whenever that does not simply succeed (the line or the rest does not
 * decode, `messages` or `tools` is not a single array, the template did not
 * load, the render failed): the case then takes the decoded-object path,
 * which gives its result, error line included, as before. A success here is
 * that path's success: when the rest and the request text decode, so does
 * the line (json-spans takeMembers), and the request text path renders
 * what the object path renders.
 */
function runRawCase(raw: string, run: BatchRun): CaseResult | undefined {
  // (scanned natively at any length: warm, the addon's scan of a line costs
  // what the JS one does, and a batch process starts cold, where the JS scan
  // runs interpreted over the first thousand lines or so)
  const taken = takeMembers(raw, ['messages', 'tools', 'id'], 0);
  const messages = taken?.spans.get('messages');
  if (taken === undefined || messages === undefined || raw.charCodeAt(messages[0]) !== 0x5b) return undefined;
  const tools = taken.spans.get('tools');
  if (tools !== undefined && raw.charCodeAt(tools[0]) !== 0x5b) return undefined;
  const hasTools = tools !== undefined && raw.charCodeAt(skipWs(raw, tools[0] + 1)) !== 0x5d;
  // the rest (the line less its messages, tools and id) is mostly the same
  // from one case to the next: the same template and settings
  let options: RenderChatOptions;
  const kept = run.lastRest;
  if (kept !== undefined && kept.hasTools === hasTools && kept.rest === taken.rest) {
    options = kept.options;
  } else {
    let c: Lossless;
    try {
      c = parsePyJson(taken.rest) as Lossless;
    } catch {
      return undefined;
    }
    if (c === null || typeof c !== 'object' || Array.isArray(c)) return undefined;
    try {
      options = caseOptions(c, run, hasTools);
    } catch {
      return undefined;
    }
    if (options.template === undefined) return undefined;
    run.lastRest = { rest: taken.rest, hasTools, options };
  }
  let id: unknown;
  const idSpan = taken.spans.get('id');
  try {
    if (idSpan !== undefined) id = parsePyJson(raw.slice(idSpan[0], idSpan[1]));
    const request = `{"messages":${raw.slice(messages[0], messages[1])}${tools === undefined ? '' : `,"tools":${raw.slice(tools[0], tools[1])}`}}`;
    return { id, outcome: { prompt: renderChatPrompt(request, options) } };
  } catch {
    return undefined;
  }
}

/**
 * @internal A case line rendered from its raw text alone (templates resolved
 * against `baseDir`): its result line, or undefined where the batch takes
 * the decoded-case path for it.
 */
export function renderRawCase(raw: string, baseDir: string): string | undefined {
  const r = runRawCase(raw, { input: Buffer.alloc(0), baseDir, backend: undefined, templates: new Map(), inputIsUtf8: true });
  return r === undefined ? undefined : resultLine(r.id, r.outcome);
}

/** A case's `id` (as the case holds it) and its prompt or error: what its result line says. */
interface CaseResult {
  id: unknown;
  outcome: { prompt: string } | { error: string };
}

/**
 * The addon's JSON quoting of a prompt into bytes, where the addon loads and
 * has it (otherwise each case's own render gives its error line, as before).
 */
function promptQuoter(): ((before: string, value: string, after: string) => Uint8Array) | undefined {
  try {
    const quote = loadEmbedded().jsonQuoteUtf8;
    return typeof quote === 'function' ? quote : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One batch case (line `n` of the file, 0-based) -> what its result line
 * says. Every failure, including a line that is not UTF-8 or not JSON, is
 * that case's own `ok: false` line.
 */
function runBatchCase(line: BatchLine, run: BatchRun): CaseResult {
  const n = line.n;
  let id: unknown = null;
  try {
    let raw: string;
    if (run.inputIsUtf8) {
      raw = run.input.toString('utf8', line.start, line.end);
    } else {
      try {
        raw = decodeUtf8Strict(run.input.subarray(line.start, line.end));
      } catch (e) {
        if (e instanceof Utf8DecodeError) throw new Utf8DecodeError(`line ${n + 1}: ${e.message}`, e.start, e.end, e.reason);
        throw e;
      }
    }
    const fast = runRawCase(raw, run);
    if (fast !== undefined) return fast;
    const c = parsePyJson(raw) as Lossless;
    if (c === null || typeof c !== 'object' || Array.isArray(c)) throw new TypeError(`line ${n + 1}: a case must be a JSON object`);
    id = field(c, 'id') ?? null;
    const tools = field(c, 'tools');
    const request: Lossless = tools === undefined ? { messages: field(c, 'messages') } : { messages: field(c, 'messages'), tools };
    const options = caseOptions(c, run, Array.isArray(tools) && tools.length > 0);
    return { id, outcome: { prompt: renderChatPrompt(request as ChatRequestInput, options) } };
  } catch (e) {
    return { id, outcome: { error: errorLine(e) } };
  }
}

/** Lines as byte ranges (a 0x0A byte never occurs inside a UTF-8 sequence); blank lines dropped, numbers kept. */
function batchLines(buf: Buffer): BatchLine[] {
  const out: BatchLine[] = [];
  let start = 0;
  for (let n = 0; start <= buf.length; n++) {
    let end = buf.indexOf(0x0a, start);
    if (end < 0) end = buf.length;
    // blank: only JSON whitespace (what `raw.trim()` dropped before)
    let blank = true;
    for (let i = start; i < end && blank; i++) {
      const b = buf[i]!;
      blank = b === 0x20 || b === 0x09 || b === 0x0d;
    }
    if (!blank) out.push({ n, start, end });
    start = end + 1;
  }
  return out;
}

/** The batch input as bytes, so each line is decoded (strictly) on its own; `-` is standard input. */
function batchInput(file: string, readStdin: () => string | Uint8Array): Buffer {
  if (file === '-') {
    const input = readStdin();
    return typeof input === 'string' ? Buffer.from(input, 'utf8') : Buffer.from(input);
  }
  return readBytes(file, 'batch');
}

/** Short result lines are gathered into writes of about this many bytes; a longer line is written on its own. */
const BATCH_CHUNK = 1 << 16;

interface ChunkedWriter {
  /** A result line (the newline is added). */
  line: (s: string) => void;
  /** Whole result lines already encoded, each with its newline. */
  bytes: (b: Uint8Array) => void;
  flush: () => void;
}

/**
 * Writes result lines in chunks instead of a write per line (joining long
 * lines would only copy them once more). Lines are gathered as bytes, so
 * lines that arrive as bytes are never decoded when `io.stdoutBytes` takes
 * them; without it, each chunk (whole lines of UTF-8) is decoded for
 * `io.stdout`.
 */
function chunkedWriter(io: CliIO): ChunkedWriter {
  const emit = io.stdoutBytes ?? ((b: Uint8Array) => io.stdout(Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8')));
  let parts: Uint8Array[] = [];
  let size = 0;
  const flush = () => {
    if (size) emit(parts.length === 1 ? parts[0]! : Buffer.concat(parts, size));
    parts = [];
    size = 0;
  };
  const bytes = (b: Uint8Array) => {
    if (b.byteLength >= BATCH_CHUNK) {
      flush();
      emit(b);
      return;
    }
    parts.push(b);
    size += b.byteLength;
    if (size >= BATCH_CHUNK) flush();
  };
  return { line: (s) => bytes(Buffer.from(s + '\n', 'utf8')), bytes, flush };
}

/** Writes all of `bytes` to `fd`: one write unless the system takes less. */
function writeAll(fd: number, bytes: Uint8Array): void {
  for (let off = 0; off < bytes.length; ) off += fs.writeSync(fd, bytes, off);
}

/**
 * The worker runs under this process's Node options (--cpu-prof, heap
 * limits, ...), less the inspector's, whose port this process holds.
 */
function workerNodeArgs(execArgv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const x = execArgv[i]!;
    if (/^--(inspect|debug)/.test(x)) {
      if (/^--(inspect|debug)-port$/.test(x)) i++; // its value follows
      continue;
    }
    out.push(x);
  }
  return out;
}

function jobsOf(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!/^[0-9]+$/.test(v) || !Number.isSafeInteger(n) || n < 1) throw new UsageError(`--jobs must be a positive integer, got ${v}`);
  return n;
}

/**
 * Cases are rendered in a worker process, so a native crash (or anything
 * else that kills the process) costs only the case it happened in: the
 * worker's results so far are kept, the case in flight gets an `ok: false`
 * line naming how the worker died, and a fresh worker goes on with the next
 * case. `--in-process` renders in this process instead.
 *
 * A large batch is split into contiguous ranges rendered by worker processes
 * at once (`--jobs`, default the CPUs available; batch-workers), its output
 * in line order as with one.
 *
 * Each template is loaded and compiled once per process; the worker writes
 * each result as soon as it has it (one write, to a file), so that its death
 * loses nothing already rendered, and the lines printed here go out in
 * chunks.
 */
function cmdBatch(argv: string[], io: CliIO): number {
  const a = parseArgs(argv, new Set(['backend', 'jobs']), new Set(['in-process']));
  if (a.help) {
    io.stdout(BATCH_USAGE + '\n');
    return 0;
  }
  const file = a.positionals[0];
  if (!file) throw new UsageError('batch needs a CASES.jsonl file');
  if (a.positionals.length > 1) throw new UsageError(`batch: unexpected argument ${JSON.stringify(a.positionals[1])}`);
  const backend = backendOf(str(a, 'backend'));
  const jobs = jobsOf(str(a, 'jobs'));
  if (jobs !== undefined && a.flags.has('in-process')) throw new UsageError('batch: --jobs and --in-process exclude each other (--in-process renders on this thread)');
  const baseDir = file === '-' ? process.cwd() : path.dirname(path.resolve(file));
  const input = batchInput(file, io.readStdin);
  const lines = batchLines(input);
  const workerFrom = process.env[BATCH_WORKER_ENV];
  const run = (): BatchRun => ({ input, baseDir, backend, templates: new Map(), inputIsUtf8: isUtf8(input) });
  if (workerFrom !== undefined) {
    // worker: "<line number>\t<result>" per case of its range (from the
    // given line on, up to the end line when given), each written before the
    // next case starts, straight to the results file the parent gave it as
    // file descriptor 1 (one write(2), no stream)
    const from = Number(workerFrom);
    const endEnv = process.env[BATCH_WORKER_END_ENV];
    const end = endEnv === undefined ? Infinity : Number(endEnv);
    const state = run();
    const quote = promptQuoter();
    for (const line of lines) {
      if (line.n < from || line.n >= end) continue;
      const r = runBatchCase(line, state);
      writeAll(1, resultLineBytes(`${line.n}\t`, r.id, r.outcome, quote));
    }
    return 0;
  }
  const out = chunkedWriter(io);
  if (a.flags.has('in-process')) {
    const state = run();
    const quote = promptQuoter();
    for (const line of lines) {
      const r = runBatchCase(line, state);
      out.bytes(resultLineBytes('', r.id, r.outcome, quote));
    }
    out.flush();
    return 0;
  }
  const entry = path.join(packageRoot(), 'bin', 'node-vllm-cpp.js');
  const args = [...workerNodeArgs(process.execArgv), entry, 'batch', file === '-' ? '-' : path.resolve(file), ...(backend ? ['--backend', backend] : [])];
  const ranges = splitRanges(lines, jobs ?? availableParallelism(), BATCH_RANGE_MIN);
  const sink = {
    bytes: out.bytes,
    line: out.line,
    stderr: (s: string) => {
      out.flush();
      io.stderr(s);
    },
  };
  try {
    superviseRanges({ args, cwd: baseDir, stdin: file === '-' ? input : undefined }, input, ranges, sink);
  } finally {
    out.flush();
  }
  return 0;
}

function cmdExample(argv: string[], io: CliIO): number {
  const a = parseArgs(argv, new Set(['chat-template', 'now']), new Set(['json']), TEMPLATE_ALIASES);
  if (a.help) {
    io.stdout(EXAMPLE_USAGE + '\n');
    return 0;
  }
  if (a.positionals.length) throw new UsageError(`example: unexpected argument ${JSON.stringify(a.positionals[0])}`);
  const root = packageRoot();
  const requestText = readInput(path.join(root, 'examples', 'tool-loop.json'), 'example', io.readStdin);
  const templatePath = str(a, 'chat-template') ?? path.join(root, 'examples', 'chat_template.jinja');
  const result = renderChat(requestText, {
    templatePath,
    bosToken: '<bos>',
    eosToken: '<eos>',
    now: str(a, 'now') ?? '2026-01-15T10:30:00',
  });
  if (a.flags.has('json')) {
    io.stdout(JSON.stringify({ template: templatePath, prompt: result.prompt, messages: result.messages }, null, 2) + '\n');
  } else {
    io.stderr(`# ${path.relative(process.cwd(), templatePath) || templatePath} + examples/tool-loop.json\n`);
    io.stdout(result.prompt.endsWith('\n') ? result.prompt : result.prompt + '\n');
  }
  return 0;
}

function needDir(dir: string, flag: string, what: string): string {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    throw new InputFileError(
      `golden: ${what} directory not found: ${dir}. Give ${flag} DIR; the npm package does not ship the golden corpus (it lives in the source repository).`,
    );
  }
  return dir;
}

function cmdGolden(argv: string[], io: CliIO): number {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    io.stdout(GOLDEN_USAGE + '\n');
    return sub === undefined ? 2 : 0;
  }
  if (sub === 'roundtrip') {
    const a = parseArgs(rest, new Set(['templates']), new Set());
    if (a.help) {
      io.stdout(GOLDEN_USAGE + '\n');
      return 0;
    }
    if (a.positionals.length) throw new UsageError(`golden roundtrip: unexpected argument ${JSON.stringify(a.positionals[0])}`);
    const templates = str(a, 'templates') ?? goldenDirs().templates;
    const pairs = roundTripPairs(templates).filter((p) => fs.existsSync(p.template));
    if (pairs.length === 0) {
      throw new InputFileError(`golden roundtrip: none of the supported templates was found (looked in ${templates}); give --templates DIR. Nothing was compared.`);
    }
    const report = roundTripReport(pairs);
    io.stdout(report.text);
    return report.unexpected ? 1 : 0;
  }
  if (sub !== 'report') throw new UsageError('golden: subcommands are `report` and `roundtrip`');
  const a = parseArgs(rest, new Set(['backend', 'cases', 'expected', 'templates']), new Set(['json']));
  if (a.help) {
    io.stdout(GOLDEN_USAGE + '\n');
    return 0;
  }
  if (a.positionals.length) throw new UsageError(`golden report: unexpected argument ${JSON.stringify(a.positionals[0])}`);
  const backend = backendOf(str(a, 'backend'));
  const defaults = goldenDirs();
  const report = goldenReport({
    backend,
    casesDir: needDir(str(a, 'cases') ?? defaults.cases, '--cases', 'golden cases'),
    expectedDir: needDir(str(a, 'expected') ?? defaults.expected, '--expected', 'expected prompts'),
    templatesDir: needDir(str(a, 'templates') ?? defaults.templates, '--templates', 'templates'),
  });
  io.stdout(a.flags.has('json') ? JSON.stringify(report, null, 1) + '\n' : report.text);
  if (report.total === 0) {
    io.stderr('golden report: nothing was compared (no template in the templates directory has expected prompts for these cases)\n');
    return 1;
  }
  return 0;
}

export function main(argv: string[], io: CliIO): number {
  const [cmd, ...rest] = argv;
  try {
    switch (cmd) {
      case 'render':
        return cmdRender(rest, io);
      case 'batch':
        return cmdBatch(rest, io);
      case 'example':
        return cmdExample(rest, io);
      case 'parse': {
        const r = runParse(rest, () => readInput('-', 'parse', io.readStdin));
        io.stdout(r.stdout);
        return r.exitCode;
      }
      case 'golden':
        return cmdGolden(rest, io);
      case 'serve':
        return cmdServe(rest, io);
      case undefined:
        io.stderr(USAGE + '\n');
        return 2;
      case 'help': {
        const topic = rest[0];
        const text = topic === undefined ? USAGE : COMMAND_USAGE[topic];
        if (text === undefined) throw new UsageError(`help: unknown command ${JSON.stringify(topic)}`);
        io.stdout(text + '\n');
        return 0;
      }
      case '--help':
      case '-h':
        io.stdout(USAGE + '\n');
        return 0;
      case '--version': {
        const pkg = JSON.parse(fs.readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string };
        io.stdout(pkg.version + '\n');
        return 0;
      }
      default:
        throw new UsageError(`unknown command ${JSON.stringify(cmd)}`);
    }
  } catch (e) {
    io.stderr(errorLine(e) + '\n');
    if (e instanceof UsageError) {
      const usage = (cmd !== undefined && COMMAND_USAGE[cmd]) || USAGE;
      io.stderr(usage + '\n');
      return 2;
    }
    return 1;
  }
}
