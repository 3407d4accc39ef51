/**
 * vLLM's `_postprocess_messages`: validates assistant tool-call entries and
 * decodes each `function.arguments` JSON string with Python semantics.
 */

import { RequestValidationError, ToolArgumentsError } from '../errors';
import { isPyDict, parsePyJson, PyJsonDecodeError, pyTruthy, pyTypeName } from '../protocol/pyjson';
import type { ArgumentsPolicy } from './types';

function decodeArguments(
  args: unknown,
  where: string,
  policy: ArgumentsPolicy,
  warnings: string[],
): unknown {
  if (!pyTruthy(args)) return {};
  if (policy === 'strict') {
    if (Array.isArray(args) || isPyDict(args)) return args;
    if (typeof args !== 'string') {
      const reason = `the JSON object must be str, bytes or bytearray, not ${pyTypeName(args)}`;
      throw new ToolArgumentsError(`${where}: ${reason}`, where, reason);
    }
    let decoded: unknown;
    try {
      decoded = parsePyJson(args);
    } catch (e) {
      if (e instanceof PyJsonDecodeError) throw new ToolArgumentsError(`${where}: ${e.message}`, where, e.message);
      throw e;
    }
    return decoded === null ? {} : decoded;
  }
  // lenient (newer vLLM): anything that is not an object becomes {} with a warning
  let decoded: unknown = args;
  if (typeof args === 'string') {
    try {
      decoded = parsePyJson(args);
    } catch (e) {
      if (!(e instanceof PyJsonDecodeError)) throw e;
      warnings.push(`${where}: invalid JSON (${e.message}); using {}`);
      return {};
    }
  }
  if (decoded === null) return {};
  if (!isPyDict(decoded)) {
    warnings.push(`${where}: decoded to ${pyTypeName(decoded)}, not an object; using {}`);
    return {};
  }
  return decoded;
}

/** Mutates `messages` (the built conversation) in place, as vLLM does. */
export function postprocessMessages(messages: unknown[], policy: ArgumentsPolicy, warnings: string[]): void {
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    if (!isPyDict(message) || message['role'] !== 'assistant') continue;
    if (!Object.prototype.hasOwnProperty.call(message, 'tool_calls')) continue;
    const toolCalls = message['tool_calls'];
    if (!Array.isArray(toolCalls)) continue;
    if (toolCalls.length === 0) {
      delete (message as Record<string, unknown>)['tool_calls'];
      continue;
    }
    for (let j = 0; j < toolCalls.length; j++) {
      const item = toolCalls[j];
      const at = `messages[${i}].tool_calls[${j}]`;
      if (!isPyDict(item)) throw new RequestValidationError(`${at}: assistant tool_calls entries must be objects.`, at);
      const fn = item['function'];
      const type = Object.prototype.hasOwnProperty.call(item, 'type') ? item['type'] : 'function';
      if (type !== 'function' || !isPyDict(fn)) {
        throw new RequestValidationError(
          `${at}: chat completions only support assistant tool_calls of type 'function'.`,
          type !== 'function' ? `${at}.type` : `${at}.function`,
        );
      }
      const has = Object.prototype.hasOwnProperty.call(fn, 'arguments');
      const value = decodeArguments(has ? fn['arguments'] : null, `${at}.function.arguments`, policy, warnings);
      (fn as Record<string, unknown>)['arguments'] = value; // keeps its position; appended when absent
    }
  }
}
