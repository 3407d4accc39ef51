/**
 * Llama 3.x / Llama 4 JSON tool calls (`llama3_json`, `llama4_json`):
 * `[<|python_tag|>]{"name": N, "parameters"|"arguments": {...}}`, several
 * calls back to back or separated by `;`.
 *
 * Deliberate differences from vLLM (which keeps no content once a call is
 * found, and returns everything as content when any `{` in the output is
 * not a call): text before, between and after calls is content, and a
 * brace that is not a call does not hide the calls around it.
 */
import { chatcmplToolId } from './emitter';
import { JsonCallsParser } from './json-calls';
import type { ParseOptions } from './types';

export const llama3Json = (o: ParseOptions) =>
  new JsonCallsParser(
    o,
    { starts: [], bareObjects: true, prefixes: ['<|python_tag|>'], separator: /^[\s;]*$/, argKeys: ['arguments', 'parameters'] },
    chatcmplToolId,
  );
