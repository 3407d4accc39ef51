/**
 * Request -> template variables, as vLLM 0.25.0 (+ the transformers it
 * installs) builds them: validate, build messages, post-process tool calls,
 * shape tools, resolve kwargs, and serialize for the native renderer.
 */

import { RequestValidationError } from '../errors';
import { defineLazy } from '../lazy';
import { checkRequestBounds } from '../protocol/bounds';
import {
  decodePyJson, isPyDict, NESTING_TOO_DEEP, nestingPath, PreEncoded, pyDeepCopy, PyJsonDecodeError, pyTruthy, serializePyJson,
  SharedMembers, type SharedMember,
} from '../protocol/pyjson';
import { ChatCompletionRequestSchema, formatPath, isCertainlyValidRequest, validateRequest } from '../protocol/schemas';
import { convertDeveloperToSystem, templateSupportsDeveloper } from './developer';
import { buildChatKwargs, kwargsFrom, resolveTemplateVariables } from './kwargs';
import { buildMessage, usesOfflineToolCalls } from './messages';
import { postprocessMessages } from './tool-arguments';
import { normalizeForTemplate } from './template-inputs';
import { shapeTools } from './tools';
import { prepareContinueFinal } from './continue-final';
import { isReusedStandIn, RecentConversations, reusedParts, type BuiltMessages, type Reused } from './history';
import { itemEnds } from '../protocol/json-spans';
import type { ArgumentsPolicy, BuildOptions, BuiltContext, ContentFormat, TemplateFacts } from './types';

export type {
  ArgumentsPolicy,
  BuildOptions,
  BuiltContext,
  ContentFormat,
  ContinueFinalState,
  TemplateFacts,
} from './types';
export { cutContinueFinal, prepareContinueFinal, CONTINUE_FINAL_MESSAGE_TAG } from './continue-final';
export { normalizeContent, collapseToolContent } from './content';
export { buildMessage, reorderToolCall, renameReasoningContent, usesOfflineToolCalls } from './messages';
export { postprocessMessages } from './tool-arguments';
export { shapeTools } from './tools';
export { mergeKwargs, buildChatKwargs, resolveTemplateVariables, APPLY_CHAT_TEMPLATE_PARAMS } from './kwargs';
export { convertDeveloperToSystem, templateSupportsDeveloper } from './developer';
export { normalizeForTemplate } from './template-inputs';
export { RecentConversations } from './history';
export type { BuiltMessages, Reused } from './history';
export {
  parsePyJson,
  serializePyJson,
  PyFloat,
  PyJsonDecodeError,
  PY_KEYS,
  pyKeys,
  pyEntries,
  makePyDict,
  isPyDict,
  pyTypeName,
  pyTruthy,
  pyFloatRepr,
  pyDeepCopy,
} from '../protocol/pyjson';
export type { PyValue, PyDict } from '../protocol/pyjson';
export * from '../protocol/schemas';

const has = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/**
 * A request as a value, and whether it is already known to meet the request
 * bounds (protocol/bounds): raw text that decoded without any surrogate is
 * (the decoder has the same depth bound), an object given by the caller is
 * not and gets the bounds walk.
 */
export interface DecodedRequest {
  value: Record<string, unknown>;
  bounded: boolean;
  /**
   * Set when `value.tools` is a value shared with earlier requests whose
   * `tools` text was the same (decodeRequest's `shareTools`): read only,
   * never handed out; buildContext shapes and serializes it once.
   */
  sharedTools?: SharedMember;
  /**
   * Set when the first `reused.count` messages are those of a kept
   * conversation (decodeRequest's `history`): `value.messages` then holds
   * only the messages after them, and buildContext takes the kept ones.
   */
  reused?: Reused;
}

/** The `tools` texts of recent raw-text requests (an agent sends the same tools with every turn). */
const recentTools = new SharedMembers('tools');

/** What buildContext derives once from a shared `tools` value. */
interface SharedToolsForms {
  /** shapeTools of the value (shared, read only). */
  shaped: unknown[] | null;
  /** Its compact serialization, written into every context that uses it. */
  json: PreEncoded | undefined;
}

/**
 * The request as a value: raw JSON text is decoded with Python json.loads
 * semantics (a too-deep text is refused with the path where it went too
 * deep). The context builder checks the structural bounds of the result.
 */
export function decodeRequest(
  request: unknown,
  options: { shareTools?: boolean; history?: RecentConversations } = {},
): DecodedRequest {
  let value = request;
  let bounded = false;
  let sharedTools: SharedMember | undefined;
  if (typeof request === 'string') {
    const shared = options.shareTools === true ? recentTools : undefined;
    if (options.history !== undefined) {
      const reused = decodeReusing(request, options.history, shared);
      if (reused !== undefined) return reused;
    }
    try {
      const decoded = decodePyJson(request, shared);
      value = decoded.value;
      bounded = !decoded.surrogates;
      sharedTools = decoded.shared;
    } catch (e) {
      if (!(e instanceof PyJsonDecodeError)) throw e;
      const deep = e.msg === NESTING_TOO_DEEP ? nestingPath(request) : undefined;
      if (deep) {
        const where = formatPath(deep);
        throw new RequestValidationError(`${where ? where + ': ' : ''}Invalid JSON body: ${e.message}`, where);
      }
      throw new RequestValidationError(`Invalid JSON body: ${e.message}`, '');
    }
  }
  if (!isPyDict(value)) throw new RequestValidationError('The request body must be a JSON object', '');
  return sharedTools === undefined ? { value: value as Record<string, unknown>, bounded } : { value: value as Record<string, unknown>, bounded, sharedTools };
}

/**
 * The request with the messages of a kept conversation it continues left
 * out (history): undefined when none is kept or the rest does not decode as
 * the plain case (the full decode then gives the value or the error).
 */
function decodeReusing(text: string, history: RecentConversations, shared: SharedMembers | undefined): DecodedRequest | undefined {
  const reused = history.find(text);
  if (reused === undefined) return undefined;
  let d;
  try {
    d = decodePyJson(history.splice(text, reused), shared);
  } catch {
    return undefined;
  }
  const v = d.value;
  if (!isPyDict(v)) return undefined;
  const messages = v['messages'];
  if (!Array.isArray(messages) || !isReusedStandIn(messages[0])) return undefined;
  v['messages'] = messages.slice(1);
  const out: DecodedRequest = { value: v as Record<string, unknown>, bounded: !d.surrogates, reused };
  if (d.shared !== undefined) out.sharedTools = d.shared;
  return out;
}

/** decodeRequest's value. */
export function toRequestValue(request: unknown): Record<string, unknown> {
  return decodeRequest(request).value;
}

export function buildTemplateContext(request: unknown, facts: TemplateFacts, options: BuildOptions = {}): BuiltContext {
  return buildContext(decodeRequest(request), facts, options);
}

/** buildTemplateContext of an already decoded request. */
export function buildContext(decoded: DecodedRequest, facts: TemplateFacts, options: BuildOptions = {}): BuiltContext {
  const { built, shared } = buildContextKeeping(decoded, facts, options, false);
  // shared tools and kept messages are read only: the result gets its own copy, made when first read
  if (shared.tools !== undefined) defineLazy(built, 'tools', () => pyDeepCopy(shared.tools!));
  if (shared.messages !== undefined) defineLazy(built, 'messages', () => pyDeepCopy(shared.messages!));
  return built;
}

/**
 * Members of a BuiltContext left empty because their values are shared with
 * other requests (tools kept from a recent request, kept messages): those
 * values, read only. Whoever hands them out makes a copy (pyDeepCopy).
 */
export interface SharedValues {
  messages?: unknown[];
  tools?: unknown[] | null;
}

/** The content format a build uses: the option's, unless it is absent or `auto`, then the template's. */
export function resolveContentFormat(option: 'auto' | ContentFormat | undefined, detected: ContentFormat): ContentFormat {
  return option && option !== 'auto' ? option : detected;
}

/** A request that continues a kept conversation is not the plain case; it is built from scratch instead. */
export class NotReusable extends Error {}

const isDeveloper = (m: Record<string, unknown>): boolean => m['role'] === 'developer';

/**
 * buildContext, and with `keep` (or a request that reused kept messages)
 * what it built from the messages, for RecentConversations. A request
 * with `decoded.reused` throws NotReusable (or any error of the rest) where
 * it is not the plain case; the caller then decodes and builds it again
 * without the kept messages. `planned`: the request's messages were taken
 * out (an empty list) to be built natively from plans (conversation/planned);
 * the context gets an empty `messages` list, and NotReusable is thrown where
 * the messages would need more than their plans.
 */
export function buildContextKeeping(
  decoded: DecodedRequest,
  facts: TemplateFacts,
  options: BuildOptions,
  keep: boolean,
  tailKey?: string,
  planned = false,
): { built: BuiltContext; shared: SharedValues; messages?: BuiltMessages } {
  const req = decoded.value;
  const reused = decoded.reused;
  // nesting depth and lone surrogates (protocol/bounds), before any recursive walk
  if (!decoded.bounded) checkRequestBounds(req);
  if (reused !== undefined) {
    if (!isCertainlyValidRequest(req)) throw new NotReusable();
  } else {
    validateRequest(ChatCompletionRequestSchema, req);
  }
  const policy = options.policy ?? 'strict';
  const format = resolveContentFormat(options.contentFormat, facts.contentFormat);

  const addGenerationPrompt =
    options.addGenerationPrompt ?? (has(req, 'add_generation_prompt') ? (req['add_generation_prompt'] as boolean) : true);
  const continueFinalMessage =
    options.continueFinalMessage ?? (has(req, 'continue_final_message') ? (req['continue_final_message'] as boolean) : false);
  // request-level validator (on the raw values)
  if (continueFinalMessage && pyTruthy(options.addGenerationPrompt ?? req['add_generation_prompt'])) {
    throw new RequestValidationError(
      'continue_final_message: Cannot set both `continue_final_message` and `add_generation_prompt` to True.',
      'continue_final_message',
    );
  }
  if (req['chat_template'] !== null && req['chat_template'] !== undefined) {
    throw new RequestValidationError(
      'chat_template: Chat template is passed with request, but --trust-request-chat-template is not set. Refused request with untrusted chat template.',
      'chat_template',
    );
  }

  // A shared tools value (the same tools text as a recent request) is shaped
  // and serialized once; the result gets its own copy of the shaped tools.
  const shared = decoded.sharedTools !== undefined && req['tools'] === decoded.sharedTools.value ? decoded.sharedTools : undefined;
  let sharedForms: SharedToolsForms | undefined;
  if (shared !== undefined) {
    sharedForms = shared.derived as SharedToolsForms | undefined;
    if (sharedForms === undefined) shared.derived = sharedForms = { shaped: shapeTools(shared.value), json: undefined };
  }
  const tools = sharedForms !== undefined ? sharedForms.shaped : shapeTools(req['tools']);
  const kwargs = buildChatKwargs({
    requestKwargs: kwargsFrom(req['chat_template_kwargs']),
    serverKwargs: kwargsFrom(options.chatTemplateKwargs),
    addGenerationPrompt,
    continueFinalMessage,
    documents: req['documents'],
    reasoningEffort: req['reasoning_effort'],
    toolDicts: tools,
  });

  const warnings: string[] = [];
  const rawMessages = req['messages'] as Record<string, unknown>[];
  // the kept messages (a conversation this request continues), built as this request needs them
  const prior = reused !== undefined ? reusedMessages(reused, format, policy) : undefined;
  const base = reused !== undefined ? reused.count : 0;
  const part = buildMessagesPart(rawMessages, format, policy, facts, prior, base, warnings);
  const { built0, offline, offlineHere } = part;
  const conversation = part.conversation;

  const resolved = resolveTemplateVariables(kwargs, facts.undeclaredVariables, options.specialTokens);
  // transformers' apply_chat_template, before anything else it checks
  if (conversation.length === 0 && prior === undefined && !planned) {
    throw new RequestValidationError(
      'messages: Cannot apply chat template to an empty conversation. Provide at least one message.',
      'messages',
    );
  }
  if (resolved.continueFinalMessage && resolved.addGenerationPrompt) {
    throw new RequestValidationError(
      'continue_final_message: continue_final_message and add_generation_prompt are not compatible. Use continue_final_message when you want the model to continue the final message, and add_generation_prompt when you want to add a header that will prompt it to start a new assistant message instead.',
      'continue_final_message',
    );
  }
  const documents = resolved.documents ?? null;
  if (documents !== null && (!Array.isArray(documents) || !documents.every(isPyDict))) {
    throw new RequestValidationError("documents: Documents should be a list of dicts with 'title' and 'text' keys!", 'documents');
  }

  if (prior !== undefined && options.transformersNormalization === false) throw new NotReusable();
  // (planned messages, built natively, are those of a plain request: no continue-final tag, normalized)
  if (planned && (resolved.continueFinalMessage || options.transformersNormalization === false)) throw new NotReusable();
  const fresh = options.transformersNormalization === false ? conversation : normalizeForTemplate(conversation);
  const messages = prior !== undefined ? prior.objects.concat(fresh) : fresh;
  let templateMessages: unknown[] = messages;
  let continueFinal = null;
  if (resolved.continueFinalMessage) {
    const prepared = prepareContinueFinal(messages, facts.templateSource);
    templateMessages = prepared.messages;
    continueFinal = prepared.state;
  }

  const sharedShaped = sharedForms !== undefined && resolved.tools === sharedForms.shaped && sharedForms.shaped !== null;
  let toolsVar: unknown = resolved.tools ?? null;
  if (sharedShaped) toolsVar = sharedForms!.json ??= new PreEncoded(serializePyJson(sharedForms!.shaped, { compact: true }));
  // What the messages built, kept for later turns: only when each message
  // built one template message on its own (no developer conversion, no
  // continue-final tag, no lenient coercion notes).
  let kept: BuiltMessages | undefined;
  let messagesVar: unknown = templateMessages;
  const keepable =
    (keep || prior !== undefined) && !resolved.continueFinalMessage && warnings.length === 0 && conversation === built0 &&
    options.transformersNormalization !== false;
  if (keepable) {
    kept = keptMessages(rawMessages, fresh, messages as Record<string, unknown>[], prior, base, { format, policy, offline }, offlineHere);
    messagesVar = new PreEncoded(`[${kept.json}]`);
  }
  const vars = new Map<string, unknown>([
    ['messages', messagesVar],
    ['tools', toolsVar],
    ['documents', documents],
    ['add_generation_prompt', resolved.addGenerationPrompt],
  ]);
  for (const [k, v] of resolved.extra) vars.set(k, v);

  const built: BuiltContext = {
    contextJson: serializePyJson(vars, { compact: true }),
    // (kept or reused message objects are shared with later requests: see sharedValues)
    messages: kept !== undefined || prior !== undefined ? [] : messages,
    tools: (sharedShaped ? null : (resolved.tools ?? null)) as unknown[] | null,
    templateVariables: [...vars.keys()],
    warnings,
    continueFinal,
  };
  const sharedValues: SharedValues = {};
  if (sharedShaped) sharedValues.tools = sharedForms!.shaped;
  if (kept !== undefined || prior !== undefined) sharedValues.messages = messages;
  if (kept !== undefined && tailKey !== undefined && (sharedShaped || toolsVar === null)) {
    // everything after the messages, for a next turn whose request differs only in them (buildNextTurn)
    // (the context JSON begins with CONTEXT_HEAD, the kept messages' JSON and the array's `]`)
    const end = CONTEXT_HEAD.length + kept.json.length + 1;
    const json = built.contextJson;
    if (json.length > end && json.startsWith(CONTEXT_HEAD) && json.charCodeAt(end - 1) === 0x5d && json.charCodeAt(end) === 0x2c) {
      kept.tail = { key: tailKey, json: json.slice(end), tools: sharedShaped ? sharedForms!.shaped : null, templateVariables: built.templateVariables };
    }
  }
  return kept === undefined ? { built, shared: sharedValues } : { built, shared: sharedValues, messages: kept };
}

/** How the template variables' JSON begins (the serializer writes `messages` first). */
const CONTEXT_HEAD = '{"messages":[';

/**
 * Steps 1-4 for a request's messages (built on `prior`, the kept ones, when
 * given): build each message, post-process the tool calls, and convert
 * developer messages for a template that does not handle the role. With
 * `prior`, throws NotReusable where the result would not be what a build
 * of the whole conversation gives.
 */
export function buildMessagesPart(
  rawMessages: Record<string, unknown>[],
  format: ContentFormat,
  policy: ArgumentsPolicy,
  facts: TemplateFacts,
  prior: BuiltMessages | undefined,
  base: number,
  warnings: string[],
): { built0: Record<string, unknown>[]; conversation: Record<string, unknown>[]; offline: boolean; offlineHere: boolean } {
  const offlineHere = usesOfflineToolCalls(rawMessages);
  const offline = prior !== undefined ? (prior.offlineAt >= 0 && prior.offlineAt < base) || offlineHere : offlineHere;
  if (prior !== undefined && offline !== prior.mode.offline) throw new NotReusable();
  const built0 = rawMessages.map((m, i) => buildMessage(m, format, base + i, offline));
  let conversation = built0;
  postprocessMessages(conversation, policy, warnings);
  if (prior !== undefined && warnings.length > 0) throw new NotReusable();

  const supportsDeveloper =
    facts.supportsDeveloperRole ?? (facts.templateSource !== undefined ? templateSupportsDeveloper(facts.templateSource) : false);
  if (!supportsDeveloper) {
    if (prior !== undefined && ((prior.developerAt >= 0 && prior.developerAt < base) || conversation.some(isDeveloper))) throw new NotReusable();
    conversation = convertDeveloperToSystem(conversation);
  }
  return { built0, conversation, offline, offlineHere };
}

/** What a request's messages built, to keep: the template messages and their JSON, after `prior`'s. */
function keptMessages(
  rawMessages: Record<string, unknown>[],
  fresh: Record<string, unknown>[],
  messages: Record<string, unknown>[],
  prior: BuiltMessages | undefined,
  base: number,
  mode: BuiltMessages['mode'],
  offlineHere: boolean,
): BuiltMessages {
  const freshJson = serializePyJson(fresh, { compact: true }).slice(1, -1);
  const json = prior === undefined ? freshJson : freshJson === '' ? prior.json : `${prior.json},${freshJson}`;
  let offlineAt = prior !== undefined && prior.offlineAt >= 0 && prior.offlineAt < base ? prior.offlineAt : -1;
  let developerAt = prior !== undefined && prior.developerAt >= 0 && prior.developerAt < base ? prior.developerAt : -1;
  for (let i = 0; i < rawMessages.length && (offlineAt < 0 || developerAt < 0); i++) {
    if (offlineAt < 0 && offlineHere && usesOfflineToolCalls([rawMessages[i]])) offlineAt = base + i;
    if (developerAt < 0 && isDeveloper(fresh[i]!)) developerAt = base + i;
  }
  return { mode, objects: messages, json, offlineAt, developerAt };
}

/**
 * The next turn of a kept conversation, built from its new messages alone:
 * when the request text differs from the kept one only in messages after
 * the kept ones (the same text before and after the messages array) and it
 * is rendered with the same template and options (`key`), every template
 * variable but `messages` is what the kept request had, so only the new
 * messages are decoded (at the depth they have in the request), checked,
 * built and serialized, and the rest of the context JSON is the kept one.
 * Undefined where that does not hold or anything is not the plain case (the
 * caller then takes the usual path, which gives the value or the error).
 */
export function buildNextTurn(
  text: string,
  history: RecentConversations,
  key: string,
  facts: TemplateFacts,
  options: BuildOptions,
): { built: BuiltContext; shared: SharedValues; messages: BuiltMessages; reused: Reused } | undefined {
  const reused = history.find(text);
  if (reused === undefined) return undefined;
  const k = reused.kept;
  const tail = k.tail;
  if (tail === undefined || tail.key !== key || options.transformersNormalization === false) return undefined;
  try {
    const span = k.span!;
    const rest = itemEnds(text, reused.at, false);
    if (text.length - rest.close !== k.text.length - span.close || text.slice(rest.close) !== k.text.slice(span.close)) return undefined;
    const d = decodePyJson(`{"m":[null${text.slice(reused.at, rest.close)}]}`);
    if (d.surrogates) return undefined;
    const rawMessages = ((d.value as Record<string, unknown>)['m'] as unknown[]).slice(1) as Record<string, unknown>[];
    if (!isCertainlyValidRequest({ messages: rawMessages })) return undefined;
    const policy = options.policy ?? 'strict';
    const format = resolveContentFormat(options.contentFormat, facts.contentFormat);
    const prior = reusedMessages(reused, format, policy);
    const base = reused.count;
    const warnings: string[] = [];
    const part = buildMessagesPart(rawMessages, format, policy, facts, prior, base, warnings);
    const fresh = normalizeForTemplate(part.conversation);
    const messages = prior.objects.concat(fresh);
    const kept = keptMessages(rawMessages, fresh, messages, prior, base, { format, policy, offline: part.offline }, part.offlineHere);
    kept.tail = tail;
    const built: BuiltContext = {
      contextJson: `${CONTEXT_HEAD}${kept.json}]${tail.json}`,
      messages: [],
      tools: null,
      templateVariables: tail.templateVariables.slice(),
      warnings,
      continueFinal: null,
    };
    const shared: SharedValues = { messages };
    if (tail.tools !== null) shared.tools = tail.tools;
    return { built, shared, messages: kept, reused };
  } catch {
    return undefined;
  }
}

/** The kept messages a request reuses, when they were built the way this request builds its messages. */
function reusedMessages(reused: Reused, format: ContentFormat, policy: ArgumentsPolicy): BuiltMessages {
  const k = reused.kept;
  if (k.mode.format !== format || k.mode.policy !== policy) throw new NotReusable();
  const parts = reusedParts(reused);
  if (parts === undefined) throw new NotReusable();
  return { mode: k.mode, objects: parts.objects, json: parts.json, offlineAt: k.offlineAt, developerAt: k.developerAt };
}

