/**
 * renderChat: request -> validate -> vLLM post-processing -> marshal -> native render -> prompt.
 */
import { buildTemplateContext, cutContinueFinal, toRequestValue, type ArgumentsPolicy, type BuiltContext, type ContentFormat } from './conversation';
import { BackendError, TemplateLoadError } from './errors';
import { wallClock, type NowInput } from './native/clock';
import { CompiledTemplate, compileTemplate, type NativeRenderOptions, type RenderLimits } from './native/embedded';
import { loadVllmCpp } from './native/vllm-cpp';
import { loadTemplateFromPath } from './templates/load';

export type Backend = 'embedded' | 'vllm.cpp';

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
}

export interface RenderChatResult {
  /** The prompt string vLLM would tokenize. */
  prompt: string;
  /** The conversation as the template saw it (after vLLM's post-processing). */
  messages: unknown[];
  /** The tool dicts the template saw, or null. */
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
  native: NativeRenderOptions;
  backend: Backend;
  contentFormat: ContentFormat;
}

function hasTools(request: Record<string, unknown>): boolean {
  const tools = request.tools;
  return Array.isArray(tools) && tools.length > 0;
}

function prepare(input: unknown, options: RenderChatOptions): Prepared {
  // Raw request text is decoded once, losslessly, before anything looks at it.
  const request = toRequestValue(input);
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
  const specialTokens: Record<string, string> = { ...configTokens, ...options.specialTokens };
  if (options.bosToken !== undefined) specialTokens.bos_token = options.bosToken;
  if (options.eosToken !== undefined) specialTokens.eos_token = options.eosToken;
  const built = buildTemplateContext(
    request,
    { contentFormat: compiled.contentFormat, undeclaredVariables: compiled.undeclaredVariables, templateSource: compiled.source },
    {
      policy: options.policy,
      contentFormat: options.contentFormat,
      specialTokens,
      chatTemplateKwargs: options.chatTemplateKwargs,
      addGenerationPrompt: options.addGenerationPrompt,
      continueFinalMessage: options.continueFinalMessage,
    },
  );
  const native: NativeRenderOptions = {
    now: wallClock(options.now),
    maxOutputBytes: options.maxOutputBytes,
    maxSteps: options.maxSteps,
    maxDepth: options.maxDepth,
  };
  const contentFormat = options.contentFormat && options.contentFormat !== 'auto' ? options.contentFormat : compiled.contentFormat;
  return { compiled, built, native, backend, contentFormat };
}

function finish(p: Prepared, rendered: string): RenderChatResult {
  const prompt = p.built.continueFinal ? cutContinueFinal(rendered, p.built.continueFinal) : rendered;
  return {
    prompt,
    messages: p.built.messages,
    tools: p.built.tools,
    contentFormat: p.contentFormat,
    warnings: p.built.warnings,
    templateHash: p.compiled.hash,
    backend: p.backend,
  };
}

/**
 * Renders an OpenAI Chat Completions request (an object, or the raw JSON text
 * of the request body for full numeric/key-order fidelity) into the prompt
 * string pinned vLLM builds.
 */
export function renderChat(request: unknown, options: RenderChatOptions): RenderChatResult {
  const p = prepare(request, options);
  const rendered =
    p.backend === 'embedded'
      ? p.compiled.renderJson(p.built.contextJson, p.native)
      : loadVllmCpp().render(p.compiled.source, p.built.contextJson, p.native);
  return finish(p, rendered);
}

/** renderChat off the event loop (N-API async work); safe to run many at once. */
export async function renderChatAsync(request: unknown, options: RenderChatOptions): Promise<RenderChatResult> {
  const p = prepare(request, options);
  const rendered =
    p.backend === 'embedded'
      ? await p.compiled.renderJsonAsync(p.built.contextJson, p.native)
      : await loadVllmCpp().renderAsync(p.compiled.source, p.built.contextJson, p.native);
  return finish(p, rendered);
}
