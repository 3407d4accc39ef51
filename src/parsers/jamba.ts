/** AI21 Jamba (`jamba`): `<tool_calls>[{"name": N, "arguments": {...}}, ...]</tool_calls>`. */
import { chatcmplToolId } from './emitter';
import { JsonCallsParser } from './json-calls';
import type { ParseOptions } from './types';

export const jamba = (o: ParseOptions) =>
  new JsonCallsParser(o, { starts: ['<tool_calls>'], ends: ['</tool_calls>'], argKeys: ['arguments'] }, chatcmplToolId);
