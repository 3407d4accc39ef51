/**
 * InternLM 2 (`internlm`): `<|action_start|><|plugin|>\n{"name": N, "parameters": {...}}<|action_end|>`.
 * vLLM accepts one call and raises on a second, and on the Python-repr
 * arguments (`{'k': True}`) its own template prints; here every action block
 * is a call and a Python-literal body is read as one.
 */
import { chatcmplToolId } from './emitter';
import { JsonCallsParser } from './json-calls';
import type { ParseOptions } from './types';

export const internlm = (o: ParseOptions) =>
  new JsonCallsParser(
    o,
    { starts: ['<|action_start|><|plugin|>'], ends: ['<|action_end|>'], argKeys: ['parameters', 'arguments'], pythonLiteral: true },
    chatcmplToolId,
  );
