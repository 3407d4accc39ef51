/**
 * Engine: a vllm.cpp model loaded through libvllm's C ABI, generating from
 * prompts (complete/stream) and serving OpenAI chat completions through our
 * own render and parsers (chat/chatStream).
 *
 * Which libvllm entry point serves a generation:
 *   - the chat entry point, fed the prompt through the serving directory's
 *     pass-through template (src/engine/model.ts): it reports the finish
 *     reason and token usage; used for every request it can express
 *     (no constraint, or a JSON / JSON-object constraint);
 *   - the request API (vllm_request_submit) for streams under a regex,
 *     choice or grammar constraint, and for .gguf models: cancellable, but
 *     libvllm reports neither the finish reason nor token counts there, so
 *     the last chunk says `stop` (or `abort`) and carries no usage;
 *   - the blocking completion entry point for non-streaming generations
 *     under such constraints: exact finish reason and usage.
 */
import { AbortError, EngineClosedError, EngineDeadError, EngineError, RequestValidationError } from '../errors';
import { ChatPipeline, type ChatPipelineOptions } from './chat';
import type { ChatCompletion, ChatCompletionChunk, ChatOptions } from './chat';
import { loadBridge, type NativeEndEvent, type NativeEngineHandle } from './native';
import { resolveLibraryPath } from './library';
import { completeConstrainedPrefix, constraintCheck } from './constraint';
import { createServingDir, inspectModel, removeServingDir, SpecialTextFilter, type ModelFacts } from './model';
import { defaultsFromGenerationConfig, resolveSampling, type ModelDefaults, type NativeSampling } from './sampling';
import type {
  CompletionResult,
  FinishReason,
  GenerateOptions,
  GenerationChunk,
  SamplingParams,
  TextGenerator,
  Usage,
} from './types';

export interface EngineLoadOptions {
  /** A model directory (config.json, safetensors, tokenizer files) or a .gguf file. */
  model: string;
  /** Path of libvllm (libvllm.so / .dylib / .dll). Default: the VLLM_CPP_LIB environment variable. */
  library?: string;
  /** CPU threads libvllm uses (sets VLLM_CPP_CPU_THREADS for the process before loading). */
  threads?: number;
  maxModelLen?: number;
  numBlocks?: number;
  blockSize?: number;
  maxNumSeqs?: number;
  /** As vLLM's --chat-template: a template file or directory, or the template text. Default: the model's. */
  chatTemplate?: string;
  chatTemplateContentFormat?: 'auto' | 'string' | 'openai';
  defaultChatTemplateKwargs?: Record<string, unknown>;
  /** vLLM --tool-call-parser name, or 'auto' (default: detected from the template) or 'none'. */
  toolCallParser?: string;
  /** vLLM --reasoning-parser name, or 'auto' (default: detected from the template) or 'none'. */
  reasoningParser?: string;
  /** The model name responses carry (default: the model directory's name). */
  servedModelName?: string;
}

export interface GenerationOptions extends GenerateOptions {
  /**
   * Whether the tokenizer adds its special tokens (BOS) to the prompt, as
   * vLLM's completions API does by default. Pass false when the prompt is a
   * rendered chat prompt that already holds them (vLLM's chat path).
   */
  addSpecialTokens?: boolean;
  /**
   * The caller takes the output whole: under a regex/choice/grammar
   * constraint the blocking entry point is used, which reports the finish
   * reason and usage (the streaming request API reports neither).
   */
  whole?: boolean;
}

interface QueueItem {
  chunk?: GenerationChunk;
  error?: unknown;
  done?: boolean;
}

// How libvllm reports an engine core that stopped: the failing request says
// "EngineCore encountered an issue", every later one "stopped AsyncLLM".
const DEAD_PATTERN = /EngineCore encountered an issue|stopped AsyncLLM|\b(dead|died)\b/i;

function usageOf(prompt?: number, completion?: number): Usage | undefined {
  if (prompt === undefined || completion === undefined) return undefined;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function canonicalFinish(reason: unknown): FinishReason {
  switch (reason) {
    case 'stop':
    case 'length':
    case 'abort':
    case 'error':
    case 'repetition':
      return reason;
    default:
      return 'unknown';
  }
}

export class Engine implements TextGenerator {
  readonly model: ModelFacts;
  readonly modelName: string;
  readonly libraryPath: string;
  private native: NativeEngineHandle | undefined;
  private servingDir: string | undefined;
  private closed = false;
  private dead: string | undefined;
  private readonly defaults: ModelDefaults;
  private pipeline: ChatPipeline | undefined;

  private constructor(
    private readonly options: EngineLoadOptions,
    model: ModelFacts,
    libraryPath: string,
  ) {
    this.model = model;
    this.libraryPath = libraryPath;
    this.modelName = options.servedModelName ?? model.path.split(/[\\/]/).filter(Boolean).pop() ?? 'model';
    this.defaults = defaultsFromGenerationConfig(model.generationConfig);
  }

  /** Loads libvllm (once per process and path) and the model; resolves when the model is ready. */
  static async load(options: EngineLoadOptions): Promise<Engine> {
    if (!options || typeof options.model !== 'string' || options.model.length === 0) {
      throw new RequestValidationError('Engine.load: `model` (a model directory or .gguf file) is required', 'model');
    }
    const libraryPath = resolveLibraryPath(options.library);
    const model = inspectModel(options.model);
    const engine = new Engine(options, model, libraryPath);
    await engine.open();
    return engine;
  }

  /** libvllm's version string. */
  get libraryVersion(): string {
    return this.native?.libraryVersion ?? '';
  }

  private async open(): Promise<void> {
    const bridge = loadBridge();
    if (this.options.threads !== undefined) {
      if (!Number.isInteger(this.options.threads) || this.options.threads < 1) {
        throw new RequestValidationError('threads must be a positive integer', 'threads');
      }
      process.env.VLLM_CPP_CPU_THREADS = String(this.options.threads);
    }
    this.servingDir = this.model.kind === 'directory' ? createServingDir(this.model) : undefined;
    try {
      this.native = await bridge.load(this.libraryPath, {
        model: this.servingDir ?? this.model.path,
        blockSize: this.options.blockSize,
        numBlocks: this.options.numBlocks,
        maxModelLen: this.options.maxModelLen,
        maxNumSeqs: this.options.maxNumSeqs,
        // Our parsers run in TypeScript; the engine only generates text.
        reasoningParser: 'none',
      });
    } catch (e) {
      if (this.servingDir) removeServingDir(this.servingDir);
      this.servingDir = undefined;
      throw e;
    }
  }

  private liveHandle(): NativeEngineHandle {
    if (this.closed || !this.native) throw new EngineClosedError('the engine is closed');
    if (this.dead) {
      throw new EngineDeadError(`the engine is dead (${this.dead}); call engine.reload() to load it again`);
    }
    return this.native;
  }

  /**
   * Frees the engine and loads the model again with the same options: the way
   * back from an EngineDeadError. In-flight requests are cancelled first.
   */
  async reload(): Promise<void> {
    if (this.closed) throw new EngineClosedError('the engine is closed');
    const old = this.native;
    this.native = undefined;
    if (old) await old.close();
    if (this.servingDir) removeServingDir(this.servingDir);
    this.dead = undefined;
    await this.open();
  }

  /** Cancels every in-flight request, waits for them, and frees the engine. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const native = this.native;
    this.native = undefined;
    try {
      if (native) await native.close();
    } finally {
      if (this.servingDir) removeServingDir(this.servingDir);
      this.servingDir = undefined;
    }
  }

  /** Whether the engine can take requests: loaded, not closed, not dead. */
  get healthy(): boolean {
    return !this.closed && this.native !== undefined && this.dead === undefined;
  }

  /** Why the engine died (libvllm's message), or undefined while it serves. */
  get deathReason(): string | undefined {
    return this.dead;
  }

  /** Requests currently running inside the engine. */
  get activeRequests(): number {
    return this.native?.liveRequests() ?? 0;
  }

  private prepare(prompt: string, params: SamplingParams | undefined, options: GenerationOptions | undefined) {
    if (typeof prompt !== 'string') throw new RequestValidationError('prompt must be a string', 'prompt');
    const resolved = resolveSampling((params ?? {}) as Record<string, unknown>, this.defaults);
    let text = prompt;
    const tok = this.model.tokenizer;
    if (options?.addSpecialTokens !== false && tok && this.servingDir !== undefined) {
      // The serving tokenizer adds nothing (its post-processor is removed, so a
      // rendered chat prompt is tokenized as vLLM's chat path does, with
      // add_special_tokens=False). A plain completion gets the tokens the
      // model's post-processor adds, as vLLM's completions API does: their
      // texts encode to exactly those special tokens.
      text = (tok.prependedText ?? '') + text + (tok.appendedText ?? '');
    }
    const specials = resolved.skipSpecialTokens ? (tok?.specialTexts ?? []) : [];
    const viaChat =
      this.servingDir !== undefined &&
      (resolved.constraint === undefined || resolved.constraint === 'json' || resolved.constraint === 'json_object');
    return { text, native: resolved.native, specials, viaChat };
  }

  /** Streams a completion of `prompt`: text deltas, then a last chunk with finishReason (and usage when known). */
  stream(prompt: string, params?: SamplingParams, options?: GenerationOptions): AsyncIterable<GenerationChunk> {
    const p = this.prepare(prompt, params, options);
    const handle = this.liveHandle();
    return this.run(handle, p.viaChat ? 'chat' : options?.whole ? 'complete' : 'submit', p.text, p.native, p.specials, options?.signal);
  }

  /** Generates a whole completion of `prompt`. */
  async complete(prompt: string, params?: SamplingParams, options?: GenerationOptions): Promise<CompletionResult> {
    const p = this.prepare(prompt, params, options);
    const handle = this.liveHandle();
    let text = '';
    let finish: FinishReason = 'unknown';
    let usage: Usage | undefined;
    for await (const c of this.run(handle, p.viaChat ? 'chat' : 'complete', p.text, p.native, p.specials, options?.signal)) {
      text += c.text;
      if (c.finishReason) finish = c.finishReason;
      if (c.usage) usage = c.usage;
    }
    return { text, finishReason: finish, usage: usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 } };
  }

  /** An OpenAI chat completion: our render -> the engine -> our parsers. */
  chat(request: unknown, options?: ChatOptions): Promise<ChatCompletion> {
    return this.chatPipeline().chat(request, options);
  }

  /** OpenAI chat.completion.chunk objects for a streamed chat completion. */
  chatStream(request: unknown, options?: ChatOptions): AsyncIterable<ChatCompletionChunk> {
    return this.chatPipeline().chatStream(request, options);
  }

  /** The chat pipeline over this engine (template, parsers and defaults resolved once). */
  chatPipeline(): ChatPipeline {
    if (!this.pipeline) {
      if (this.model.kind === 'gguf' && !this.options.chatTemplate) {
        throw new EngineError(
          'chat needs a chat template: give chatTemplate for a .gguf model (its embedded template is not read by this package)',
        );
      }
      const opts: ChatPipelineOptions = {
        modelName: this.modelName,
        templatePath: this.options.chatTemplate === undefined ? this.model.path : undefined,
        chatTemplate: this.options.chatTemplate,
        specialTokensFrom: this.model.kind === 'directory' ? this.model.path : undefined,
        chatTemplateContentFormat: this.options.chatTemplateContentFormat,
        defaultChatTemplateKwargs: this.options.defaultChatTemplateKwargs,
        toolCallParser: this.options.toolCallParser,
        reasoningParser: this.options.reasoningParser,
        // The engine strips special tokens itself; a .gguf engine cannot show them.
        specialTokensVisible: this.model.kind === 'directory',
      };
      this.pipeline = new ChatPipeline(this, opts);
    }
    return this.pipeline;
  }

  private run(
    handle: NativeEngineHandle,
    kind: 'chat' | 'submit' | 'complete',
    text: string,
    sampling: NativeSampling,
    specials: readonly string[],
    signal: AbortSignal | undefined,
  ): AsyncIterable<GenerationChunk> {
    const engine = this;
    return {
      [Symbol.asyncIterator](): AsyncIterator<GenerationChunk> {
        const queue: QueueItem[] = [];
        let wake: (() => void) | undefined;
        let started = false;
        let finished = false;
        let request: { cancel(): void } | undefined;
        let finish: FinishReason | undefined;
        let usage: Usage | undefined;
        const filter = new SpecialTextFilter(specials);
        // Under a constraint the latest text is held back until the next delta
        // or the end, where a stray token after the satisfied constraint is cut.
        const check = constraintCheck(sampling);
        let held = '';
        let emitted = '';
        const push = (item: QueueItem) => {
          queue.push(item);
          wake?.();
          wake = undefined;
        };
        const emit = (text: string) => {
          if (!text) return;
          if (!check) {
            push({ chunk: { text } });
            return;
          }
          if (held) push({ chunk: { text: held } });
          emitted += held;
          held = text;
        };
        const finalText = (tail: string, reason: FinishReason): { text: string; reason: FinishReason } => {
          let last = held + tail;
          held = '';
          // A constrained output that is not itself complete but has a complete
          // prefix ends in the stray token. (The request API reports no finish
          // reason, so there the shape of the text alone decides.)
          if (check && (reason === 'error' || kind === 'submit') && !check(emitted + last)) {
            const k = completeConstrainedPrefix(emitted + last, check);
            if (k !== undefined && k >= emitted.length) {
              last = last.slice(0, k - emitted.length);
              reason = 'stop';
            }
          }
          return { text: last, reason };
        };
        const onAbort = () => {
          request?.cancel();
          push({ error: new AbortError('the generation was aborted') });
        };
        const onEvent = (type: string, payload: unknown) => {
          if (finished) return;
          if (type === 'delta') {
            const raw = payload as string;
            if (kind === 'chat') {
              const parsed = engine.readChatChunk(raw);
              if (parsed.finish) finish = parsed.finish;
              if (parsed.usage) usage = parsed.usage;
              if (parsed.text) emit(filter.push(parsed.text));
            } else {
              emit(filter.push(raw));
            }
            return;
          }
          const end = payload as NativeEndEvent;
          signal?.removeEventListener('abort', onAbort);
          if (end.status !== 0) {
            push({ error: engine.failure(end) });
            return;
          }
          if (kind === 'complete') {
            if (end.finishReason) finish = canonicalFinish(end.finishReason);
            usage = usageOf(end.promptTokens, end.completionTokens);
          }
          if (end.cancelled) finish = 'abort';
          const last = finalText((kind === 'complete' ? filter.push(end.text ?? '') : '') + filter.end(), finish ?? 'stop');
          push({ chunk: { text: last.text, finishReason: last.reason, usage } });
          push({ done: true });
        };
        const start = () => {
          started = true;
          if (signal?.aborted) {
            push({ error: new AbortError('the generation was aborted') });
            return;
          }
          try {
            if (kind === 'chat') request = handle.chatStream(engine.chatRequestJson(text, sampling), onEvent);
            else if (kind === 'submit') request = handle.submit(text, sampling, onEvent);
            else request = handle.complete(text, sampling, onEvent);
          } catch (e) {
            push({ error: engine.mapStartError(e) });
            return;
          }
          signal?.addEventListener('abort', onAbort, { once: true });
        };
        return {
          async next(): Promise<IteratorResult<GenerationChunk>> {
            if (!started) start();
            for (;;) {
              if (finished) return { value: undefined, done: true };
              const item = queue.shift();
              if (item) {
                if (item.done) {
                  finished = true;
                  return { value: undefined, done: true };
                }
                if (item.error) {
                  finished = true;
                  signal?.removeEventListener('abort', onAbort);
                  throw item.error;
                }
                return { value: item.chunk!, done: false };
              }
              await new Promise<void>((resolve) => (wake = resolve));
            }
          },
          async return(): Promise<IteratorResult<GenerationChunk>> {
            // The consumer stopped early (break, or an error downstream): cancel.
            if (!finished) {
              finished = true;
              request?.cancel();
              signal?.removeEventListener('abort', onAbort);
            }
            return { value: undefined, done: true };
          },
        };
      },
    };
  }

  /** The request the chat entry point receives: the prompt as the only message, every field explicit. */
  private chatRequestJson(prompt: string, s: NativeSampling): string {
    const body: Record<string, unknown> = {
      messages: [{ role: 'user', content: prompt }],
      temperature: s.temperature,
      top_p: s.top_p,
      top_k: s.top_k,
      min_p: s.min_p,
      presence_penalty: s.presence_penalty,
      frequency_penalty: s.frequency_penalty,
      repetition_penalty: s.repetition_penalty,
      min_tokens: s.min_tokens,
      ignore_eos: s.ignore_eos,
      stop: s.stop,
      // The serving tokenizer flags no token special; skipping is applied by us.
      skip_special_tokens: false,
      stream: true,
      stream_options: { include_usage: true },
    };
    if (s.max_tokens > 0) body.max_tokens = s.max_tokens;
    if (s.seed !== undefined) body.seed = s.seed;
    if (s.structured_json_object) body.response_format = { type: 'json_object' };
    else if (s.structured_json !== undefined) {
      body.response_format = { type: 'json_schema', json_schema: { name: 'response', schema: JSON.parse(s.structured_json) as unknown } };
    }
    return JSON.stringify(body);
  }

  private readChatChunk(raw: string): { text?: string; finish?: FinishReason; usage?: Usage } {
    if (raw === '[DONE]' || raw.length === 0) return {};
    let chunk: {
      choices?: Array<{ delta?: { content?: string | null }; finish_reason?: string | null }>;
      usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
    };
    try {
      chunk = JSON.parse(raw) as typeof chunk;
    } catch {
      return {};
    }
    const out: { text?: string; finish?: FinishReason; usage?: Usage } = {};
    const choice = chunk.choices?.[0];
    if (choice?.delta && typeof choice.delta.content === 'string') out.text = choice.delta.content;
    if (choice?.finish_reason) out.finish = canonicalFinish(choice.finish_reason);
    if (chunk.usage && typeof chunk.usage.prompt_tokens === 'number' && typeof chunk.usage.completion_tokens === 'number') {
      out.usage = usageOf(chunk.usage.prompt_tokens, chunk.usage.completion_tokens);
    }
    return out;
  }

  private failure(end: NativeEndEvent): EngineError {
    const message = end.error || `libvllm failed with ${end.statusName}`;
    let err: EngineError;
    if (DEAD_PATTERN.test(message)) {
      this.dead = message;
      err = new EngineDeadError(`the engine died: ${message}; call engine.reload() to load it again`);
    } else if (end.statusName === 'VLLM_ERR_INVALID_ARGUMENT') {
      err = new EngineError(`libvllm rejected the request: ${message}`);
    } else {
      err = new EngineError(`generation failed: ${message}`);
    }
    err.vllmStatus = end.statusName;
    return err;
  }

  private mapStartError(e: unknown): unknown {
    const kind = (e as { kind?: string })?.kind;
    if (kind === 'closed') return new EngineClosedError('the engine is closed');
    return e;
  }
}
