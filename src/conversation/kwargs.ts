/**
 * Template keyword arguments: vLLM's `build_chat_params` / `with_defaults` /
 * `merge_kwargs`, `resolve_chat_template_kwargs`, and transformers'
 * `{**special_tokens_map, **kwargs}`.
 */

import { RequestValidationError } from '../errors';
import { isPyDict, pyEntries } from '../protocol/pyjson';

/** Parameter names of transformers' `PreTrainedTokenizer.apply_chat_template` (5.24), without `self`/`**kwargs`. */
export const APPLY_CHAT_TEMPLATE_PARAMS: ReadonlySet<string> = new Set([
  'conversation', 'tools', 'documents', 'chat_template', 'add_generation_prompt', 'continue_final_message',
  'tokenize', 'sanitize_control_tokens', 'padding', 'truncation', 'max_length', 'return_tensors', 'return_dict',
  'return_assistant_tokens_mask', 'tokenizer_kwargs',
]);

/** Names the template receives explicitly from transformers (besides **kwargs). */
const RENDER_NAMED = new Set(['messages', 'tools', 'documents', 'add_generation_prompt']);

export type Kwargs = Map<string, unknown>;

const isUnset = (v: unknown): boolean => v === null || v === undefined || v === 'auto';

/** `defaults | {k: v for k, v in overrides.items() if v not in (None, "auto")}` */
export function mergeKwargs(defaults: Kwargs | null, overrides: Kwargs | null): Kwargs {
  const out = new Map(defaults ?? []);
  for (const [k, v] of overrides ?? []) if (!isUnset(v)) out.set(k, v);
  return out;
}

export function kwargsFrom(obj: unknown): Kwargs | null {
  if (obj === null || obj === undefined) return null;
  if (obj instanceof Map) return new Map(obj);
  if (isPyDict(obj)) return new Map(pyEntries(obj));
  return null;
}

export interface KwargsInput {
  requestKwargs: Kwargs | null; // request.chat_template_kwargs
  serverKwargs: Kwargs | null; // server defaults
  addGenerationPrompt: boolean;
  continueFinalMessage: boolean;
  documents: unknown;
  reasoningEffort: unknown;
  toolDicts: unknown[] | null;
}

/** The merged `chat_template_kwargs` vLLM passes to `safe_apply_chat_template` (tools included). */
export function buildChatKwargs(input: KwargsInput): Kwargs {
  for (const source of [input.requestKwargs, input.serverKwargs]) {
    if (!source) continue;
    const ct = source.get('chat_template');
    if (ct !== null && ct !== undefined) {
      throw new RequestValidationError(
        'chat_template_kwargs.chat_template: Chat template is passed with request, but --trust-request-chat-template is not set. Refused request with untrusted chat template.',
        'chat_template_kwargs.chat_template',
      );
    }
    if (source.has('tokenize') && !isUnset(source.get('tokenize'))) {
      throw new RequestValidationError(
        "chat_template_kwargs.tokenize: Found unexpected chat template kwargs from request: {'tokenize'}",
        'chat_template_kwargs.tokenize',
      );
    }
  }
  const extra: Kwargs = new Map<string, unknown>([
    ['add_generation_prompt', input.addGenerationPrompt],
    ['continue_final_message', input.continueFinalMessage],
    ['documents', input.documents ?? null],
    ['reasoning_effort', input.reasoningEffort ?? null],
  ]);
  const userKwargs = input.requestKwargs ?? new Map();
  if (input.reasoningEffort !== null && input.reasoningEffort !== undefined && !userKwargs.has('enable_thinking')) {
    extra.set('enable_thinking', input.reasoningEffort !== 'none');
  }
  const chatKwargs = mergeKwargs(input.requestKwargs, extra);
  const defaults = mergeKwargs(input.serverKwargs, new Map<string, unknown>([['tools', input.toolDicts], ['tokenize', false]]));
  return mergeKwargs(defaults, chatKwargs);
}

export interface ResolvedVariables {
  tools: unknown;
  documents: unknown;
  addGenerationPrompt: unknown;
  continueFinalMessage: unknown;
  /** Special tokens merged with the accepted free kwargs (kwargs win). */
  extra: Kwargs;
}

/**
 * Split the merged kwargs into what `apply_chat_template` consumes and what
 * reaches the template, keeping only kwargs the template references (or that
 * are apply_chat_template's own parameters).
 */
export function resolveTemplateVariables(
  kwargs: Kwargs,
  undeclared: ReadonlySet<string>,
  specialTokens: Record<string, unknown> | undefined,
): ResolvedVariables {
  const named = new Map<string, unknown>();
  const free: Kwargs = new Map();
  for (const [k, v] of kwargs) {
    if (k === 'tools' || k === 'tokenize' || k === 'chat_template' || k === 'return_assistant_tokens_mask') {
      named.set(k, v);
      continue;
    }
    if (!APPLY_CHAT_TEMPLATE_PARAMS.has(k) && !undeclared.has(k)) continue; // silently dropped
    if (APPLY_CHAT_TEMPLATE_PARAMS.has(k)) {
      if (k === 'conversation') {
        throw new RequestValidationError(
          "chat_template_kwargs.conversation: apply_chat_template() got multiple values for keyword argument 'conversation'",
          'chat_template_kwargs.conversation',
        );
      }
      named.set(k, v);
      continue;
    }
    if (RENDER_NAMED.has(k)) {
      throw new RequestValidationError(
        `chat_template_kwargs.${k}: render() got multiple values for keyword argument '${k}'`,
        `chat_template_kwargs.${k}`,
      );
    }
    free.set(k, v);
  }
  const extra: Kwargs = new Map();
  for (const [k, v] of Object.entries(specialTokens ?? {})) if (v) extra.set(k, v);
  for (const [k, v] of free) extra.set(k, v);
  return {
    tools: named.has('tools') ? named.get('tools') : null,
    documents: named.has('documents') ? named.get('documents') : null,
    addGenerationPrompt: named.has('add_generation_prompt') ? named.get('add_generation_prompt') : false,
    continueFinalMessage: named.has('continue_final_message') ? named.get('continue_final_message') : false,
    extra,
  };
}
