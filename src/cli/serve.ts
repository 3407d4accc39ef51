/**
 * `node-vllm-cpp serve`: the OpenAI-compatible server. Generation runs in
 * libvllm (`--library`, or `$VLLM_CPP_LIB`), or on an OpenAI-compatible
 * completions endpoint (`--upstream URL`); rendering and tool-call parsing
 * are ours either way. Option names are `vllm serve`'s where vLLM has the
 * option.
 */
import * as path from 'node:path';
import type { ServerBackend } from '../server/types';
import { parseArgs, str, UsageError, type ParsedArgs } from './args';
import type { CliIO } from './main';

export const SERVE_USAGE = `usage: node-vllm-cpp serve --model DIR [options]

  --model DIR                        model directory (or .gguf file); its chat template and tokenizer_config.json
  --library LIBVLLM                  libvllm shared library (default $VLLM_CPP_LIB)
  --upstream URL                     generate on an OpenAI-compatible completions endpoint instead of libvllm
  --upstream-model NAME              the upstream's model name (default: the first of its /v1/models)
  --upstream-api-key KEY             key for the upstream (default $NODE_VLLM_CPP_UPSTREAM_API_KEY)
  --host HOST                        default 127.0.0.1
  --port PORT                        default 8000
  --served-model-name NAME [NAME ...]  names clients may send; responses carry the first (default: the directory name)
  --chat-template PATH               chat template file, tokenizer_config.json or model directory (default: --model)
  --chat-template-content-format auto|string|openai   (default auto)
  --default-chat-template-kwargs JSON                 server-side chat_template_kwargs; the request's win
  --tool-call-parser NAME            e.g. gemma4, hermes, qwen3_coder, deepseek_v32
  --reasoning-parser NAME            e.g. qwen3, deepseek_r1
  --enable-auto-tool-choice          accepted for vLLM compatibility (tool parsing follows --tool-call-parser)
  --api-key KEY                      require "Authorization: Bearer KEY" on /v1/* (default $VLLM_API_KEY)
  --max-concurrency N                generations running at once (default 64)
  --max-queue-len N                  requests waiting for a slot before 503 + Retry-After (default 256)
  --max-model-len N, --max-num-seqs N, --block-size N, --num-gpu-blocks-override N, --threads N
                                     engine sizing, passed to libvllm
  --max-request-body-bytes N         413 above this (default 33554432)
  --shutdown-timeout SECONDS         on SIGTERM, in-flight requests get this long before they are aborted (default 30)
  --log-level LEVEL                  fatal|error|warn|info|debug|trace|silent (default info); JSON logs on stdout

Endpoints: POST /v1/chat/completions, POST /v1/completions, GET /v1/models, GET /health, GET /metrics.`;

const VALUED = new Set([
  'model',
  'library',
  'upstream',
  'upstream-model',
  'upstream-api-key',
  'host',
  'port',
  'chat-template',
  'chat-template-content-format',
  'default-chat-template-kwargs',
  'tool-call-parser',
  'reasoning-parser',
  'api-key',
  'max-concurrency',
  'max-queue-len',
  'max-model-len',
  'max-num-seqs',
  'block-size',
  'num-gpu-blocks-override',
  'threads',
  'max-request-body-bytes',
  'shutdown-timeout',
  'log-level',
]);
const BOOLEAN = new Set(['enable-auto-tool-choice']);

export interface ServeConfig {
  model?: string;
  library?: string;
  upstream?: string;
  upstreamModel?: string;
  upstreamApiKey?: string;
  host: string;
  port: number;
  /** vLLM's `--served-model-name NAME [NAME ...]`: the names clients may send; the first is the one responses carry. */
  servedModelName?: string[];
  chatTemplate?: string;
  chatTemplateContentFormat?: 'auto' | 'string' | 'openai';
  defaultChatTemplateKwargs?: Record<string, unknown>;
  toolCallParser?: string;
  reasoningParser?: string;
  apiKey?: string;
  maxConcurrency: number;
  maxQueue: number;
  maxModelLen?: number;
  maxNumSeqs?: number;
  blockSize?: number;
  numBlocks?: number;
  threads?: number;
  bodyLimit: number;
  shutdownTimeoutMs: number;
  logLevel: string;
}

function int(a: ParsedArgs, key: string, min: number): number | undefined {
  const v = str(a, key);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < min || !Number.isSafeInteger(Number(v))) throw new UsageError(`--${key} must be an integer >= ${min}, got ${v}`);
  return Number(v);
}

const LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/** vLLM takes several names after one `--served-model-name`; they are taken out before the other options are parsed. */
function servedNames(argv: string[]): { rest: string[]; names?: string[] } {
  const i = argv.findIndex((x) => x === '--served-model-name' || x.startsWith('--served-model-name='));
  if (i < 0) return { rest: argv };
  const names: string[] = [];
  let j = i + 1;
  if (argv[i].includes('=')) names.push(argv[i].slice(argv[i].indexOf('=') + 1));
  for (; j < argv.length && !argv[j].startsWith('-'); j++) names.push(argv[j]);
  if (names.length === 0 || names.some((n) => n === '')) throw new UsageError('--served-model-name needs one or more names');
  const rest = [...argv.slice(0, i), ...argv.slice(j)];
  if (rest.some((x) => x === '--served-model-name' || x.startsWith('--served-model-name='))) throw new UsageError('--served-model-name is given twice');
  return { rest, names };
}

/** Validates the command line (no I/O). */
export function serveConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): ServeConfig {
  const { rest, names } = servedNames(argv);
  const a = parseArgs(rest, VALUED, BOOLEAN);
  if (a.positionals.length) throw new UsageError(`serve takes no positional arguments (got ${a.positionals.join(' ')})`);
  const model = str(a, 'model');
  const upstream = str(a, 'upstream');
  const chatTemplate = str(a, 'chat-template');
  if (!model && !(upstream && chatTemplate)) throw new UsageError('serve needs --model DIR (or --upstream URL with --chat-template PATH)');
  if (upstream && str(a, 'library')) throw new UsageError('--library and --upstream exclude each other');
  if (upstream) {
    let u: URL;
    try {
      u = new URL(upstream);
    } catch {
      throw new UsageError(`--upstream must be an http(s) URL, got ${upstream}`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new UsageError(`--upstream must be an http(s) URL, got ${upstream}`);
  }
  const format = str(a, 'chat-template-content-format');
  if (format !== undefined && format !== 'auto' && format !== 'string' && format !== 'openai') {
    throw new UsageError(`--chat-template-content-format must be auto, string or openai, got ${format}`);
  }
  const kwText = str(a, 'default-chat-template-kwargs');
  let kwargs: Record<string, unknown> | undefined;
  if (kwText !== undefined) {
    let v: unknown;
    try {
      v = JSON.parse(kwText);
    } catch (e) {
      throw new UsageError(`--default-chat-template-kwargs is not valid JSON: ${(e as Error).message}`);
    }
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new UsageError('--default-chat-template-kwargs must be a JSON object');
    kwargs = v as Record<string, unknown>;
  }
  const logLevel = str(a, 'log-level') ?? 'info';
  if (!LEVELS.has(logLevel)) throw new UsageError(`--log-level must be one of ${[...LEVELS].join(', ')}, got ${logLevel}`);
  const port = int(a, 'port', 0) ?? 8000;
  if (port > 65535) throw new UsageError(`--port must be <= 65535, got ${port}`);
  return {
    model,
    library: str(a, 'library'),
    upstream,
    upstreamModel: str(a, 'upstream-model'),
    upstreamApiKey: str(a, 'upstream-api-key') ?? (env.NODE_VLLM_CPP_UPSTREAM_API_KEY || undefined),
    host: str(a, 'host') ?? '127.0.0.1',
    port,
    servedModelName: names,
    chatTemplate,
    chatTemplateContentFormat: format,
    defaultChatTemplateKwargs: kwargs,
    toolCallParser: str(a, 'tool-call-parser'),
    reasoningParser: str(a, 'reasoning-parser'),
    apiKey: str(a, 'api-key') ?? (env.VLLM_API_KEY || undefined),
    maxConcurrency: int(a, 'max-concurrency', 1) ?? 64,
    maxQueue: int(a, 'max-queue-len', 0) ?? 256,
    maxModelLen: int(a, 'max-model-len', 1),
    maxNumSeqs: int(a, 'max-num-seqs', 1),
    blockSize: int(a, 'block-size', 1),
    numBlocks: int(a, 'num-gpu-blocks-override', 1),
    threads: int(a, 'threads', 1),
    bodyLimit: int(a, 'max-request-body-bytes', 1) ?? 32 * 1024 * 1024,
    shutdownTimeoutMs: (int(a, 'shutdown-timeout', 0) ?? 30) * 1000,
    logLevel,
  };
}

/**
 * The backend for a configuration: the libvllm Engine, or a ChatPipeline over
 * an UpstreamGenerator (with `/v1/completions` passed straight to the upstream).
 */
export async function buildBackend(config: ServeConfig): Promise<ServerBackend> {
  const { Engine, ChatPipeline } = await import('../engine');
  const { chatBackend, UpstreamGenerator } = await import('../server');
  if (config.upstream) {
    const generator = new UpstreamGenerator({ url: config.upstream, model: config.upstreamModel, apiKey: config.upstreamApiKey });
    const modelName =
      config.servedModelName?.[0] ?? (config.model ? path.basename(path.resolve(config.model)) : undefined) ?? (await generator.modelName());
    const pipeline = new ChatPipeline(generator, {
      modelName,
      templatePath: config.chatTemplate === undefined ? config.model : undefined,
      chatTemplate: config.chatTemplate,
      specialTokensFrom: config.model,
      chatTemplateContentFormat: config.chatTemplateContentFormat,
      defaultChatTemplateKwargs: config.defaultChatTemplateKwargs,
      toolCallParser: config.toolCallParser,
      reasoningParser: config.reasoningParser,
    });
    return chatBackend(pipeline, generator, { modelName, acceptsRequestText: true, maxModelLen: config.maxModelLen });
  }
  const engine = await Engine.load({
    model: config.model as string,
    library: config.library,
    threads: config.threads,
    maxModelLen: config.maxModelLen,
    numBlocks: config.numBlocks,
    blockSize: config.blockSize,
    maxNumSeqs: config.maxNumSeqs,
    chatTemplate: config.chatTemplate,
    chatTemplateContentFormat: config.chatTemplateContentFormat,
    defaultChatTemplateKwargs: config.defaultChatTemplateKwargs,
    toolCallParser: config.toolCallParser,
    reasoningParser: config.reasoningParser,
    servedModelName: config.servedModelName?.[0],
  });
  // Resolve the template and parsers now: a bad --chat-template fails at startup, not on the first request.
  try {
    engine.chatPipeline();
  } catch (e) {
    await engine.close();
    throw e;
  }
  return chatBackend(engine, engine, {
    modelName: engine.modelName,
    acceptsRequestText: true,
    maxModelLen: config.maxModelLen,
    close: () => engine.close(),
  });
}

/** Starts the server; resolves with its address once it listens. SIGTERM/SIGINT drain and exit. */
export async function startServe(config: ServeConfig, io: CliIO): Promise<{ address: string; close: () => Promise<void> }> {
  const { createServer } = await import('../server');
  const backend = await buildBackend(config);
  const app = await createServer({
    backend,
    servedModelName: config.servedModelName,
    apiKey: config.apiKey,
    maxConcurrency: config.maxConcurrency,
    maxQueue: config.maxQueue,
    bodyLimit: config.bodyLimit,
    drainTimeoutMs: config.shutdownTimeoutMs,
    logger: { level: config.logLevel },
  });
  let address: string;
  try {
    address = await app.listen({ host: config.host, port: config.port });
  } catch (e) {
    await app.close();
    throw e;
  }
  let stopping: Promise<void> | undefined;
  const close = (): Promise<void> => (stopping ??= app.close());
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) {
      // A second signal: stop waiting.
      io.stderr(`${signal} again: exiting without waiting for in-flight requests\n`);
      process.exit(1);
    }
    app.log.info({ signal }, 'shutting down: draining in-flight requests');
    void close().then(
      () => {
        process.off('SIGTERM', onSignal);
        process.off('SIGINT', onSignal);
        app.log.info('server closed');
      },
      (e: unknown) => {
        app.log.error({ err: e }, 'shutdown failed');
        process.exitCode = 1;
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return { address, close };
}

/** The `serve` command: validates synchronously, then serves until a signal stops it. */
export function cmdServe(argv: string[], io: CliIO): number {
  let config: ServeConfig;
  try {
    if (argv.includes('--help') || argv.includes('-h')) {
      io.stdout(SERVE_USAGE + '\n');
      return 0;
    }
    config = serveConfig(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.stderr(`${e.name}: ${e.message}\n${SERVE_USAGE}\n`);
    return 2;
  }
  startServe(config, io).catch((e: unknown) => {
    io.stderr(`${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}\n`);
    process.exitCode = 1;
  });
  return 0;
}
