/**
 * xLAM (`xlam`): a JSON list of `{"name", "arguments"}` objects, as the
 * whole output or inside a ```json fence, `<tool_call>`...`</tool_call>` or
 * after `[TOOL_CALLS]`. Text around a fenced or tagged list is content.
 */
import { chatcmplToolId } from './emitter';
import { JsonCallsParser } from './json-calls';
import type { ParseOptions } from './types';

export const xlam = (o: ParseOptions) =>
  new JsonCallsParser(
    o,
    { starts: ['```json', '```', '<tool_call>', '[TOOL_CALLS]'], ends: ['```', '</tool_call>'], bareListAtStart: true, argKeys: ['arguments', 'parameters'] },
    chatcmplToolId,
  );
