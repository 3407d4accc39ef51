/**
 * Phi-4-mini (`phi4_mini_json`): `functools[{"name": N, "arguments": {...}}, ...]`.
 *
 * Deliberate difference: vLLM cuts the list at its first `]` (so any list
 * or nested `]` inside arguments breaks the call) and drops the content
 * before it; here the list ends at its matching bracket and content is kept.
 */
import { chatcmplToolId } from './emitter';
import { JsonCallsParser } from './json-calls';
import type { ParseOptions } from './types';

export const phi4MiniJson = (o: ParseOptions) =>
  new JsonCallsParser(o, { starts: ['functools'], argKeys: ['arguments', 'parameters'] }, chatcmplToolId);
