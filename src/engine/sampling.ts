/**
 * Sampling: the OpenAI request's generation fields (and vLLM's extensions),
 * validated, resolved to vLLM's defaults, and lowered to what libvllm takes.
 * libvllm's own struct defaults (temperature 1, max_tokens 16) are never
 * inherited: every field is set explicitly.
 */
import { z } from 'zod';
import { RequestValidationError } from '../errors';
import { PyFloat, serializePyJson } from '../protocol/pyjson';
import type { SamplingParams } from './types';

/** vLLM's defaults when neither the request nor generation_config.json sets a field. */
export const VLLM_DEFAULTS = {
  temperature: 1.0,
  top_p: 1.0,
  top_k: 0,
  min_p: 0.0,
  repetition_penalty: 1.0,
  presence_penalty: 0.0,
  frequency_penalty: 0.0,
  min_tokens: 0,
} as const;

/** Keys vLLM reads from generation_config.json as default sampling values (`--generation-config auto`). */
const GENERATION_CONFIG_KEYS = ['temperature', 'top_p', 'top_k', 'min_p', 'repetition_penalty'] as const;

export type ModelDefaults = Partial<Record<(typeof GENERATION_CONFIG_KEYS)[number] | 'max_tokens', number>>;

export function defaultsFromGenerationConfig(config: Record<string, unknown> | undefined): ModelDefaults {
  const out: ModelDefaults = {};
  if (!config) return out;
  for (const k of GENERATION_CONFIG_KEYS) {
    const v = config[k];
    if (typeof v === 'number' && Number.isFinite(v)) out[k] = v;
  }
  if (typeof config.max_new_tokens === 'number') out.max_tokens = config.max_new_tokens;
  return out;
}

const int = z.number().int();
const nonNegInt = int.min(0);

const structuredOutputs = z
  .object({
    json: z.union([z.string(), z.record(z.unknown())]).optional().nullable(),
    regex: z.string().optional().nullable(),
    choice: z.array(z.string()).min(1).optional().nullable(),
    grammar: z.string().optional().nullable(),
    json_object: z.boolean().optional().nullable(),
  })
  .passthrough();

const responseFormat = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }).passthrough(),
  z.object({ type: z.literal('json_object') }).passthrough(),
  z
    .object({
      type: z.literal('json_schema'),
      json_schema: z
        .object({ name: z.string().optional(), schema: z.record(z.unknown()).optional(), strict: z.boolean().nullable().optional() })
        .passthrough(),
    })
    .passthrough(),
]);

/** The generation fields of a request; everything else is the renderer's business (or ignored, as vLLM ignores it). */
export const samplingSchema = z
  .object({
    temperature: z.number().min(0).optional().nullable(),
    top_p: z.number().gt(0).max(1).optional().nullable(),
    top_k: int.min(-1).optional().nullable(),
    min_p: z.number().min(0).max(1).optional().nullable(),
    max_tokens: nonNegInt.min(1).optional().nullable(),
    max_completion_tokens: nonNegInt.min(1).optional().nullable(),
    stop: z.union([z.string(), z.array(z.string()).max(64)]).optional().nullable(),
    seed: int.optional().nullable(),
    presence_penalty: z.number().min(-2).max(2).optional().nullable(),
    frequency_penalty: z.number().min(-2).max(2).optional().nullable(),
    repetition_penalty: z.number().gt(0).optional().nullable(),
    min_tokens: nonNegInt.optional().nullable(),
    ignore_eos: z.boolean().optional().nullable(),
    skip_special_tokens: z.boolean().optional().nullable(),
    response_format: responseFormat.optional().nullable(),
    structured_outputs: structuredOutputs.optional().nullable(),
    n: int.optional().nullable(),
    logprobs: z.boolean().optional().nullable(),
    top_logprobs: int.optional().nullable(),
  })
  .passthrough();

/** Fields we refuse rather than silently ignore: they change what the client gets back. */
const UNSUPPORTED: Record<string, string> = {
  best_of: 'best_of is not supported by the vllm.cpp engine',
  logit_bias: 'logit_bias is not supported by the vllm.cpp engine',
  prompt_logprobs: 'prompt_logprobs is not supported by the vllm.cpp engine',
  echo: 'echo is not supported by the vllm.cpp engine',
  guided_json: 'guided_json was removed from vLLM; use structured_outputs: {json}',
  guided_regex: 'guided_regex was removed from vLLM; use structured_outputs: {regex}',
  guided_choice: 'guided_choice was removed from vLLM; use structured_outputs: {choice}',
  guided_grammar: 'guided_grammar was removed from vLLM; use structured_outputs: {grammar}',
  stop_token_ids: 'stop_token_ids is not supported by the vllm.cpp engine (use stop strings)',
  bad_words: 'bad_words is not supported by the vllm.cpp engine',
  allowed_token_ids: 'allowed_token_ids is not supported by the vllm.cpp engine',
  include_stop_str_in_output: 'include_stop_str_in_output is not supported by the vllm.cpp engine',
};

/** What libvllm receives (the addon converts it to the C struct). */
export interface NativeSampling {
  temperature: number;
  top_p: number;
  top_k: number;
  min_p: number;
  /** 0: unbounded (up to the model length), as vLLM does when max_tokens is unset. */
  max_tokens: number;
  seed?: number;
  presence_penalty: number;
  frequency_penalty: number;
  repetition_penalty: number;
  min_tokens: number;
  ignore_eos: boolean;
  stop: string[];
  structured_json?: string;
  structured_regex?: string;
  structured_choice?: string[];
  structured_grammar?: string;
  structured_json_object?: boolean;
}

export interface ResolvedSampling {
  native: NativeSampling;
  skipSpecialTokens: boolean;
  /** The structured constraint kind, if any. json/json_object are expressible on every entry point. */
  constraint?: 'json' | 'json_object' | 'regex' | 'choice' | 'grammar';
}

function fail(path: string, message: string): never {
  throw new RequestValidationError(message, path, [{ path, message }]);
}

/**
 * Regex features libvllm's constraint compiler does not support. Submitting
 * one kills the whole engine, so they are refused here: lookaround and other
 * `(?...)` groups except `(?:`, and backreferences.
 */
export function checkConstraintRegex(pattern: string, path: string): void {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      const n = pattern[i + 1];
      if (!inClass && n !== undefined && (/[1-9]/.test(n) || n === 'k')) {
        fail(path, `backreferences (\\${n}) are not supported in structured-output regexes`);
      }
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      inClass = true;
      if (pattern[i + 1] === ']') i++;
      continue;
    }
    if (c === '(' && pattern[i + 1] === '?' && pattern[i + 2] !== ':') {
      fail(path, `regex group "(?${pattern[i + 2] ?? ''}" (lookaround, named or inline-flag groups) is not supported in structured-output regexes`);
    }
  }
  try {
    new RegExp(pattern, 'u');
  } catch (e) {
    fail(path, `invalid regex: ${(e as Error).message}`);
  }
}

function zodFail(err: z.ZodError): never {
  const issues = err.issues.map((i) => ({ path: i.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('').replace(/^\./, ''), message: i.message }));
  const first = issues[0];
  throw new RequestValidationError(`${first.path}: ${first.message}`, first.path, issues);
}

/**
 * Validates and resolves a request's generation fields. `defaults` are the
 * model's generation_config values (vLLM applies them when a field is unset).
 */
export function resolveSampling(request: Record<string, unknown>, defaults: ModelDefaults = {}): ResolvedSampling {
  for (const key of Object.keys(UNSUPPORTED)) {
    if (request[key] !== undefined && request[key] !== null && request[key] !== false) fail(key, UNSUPPORTED[key]);
  }
  // Requests decoded from raw text carry Python-typed numbers: integral floats
  // (PyFloat) are plain numbers to the sampler; huge ints are out of range.
  const flat: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(request)) {
    if (v instanceof PyFloat) flat[k] = v.value;
    else if (typeof v === 'bigint') fail(k, `${k} is out of range`);
    else flat[k] = v;
  }
  const parsed = samplingSchema.safeParse(flat);
  if (!parsed.success) zodFail(parsed.error);
  const r = parsed.data as SamplingParams & { n?: number | null; logprobs?: boolean | null; top_logprobs?: number | null };
  if (r.n !== undefined && r.n !== null && r.n !== 1) fail('n', 'n > 1 is not supported by the vllm.cpp engine');
  if (r.logprobs) fail('logprobs', 'logprobs are not supported by the vllm.cpp engine');
  if (r.top_logprobs) fail('top_logprobs', 'top_logprobs are not supported by the vllm.cpp engine');

  const pick = <K extends keyof typeof VLLM_DEFAULTS>(k: K): number => {
    const v = (r as Record<string, unknown>)[k];
    if (typeof v === 'number') return v;
    const d = (defaults as Record<string, number | undefined>)[k];
    return d ?? VLLM_DEFAULTS[k];
  };
  const maxTokens = r.max_completion_tokens ?? r.max_tokens ?? defaults.max_tokens ?? 0;
  const native: NativeSampling = {
    temperature: pick('temperature'),
    top_p: pick('top_p'),
    top_k: pick('top_k') < 0 ? 0 : pick('top_k'),
    min_p: pick('min_p'),
    max_tokens: maxTokens,
    presence_penalty: pick('presence_penalty'),
    frequency_penalty: pick('frequency_penalty'),
    repetition_penalty: pick('repetition_penalty'),
    min_tokens: pick('min_tokens'),
    ignore_eos: r.ignore_eos === true,
    stop: r.stop == null ? [] : typeof r.stop === 'string' ? [r.stop] : [...r.stop],
  };
  if (typeof r.seed === 'number') native.seed = r.seed;

  let constraint: ResolvedSampling['constraint'];
  const so = r.structured_outputs;
  if (so) {
    const set = (['json', 'regex', 'choice', 'grammar', 'json_object'] as const).filter((k) => so[k] !== undefined && so[k] !== null && so[k] !== false);
    if (set.length > 1) fail('structured_outputs', `structured_outputs takes exactly one constraint, got ${set.join(', ')}`);
    if (set.length === 1) constraint = set[0];
    if (so.json != null) native.structured_json = typeof so.json === 'string' ? so.json : serializePyJson(so.json);
    if (so.regex != null) {
      checkConstraintRegex(so.regex, 'structured_outputs.regex');
      native.structured_regex = so.regex;
    }
    if (so.choice != null) native.structured_choice = [...so.choice];
    if (so.grammar != null) native.structured_grammar = so.grammar;
    if (so.json_object) native.structured_json_object = true;
  }
  const rf = r.response_format;
  if (rf && rf.type !== 'text') {
    if (constraint) fail('response_format', 'response_format and structured_outputs cannot both constrain the output');
    if (rf.type === 'json_object') {
      native.structured_json_object = true;
      constraint = 'json_object';
    } else {
      native.structured_json = serializePyJson(rf.json_schema.schema ?? {});
      constraint = 'json';
    }
  }
  return { native, skipSpecialTokens: r.skip_special_tokens !== false, constraint };
}
