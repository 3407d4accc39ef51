/**
 * Planned messages: the request text's messages built by the native side
 * from plans this module makes, so that a request is decoded once, natively,
 * and no per-message object is made in JavaScript.
 *
 * The native side (native/conversation/plan) parses the request and writes
 * each message's *shape*: the message with every non-empty string under an
 * opaque key (OPAQUE_KEYS: strings whose text no rule here looks at) put as
 * a numbered slot marker. A shape seen for the first time is planned here:
 * the shape, decoded, is a message like any other (a probe), and it goes
 * through the same validation and building as every message does
 * (buildMessagesPart, normalizeForTemplate). The template message that
 * comes out, with the markers where the probe's strings went, is the plan:
 * the native side fills each message's own strings into its shape's plan.
 *
 * The marker is itself a JSON text, `{"\u0000<nonce>":k}`, so a rule that
 * decodes a string as JSON (a tool call's `arguments`) turns it into a
 * one-key object the plan keeps as "slot k, decoded": the native side then
 * decodes that message's string, and takes it only when it is an object
 * (anything else declines). A probe that the rules reject, that gives
 * warnings, that needs other messages (developer roles a template does not
 * take, vLLM's offline tool-call shapes), or whose markers end up inside
 * other text or keys, gets no plan, and its requests take the usual path.
 * The nonce is drawn when the process starts, so no request can spell a
 * marker.
 */

import { randomBytes } from 'node:crypto';
import { decodePyJson, isPyDict, serializePyJson } from '../protocol/pyjson';
import { ChatCompletionRequestSchema, validateRequest } from '../protocol/schemas';
import { templateSupportsDeveloper } from './developer';
import { buildMessagesPart } from './index';
import { usesOfflineToolCalls } from './messages';
import { normalizeForTemplate } from './template-inputs';
import type { ArgumentsPolicy, ContentFormat, TemplateFacts } from './types';

/**
 * Keys whose string values no rule reads beyond "a string, empty or not"
 * (and, for `arguments`, its JSON): message text, names and ids, reasoning,
 * text parts, tool-call arguments.
 */
export const OPAQUE_KEYS: readonly string[] = ['content', 'text', 'name', 'tool_call_id', 'id', 'arguments', 'reasoning', 'reasoning_content', 'thinking'];

/** Nesting the planned path takes (deeper requests take the usual path, which has the full bound). */
const PLANNED_MAX_DEPTH = 64;

const NONCE = randomBytes(16).toString('hex');

/** The native side's settings for one build mode (plans are kept per config). */
function configOf(format: ContentFormat, policy: ArgumentsPolicy, developer: boolean): string {
  return [NONCE, String(PLANNED_MAX_DEPTH), `${format}/${policy}/${developer ? 'developer' : 'system'}`, ...OPAQUE_KEYS].join('\n');
}

const configs = new Map<string, string>();

/** A request taken apart natively, with plans for the shapes it brought. */
export interface PlannedRequest {
  /** The request's JSON with `messages` an empty list. */
  rest: string;
  /** Names the native state of this request (this thread, until the next one). */
  ticket: number;
  /** Config, then (shape, plan JSON) pairs for the native side to keep; null when none are new. */
  plans: string[] | null;
}

/**
 * Takes `text` apart natively (`planRequest`), planning the shapes seen for
 * the first time. Undefined where the request is not the plain case (the
 * usual path then gives its value or its error).
 */
export function planRequestText(
  text: string,
  native: { planRequest(text: string, config: string): [string, number, ...string[]] | null | false; keepPlans(plans: string[]): void },
  format: ContentFormat,
  policy: ArgumentsPolicy,
  facts: TemplateFacts,
): PlannedRequest | undefined {
  const developer = facts.supportsDeveloperRole ?? (facts.templateSource !== undefined ? templateSupportsDeveloper(facts.templateSource) : false);
  const tag = `${format}/${policy}/${developer ? 'd' : 's'}`;
  let config = configs.get(tag);
  if (config === undefined) configs.set(tag, (config = configOf(format, policy, developer)));
  const r = native.planRequest(text, config);
  // (false: an agent's next turn, which the usual path builds on the messages it keeps of the turn before)
  if (r === null || r === false) return undefined;
  if (r.length === 2) return { rest: r[0], ticket: r[1], plans: null };
  const plans: string[] = [config];
  let plannable = true;
  for (let i = 2; i < r.length; i++) {
    const shape = r[i] as string;
    const plan = planShape(shape, format, policy, facts, developer);
    if (plan === '') plannable = false;
    plans.push(shape, plan);
  }
  if (plannable) return { rest: r[0], ticket: r[1], plans };
  // a shape that cannot be planned is kept as such, so that the native side declines its requests first thing
  native.keepPlans(plans);
  return undefined;
}

/** The plan of one shape: the template message its probe builds, as JSON; '' when it has none. */
export function planShape(shape: string, format: ContentFormat, policy: ArgumentsPolicy, facts: TemplateFacts, developer: boolean): string {
  try {
    const d = decodePyJson(shape);
    const probe = d.value;
    if (d.surrogates || !isPyDict(probe)) return '';
    const messages = [probe as Record<string, unknown>];
    validateRequest(ChatCompletionRequestSchema, { messages });
    if (usesOfflineToolCalls(messages)) return '';
    if (!developer && probe['role'] === 'developer') return '';
    const warnings: string[] = [];
    const part = buildMessagesPart(messages, format, policy, { ...facts, supportsDeveloperRole: developer }, undefined, 0, warnings);
    if (warnings.length > 0 || part.conversation !== part.built0 || part.conversation.length !== 1) return '';
    return serializePyJson(normalizeForTemplate(part.conversation)[0], { compact: true });
  } catch {
    return '';
  }
}
