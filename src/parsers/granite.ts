/**
 * IBM Granite 3.x (`granite`): `<|tool_call|>[{"name": N, "arguments": {...}}, ...]`
 * (also `<tool_call>[...]`, or a bare list as the whole output).
 */
import { chatcmplToolId } from './emitter';
import { JsonCallsParser } from './json-calls';
import type { ParseOptions } from './types';

export const granite = (o: ParseOptions) =>
  new JsonCallsParser(o, { starts: ['<|tool_call|>', '<tool_call>'], bareListAtStart: true, argKeys: ['arguments'] }, chatcmplToolId);
