/**
 * renderChat: request -> validate -> vLLM post-processing -> marshal -> native render -> prompt.
 */
import { buildContextKeeping, buildNextTurn, buildTemplateContext, pyDeepCopy, resolveContentFormat, serializePyJson, type BuildOptions, type BuiltMessages, type Reused, type TemplateFacts, cutContinueFinal, decodeRequest, RecentConversations, type ArgumentsPolicy, type BuiltContext, type ContentFormat, type SharedValues } from './conversation';
import { BackendError, TemplateLoadError } from './errors';
import { wallClock, type NowInput } from './native/clock';
import { CompiledTemplate, compileTemplate, keepPlans, planRequest, type NativeRenderOptions, type RenderLimits } from './native/embedded';
import { planRequestText } from './conversation/planned';
import { requestTextOf } from './protocol/json-stringify-agrees';
import { loadVllmCpp } from './native/vllm-cpp';
import { loadTemplateFromPath } from './templates/load';
import { renderInPool } from './async';
import { chatResult, type Member } from './result';
import type { ChatCompletionRequest } from './protocol/schemas';

export type Backend = 'embedded' | 'vllm.cpp';

// ---------------------------------------------------------------------------
// Request types. They describe what vLLM's /v1/chat/completions accepts for
// rendering, structurally, so the official `openai` package's
// `ChatCompletionCreateParams` (and its message, tool and content-part types)
// is accepted as is. Fields the renderer does not read (model, temperature,
// ...) are allowed. Entries vLLM rejects at run time (custom tools, custom
// tool calls, media parts for a text template) type-check and are rejected
// with vLLM's own error when rendered.
// ---------------------------------------------------------------------------

/** A text part of a message's content. `input_text`/`output_text` are the Responses spellings vLLM also takes. */
export interface ChatTextPart {
  type: 'text' | 'input_text' | 'output_text';
  text: string;
}

/** A content part: a bare string, a text part, or any other typed part (refusal, thinking, image_url, ...). */
export type ChatContentPart = string | ChatTextPart | { type: string };

/** A message's content. */
export type ChatContent = string | null | ReadonlyArray<ChatContentPart>;

/** A function call made by the assistant. `arguments` is the JSON string OpenAI clients send; objects are accepted too. */
export interface ChatFunctionToolCall {
  id: string;
  /** `'function'`; a plain `string` is accepted so that call objects built in variables type-check (others are rejected at run time). */
  type?: 'function' | (string & {});
  function: { name: string; arguments?: string | Readonly<Record<string, unknown>> | null };
}

/** A custom (free-form) tool call; vLLM 0.25 rejects it when rendering. */
export interface ChatCustomToolCall {
  id: string;
  type: 'custom';
  custom: { name: string; input: string };
}

/** A tool call in an assistant message of the history (openai: `ChatCompletionMessageToolCall`). */
export type ChatMessageToolCall = ChatFunctionToolCall | ChatCustomToolCall;

/** One message of the conversation. `role` is any string (vLLM's custom roles); the usual ones are listed. */
export interface ChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool' | 'function' | (string & {});
  content?: ChatContent;
  name?: string;
  tool_calls?: ReadonlyArray<ChatMessageToolCall> | null;
  tool_call_id?: string | null;
  /** The assistant's reasoning; `reasoning_content` is renamed to it, as vLLM does. */
  reasoning?: string | null;
  reasoning_content?: string | null;
}

/** A function the model may call. */
export interface ChatFunctionDefinition {
  name: string;
  description?: string | null;
  /** JSON Schema of the arguments. */
  parameters?: Readonly<Record<string, unknown>> | null;
  strict?: boolean | null;
}

/** A Chat Completions function tool. */
export interface ChatFunctionTool {
  type?: 'function';
  function: ChatFunctionDefinition;
}

/** A custom tool (openai's `ChatCompletionCustomTool`); vLLM 0.25 rejects it when rendering. */
export interface ChatCustomTool {
  type: 'custom';
  custom: { name: string; description?: string; format?: unknown };
}

export type ChatTool = ChatFunctionTool | ChatCustomTool;

/** The fields of a Chat Completions request that shape the prompt. Other fields are allowed and ignored. */
export interface ChatRequest {
  messages: ReadonlyArray<ChatMessage>;
  /** Must not be an empty list (vLLM rejects `[]`); omit it or pass null for no tools. */
  tools?: ReadonlyArray<ChatTool> | null;
  tool_choice?: unknown;
  /** Default true. */
  add_generation_prompt?: boolean;
  /** Continue the final (assistant) message instead of starting a new one; needs `add_generation_prompt: false`. */
  continue_final_message?: boolean;
  /** Extra template variables (`enable_thinking`, ...); only those the template reads are passed. */
  chat_template_kwargs?: Readonly<Record<string, unknown>> | null;
  documents?: ReadonlyArray<Readonly<Record<string, unknown>>> | null;
  reasoning_effort?: string | null;
  /** Rejected, as vLLM rejects a request-supplied template without --trust-request-chat-template. */
  chat_template?: string | null;
}

/**
 * What renderChat takes: a request object (typed as {@link ChatRequest},
 * openai's `ChatCompletionCreateParams`, or the schema-inferred
 * {@link ChatCompletionRequest}, e.g. from {@link parsePyJson}), or the raw
 * JSON text of the request body.
 */
export type ChatRequestInput<R extends ChatRequest = ChatRequest> = R | ChatCompletionRequest | string;

export interface RenderChatOptions extends RenderLimits {
  /** Template source text, or a template compiled with compileTemplate(). */
  template?: string | CompiledTemplate;
  /** A chat_template.jinja file, a tokenizer_config.json, or a model directory holding either. */
  templatePath?: string;
  /** bos_token seen by the template (overrides one from tokenizer_config.json). */
  bosToken?: string;
  /** eos_token seen by the template (overrides one from tokenizer_config.json). */
  eosToken?: string;
  /** Further special tokens (unk_token, pad_token, ...). */
  specialTokens?: Record<string, string>;
  /** Overrides the request's add_generation_prompt (vLLM default: true). */
  addGenerationPrompt?: boolean;
  /** Overrides the request's continue_final_message. */
  continueFinalMessage?: boolean;
  /** Server-side default chat_template_kwargs; the request's own kwargs win. */
  chatTemplateKwargs?: Record<string, unknown>;
  /** Clock for strftime_now: a Date (local wall time) or an ISO-8601 wall-clock string. Default: now. */
  now?: NowInput;
  /** Invalid tool-call arguments: 'strict' rejects (pinned vLLM, default), 'lenient' coerces to {} with a warning. */
  policy?: ArgumentsPolicy;
  /** Content format: 'auto' (default) detects it from the template like vLLM. */
  contentFormat?: 'auto' | ContentFormat;
  /** Rendering backend (default 'embedded'). */
  backend?: Backend;
  /**
   * Raw-text requests (default true): keep the messages built for recent
   * conversations (per thread: up to 32 conversations, 16 Mi characters of
   * request text and message JSON), and build only the new messages of a
   * request whose messages continue one byte for byte. A request object
   * with a compiled template on the embedded backend goes the same way as
   * its JSON.stringify text, where that text gives back exactly the object
   * (plain objects and arrays of strings, booleans, null, safe integers
   * and finite non-integral numbers). Every request (the
   * embedded backend): the native side keeps the parsed messages of recent
   * contexts that continued an earlier one (per thread: up to 8, 4 MiB of
   * context JSON) and parses only the messages after those a context shares
   * with one of them (docs/limits.md). false:
   * build and parse every request from scratch, and keep nothing of it. The
   * result is the same either way.
   */
  reuseConversation?: boolean;
}

export interface RenderChatResult {
  /** The prompt string vLLM would tokenize. */
  prompt: string;
  /** The conversation as the template saw it (after vLLM's post-processing; the result's own copy, for messages kept from a recent request made on first read). */
  messages: unknown[];
  /** The tool dicts the template saw, or null (the result's own copy; for tools kept from a recent request, made on first read). */
  tools: unknown[] | null;
  contentFormat: ContentFormat;
  /** Lenient-policy coercions and similar notes. */
  warnings: string[];
  /** sha256 of the template source. */
  templateHash: string;
  backend: Backend;
}

interface Prepared {
  compiled: CompiledTemplate;
  built: BuiltContext;
  /** Values of the context shared with other requests (read only; the result gets copies). */
  shared: SharedValues;
  native: NativeRenderOptions;
  backend: Backend;
  contentFormat: ContentFormat;
  /** Set when the messages are built natively from plans (conversation/planned): what the render needs, and what the result's messages are built from when read. */
  planned?: { ticket: number; plans: string[] | null; text: string; facts: TemplateFacts; build: BuildOptions };
}

function hasTools(request: Record<string, unknown>): boolean {
  const tools = request.tools;
  return Array.isArray(tools) && tools.length > 0;
}

/**
 * vLLM takes bos_token/eos_token from the tokenizer; a template given as bare
 * text or a lone .jinja file has none, and Jinja2 renders the undefined name
 * as an empty string. Say so when the template reads one.
 */
function missingTokenWarnings(undeclared: ReadonlySet<string>, tokens: Readonly<Record<string, string>>): string[] {
  const out: string[] = [];
  for (const [name, option] of [['bos_token', 'bosToken'], ['eos_token', 'eosToken']] as const) {
    if (undeclared.has(name) && tokens[name] === undefined) {
      out.push(
        `the template reads ${name} but none was given, so it renders as an empty string: pass ${option}, ` +
          'or a templatePath with tokenizer_config.json beside the template',
      );
    }
  }
  return out;
}

/**
 * The conversations of recent raw-text requests (conversation/history): a
 * request that continues one decodes and builds only its new messages.
 */
export const recentConversations = new RecentConversations();

/**
 * What the template variables other than `messages` depend on besides the
 * request text: the template and the build options. Undefined when they
 * cannot be written down (the usual path then reports any error).
 */
function contextKey(compiled: CompiledTemplate, options: RenderChatOptions, specialTokens: Record<string, string>): string | undefined {
  const agp = options.addGenerationPrompt ?? null;
  const cfm = options.continueFinalMessage ?? null;
  const kwargs = options.chatTemplateKwargs;
  if (kwargs !== undefined) return writeContextKey(compiled, agp, cfm, specialTokens, kwargs);
  // (a server passes the same template and options request after request)
  const last = lastContextKey;
  if (last !== undefined && last.compiled === compiled && last.agp === agp && last.cfm === cfm && sameStringEntries(specialTokens, last.tokens)) {
    return last.key;
  }
  const key = writeContextKey(compiled, agp, cfm, specialTokens, undefined);
  const tokens = key === undefined ? undefined : stringEntries(specialTokens);
  lastContextKey = key === undefined || tokens === undefined ? undefined : { compiled, agp, cfm, tokens, key };
  return key;
}

/** The last context key worked out without chat-template kwargs, and what it was worked out from. */
let lastContextKey: { compiled: CompiledTemplate; agp: boolean | null; cfm: boolean | null; tokens: string[]; key: string } | undefined;

/** `obj`'s enumerable keys and their values in order, flat (`[k0, v0, k1, v1, ...]`); undefined when a value is not a string. */
function stringEntries(obj: Record<string, string>): string[] | undefined {
  const flat: string[] = [];
  for (const k in obj) {
    const v = obj[k];
    if (typeof v !== 'string') return undefined;
    flat.push(k, v);
  }
  return flat;
}

/** `obj`'s enumerable keys and their values, in order, are exactly the pairs of `flat` (stringEntries). */
function sameStringEntries(obj: Record<string, string>, flat: readonly string[]): boolean {
  let i = 0;
  for (const k in obj) {
    if (i >= flat.length || flat[i] !== k || flat[i + 1] !== obj[k]) return false;
    i += 2;
  }
  return i === flat.length;
}

function writeContextKey(
  compiled: CompiledTemplate,
  agp: boolean | null,
  cfm: boolean | null,
  specialTokens: Record<string, string>,
  kwargs: Record<string, unknown> | undefined,
): string | undefined {
  try {
    // (the policy and the content format shape only the messages; the kept ones record them)
    return JSON.stringify([compiled.hash, agp, cfm, Object.entries(specialTokens), kwargs === undefined ? null : serializePyJson(kwargs)]);
  } catch {
    return undefined;
  }
}

function specialTokensOf(configTokens: Record<string, string>, options: RenderChatOptions): Record<string, string> {
  const specialTokens: Record<string, string> = { ...configTokens, ...options.specialTokens };
  if (options.bosToken !== undefined) specialTokens.bos_token = options.bosToken;
  if (options.eosToken !== undefined) specialTokens.eos_token = options.eosToken;
  return specialTokens;
}

function buildOptionsOf(options: RenderChatOptions, specialTokens: Record<string, string>): BuildOptions {
  return {
    policy: options.policy,
    contentFormat: options.contentFormat,
    specialTokens,
    chatTemplateKwargs: options.chatTemplateKwargs,
    addGenerationPrompt: options.addGenerationPrompt,
    continueFinalMessage: options.continueFinalMessage,
  };
}

function factsOf(compiled: CompiledTemplate): TemplateFacts {
  return { contentFormat: compiled.contentFormat, undeclaredVariables: compiled.undeclaredVariables, templateSource: compiled.source };
}

function nativeOptionsOf(options: RenderChatOptions): NativeRenderOptions {
  return {
    now: wallClock(options.now),
    maxOutputBytes: options.maxOutputBytes,
    maxSteps: options.maxSteps,
    maxDepth: options.maxDepth,
    maxRenderMs: options.maxRenderMs,
    maxMemoryBytes: options.maxMemoryBytes,
    reuseParsed: options.reuseConversation === false ? false : undefined,
  };
}

/**
 * The next turn of a recent conversation with a template given as compiled
 * (nothing to load first): only the new messages are decoded and built
 * (buildNextTurn). Undefined when that does not apply.
 */
function prepareNextTurn(
  text: string,
  options: RenderChatOptions,
  compiled: CompiledTemplate,
  specialTokens: Record<string, string>,
  key: string,
): Prepared | undefined {
  const backend = options.backend ?? 'embedded';
  if (backend !== 'embedded' && backend !== 'vllm.cpp') return undefined;
  const next = buildNextTurn(text, recentConversations, key, factsOf(compiled), buildOptionsOf(options, specialTokens));
  if (next === undefined) return undefined;
  recentConversations.nextTurns++;
  return prepared(compiled, next, next.reused, text, options, backend, specialTokens);
}

/** What prepare gives back for a built context; keeps what it built from the messages of a raw-text request. */
function prepared(
  compiled: CompiledTemplate,
  out: { built: BuiltContext; shared: SharedValues; messages?: BuiltMessages },
  reused: Reused | undefined,
  text: string | undefined,
  options: RenderChatOptions,
  backend: Backend,
  specialTokens: Record<string, string>,
): Prepared {
  const built = out.built;
  if (reused !== undefined) recentConversations.reusedRequests++;
  if (text !== undefined && out.messages !== undefined) recentConversations.keep(text, out.messages, reused);
  const native = nativeOptionsOf(options);
  const tokenWarnings = missingTokenWarnings(compiled.undeclaredVariables, specialTokens);
  if (tokenWarnings.length) built.warnings.push(...tokenWarnings);
  const contentFormat = resolveContentFormat(options.contentFormat, compiled.contentFormat);
  return { compiled, built, shared: out.shared, native, backend, contentFormat };
}

/**
 * Raw-text requests whose messages are built natively from plans
 * (conversation/planned). `enabled` off: none are (the path of earlier
 * releases, for tests and comparisons). `rendered` counts those rendered.
 */
export const plannedRequests = { enabled: true, rendered: 0 };

/**
 * @internal Requests given as objects that renderChat prepared as their
 * JSON text (renderNow); `enabled` off: none are.
 */
export const objectsAsText = { enabled: true, prepared: 0 };

/**
 * The context built for the last planned request's rest (its text without
 * the messages) with the template and options of `key` (contextKey): an
 * agent sends the same tools and settings with every request.
 */
let lastPlannedRest: { key: string; rest: string; built: BuiltContext; shared: SharedValues } | undefined;

/** The native side of planned messages. */
const nativePlanning = { planRequest, keepPlans };

/**
 * A raw-text request whose messages are built natively from plans
 * (conversation/planned): only the rest of the request is decoded and built
 * here. Undefined where that does not apply (the usual path then gives the
 * value or the error).
 */
function preparePlanned(
  text: string,
  options: RenderChatOptions,
  compiled: CompiledTemplate,
  specialTokens: Record<string, string>,
  key: string | undefined,
): Prepared | undefined {
  const backend = options.backend ?? 'embedded';
  if (backend !== 'embedded') return undefined;
  const facts = factsOf(compiled);
  const build = buildOptionsOf(options, specialTokens);
  const format = resolveContentFormat(options.contentFormat, compiled.contentFormat);
  const plan = planRequestText(text, nativePlanning, format, options.policy ?? 'strict', facts);
  if (plan === undefined) return undefined;
  let out: ReturnType<typeof buildContextKeeping>;
  const kept = lastPlannedRest;
  if (kept !== undefined && kept.key === key && kept.rest === plan.rest) {
    // the same rest of the request as the last one, with the same template and options: the same context but its messages
    const b = kept.built;
    out = { built: { ...b, messages: [], warnings: b.warnings.slice(), templateVariables: b.templateVariables.slice() }, shared: { ...kept.shared } };
  } else {
    try {
      out = buildContextKeeping(decodeRequest(plan.rest, { shareTools: true }), facts, build, false, undefined, true);
    } catch {
      return undefined;
    }
    // (kept only when nothing in it is the caller's own: tools shared or none)
    const b = out.built;
    lastPlannedRest = key !== undefined && b.tools === null && b.continueFinal === null ? { key, rest: plan.rest, built: { ...b, warnings: b.warnings.slice() }, shared: out.shared } : undefined;
  }
  const p = prepared(compiled, out, undefined, undefined, options, backend, specialTokens);
  p.planned = { ticket: plan.ticket, plans: plan.plans, text, facts, build };
  return p;
}

/**
 * The request, ready to render. `planned`: a sync render on this thread may
 * take the planned path (its messages built natively, from plans).
 */
function prepare(input: unknown, options: RenderChatOptions, planned = false): Prepared {
  // Raw request text is decoded once, losslessly, before anything looks at it.
  const text = typeof input === 'string' && options.reuseConversation !== false ? input : undefined;
  // with a compiled template, what the context depends on besides the request is known up front
  let tailKey: string | undefined;
  // (a compiled template brings no special tokens of its own: these are the ones used below)
  let compiledTokens: Record<string, string> | undefined;
  if (text !== undefined && recentConversations.enabled && options.template instanceof CompiledTemplate) {
    compiledTokens = specialTokensOf({}, options);
    tailKey = contextKey(options.template, options, compiledTokens);
    const next = tailKey !== undefined ? prepareNextTurn(text, options, options.template, compiledTokens, tailKey) : undefined;
    if (next !== undefined) return next;
    if (planned && plannedRequests.enabled) {
      const p = preparePlanned(text, options, options.template, compiledTokens, tailKey);
      if (p !== undefined) return p;
    }
  }
  let decoded = decodeRequest(input, { shareTools: true, history: text !== undefined ? recentConversations : undefined });
  const request = decoded.value;
  const backend = options.backend ?? 'embedded';
  if (backend !== 'embedded' && backend !== 'vllm.cpp') throw new BackendError(`unknown backend ${JSON.stringify(backend)}`);
  let compiled: CompiledTemplate;
  let configTokens: Record<string, string> = {};
  if (options.template instanceof CompiledTemplate) {
    compiled = options.template;
  } else if (typeof options.template === 'string') {
    compiled = compileTemplate(options.template);
  } else if (options.templatePath) {
    const loaded = loadTemplateFromPath(options.templatePath, { hasTools: hasTools(request) });
    compiled = compileTemplate(loaded.source);
    configTokens = loaded.specialTokens;
  } else {
    throw new TemplateLoadError('renderChat: give options.template (source or compiled) or options.templatePath');
  }
  const specialTokens = compiledTokens ?? specialTokensOf(configTokens, options);
  const facts = factsOf(compiled);
  const buildOptions = buildOptionsOf(options, specialTokens);
  const keep = text !== undefined && recentConversations.enabled;
  // (with tailKey, the next turn of this conversation may take the rest of the context from this one)
  let out: ReturnType<typeof buildContextKeeping>;
  try {
    out = buildContextKeeping(decoded, facts, buildOptions, keep, tailKey);
  } catch (e) {
    // not the plain case after all: the whole request, from scratch (its value or its error)
    if (decoded.reused === undefined) throw e;
    decoded = decodeRequest(input, { shareTools: true });
    out = buildContextKeeping(decoded, facts, buildOptions, keep, tailKey);
  }
  return prepared(compiled, out, decoded.reused, text, options, backend, specialTokens);
}

/**
 * The result. `readOnly`: its messages and tools may be the values the
 * context shares with later requests (for a caller that only serializes
 * them, such as the async pool's worker), so no copy of those is made.
 */
function finish(p: Prepared, rendered: string, readOnly = false): RenderChatResult {
  const built = p.built;
  // shared values: the result's own copy is made on first read
  const { messages, tools } = p.shared;
  const planned = p.planned;
  let resultMessages: Member<unknown[]>;
  if (planned !== undefined) resultMessages = () => buildTemplateContext(planned.text, planned.facts, planned.build).messages;
  else if (messages === undefined) resultMessages = built.messages;
  else if (readOnly) resultMessages = messages;
  else resultMessages = () => pyDeepCopy(messages);
  let resultTools: Member<unknown[] | null>;
  if (tools === undefined) resultTools = built.tools;
  else if (readOnly) resultTools = tools;
  else resultTools = () => pyDeepCopy(tools);
  return chatResult(promptOf(p, rendered), resultMessages, resultTools, p.contentFormat, built.warnings, p.compiled.hash, p.backend);
}

/** The prompt of a render (a continued final message cut where it ends). */
function promptOf(p: Prepared, rendered: string): string {
  return p.built.continueFinal ? cutContinueFinal(rendered, p.built.continueFinal) : rendered;
}

/**
 * Renders an OpenAI Chat Completions request (an object, or the raw JSON text
 * of the request body for full numeric/key-order fidelity) into the prompt
 * string pinned vLLM builds. With a compiled template, an object that its
 * JSON text gives back exactly is rendered as that text (the same result,
 * with the raw-text path's reuse; see `reuseConversation`).
 */
export function renderChat<R extends ChatRequest>(request: ChatRequestInput<R>, options: RenderChatOptions): RenderChatResult {
  return renderNow(request, options, false);
}

/**
 * The request object's JSON text, where the raw-text path may take it: a
 * compiled template on the embedded backend with the reuse on, and an object
 * that text gives back exactly (protocol/json-stringify-agrees).
 */
function asRequestText(request: unknown, options: RenderChatOptions): string | undefined {
  if (typeof request !== 'object' || request === null || options.reuseConversation === false) return undefined;
  if (!objectsAsText.enabled || !recentConversations.enabled || !plannedRequests.enabled || !(options.template instanceof CompiledTemplate)) return undefined;
  if (options.backend !== undefined && options.backend !== 'embedded') return undefined;
  return requestTextOf(request);
}

function renderNow(request: unknown, options: RenderChatOptions, readOnly: boolean): RenderChatResult {
  const [p, rendered] = renderPrepared(request, options);
  return finish(p, rendered, readOnly);
}

/** A request prepared and rendered: what it was prepared into, and the template's output. */
function renderPrepared(request: unknown, options: RenderChatOptions): [Prepared, string] {
  let p: Prepared | undefined;
  // an object as its text (planned messages, a continued conversation's reuse); where the
  // text does not prepare, the object's own path gives the error
  const text = asRequestText(request, options);
  if (text !== undefined) {
    try {
      p = prepare(text, options, true);
      request = text;
      objectsAsText.prepared++;
    } catch {
      p = undefined;
    }
  }
  p ??= prepare(request, options, true);
  if (p.planned !== undefined) {
    const rendered = p.compiled.renderPlanned(p.built.contextJson, p.planned.ticket, p.planned.plans, p.native);
    if (rendered !== null) {
      plannedRequests.rendered++;
      return [p, rendered];
    }
    // declined (a message its plan does not fit): the usual path
    p = prepare(request, options);
  }
  const rendered =
    p.backend === 'embedded'
      ? p.compiled.renderJson(p.built.contextJson, p.native)
      : loadVllmCpp().render(p.compiled.source, p.built.contextJson, p.native);
  return [p, rendered];
}

/**
 * @internal renderChat's prompt alone, for callers that need nothing else
 * (the batch CLI): the result object and its messages are never made.
 */
export function renderChatPrompt(request: ChatRequestInput, options: RenderChatOptions): string {
  const [p, rendered] = renderPrepared(request, options);
  return promptOf(p, rendered);
}

/**
 * renderChat whose result's `messages` and `tools` may be shared with later
 * requests: read them (serialize them) but never change or keep them.
 */
export function renderChatReadOnly(request: ChatRequestInput, options: RenderChatOptions): RenderChatResult {
  return renderNow(request, options, true);
}

/**
 * renderChat off the event loop: the whole pipeline (decode, validate,
 * post-process, marshal, render) runs in a worker thread of a small pool
 * (src/async); results and errors are those of renderChat. Calls the pool
 * cannot take as they are (the vllm.cpp backend, requests holding PyFloat
 * or class instances) prepare on the calling thread and render on the libuv
 * thread pool. Safe to run many at once.
 */
export async function renderChatAsync<R extends ChatRequest>(
  request: ChatRequestInput<R>,
  options: RenderChatOptions,
): Promise<RenderChatResult> {
  const pooled = renderInPool(request, options);
  if (pooled !== undefined) return pooled;
  const p = prepare(request, options);
  const rendered =
    p.backend === 'embedded'
      ? await p.compiled.renderJsonAsync(p.built.contextJson, p.native)
      : await loadVllmCpp().renderAsync(p.compiled.source, p.built.contextJson, p.native);
  return finish(p, rendered);
}
