/**
 * Hunyuan A13B (`hunyuan_a13b`): `<tool_calls>[{"name": N, "arguments": {...}}, ...]</tool_calls>`.
 * vLLM matches arguments with a pattern that does not support nesting
 * beyond one level; here the list is decoded as JSON, so nested arguments
 * survive. `call_` + uuid ids, as vLLM's.
 */
import { randomUUID } from 'crypto';
import { JsonCallsParser } from './json-calls';
import type { ParseOptions } from './types';

export const hunyuanA13b = (o: ParseOptions) =>
  new JsonCallsParser(
    o,
    { starts: ['<tool_calls>'], ends: ['</tool_calls>'], argKeys: ['arguments'] },
    () => `call_${randomUUID().replace(/-/g, '')}`,
  );
