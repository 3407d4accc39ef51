/**
 * Mistral (`mistral`): `[TOOL_CALLS]` followed by a JSON list
 * `[{"name": N, "arguments": {...}}, ...]` (tokenizers before v11) or by
 * `NAME{...}` / `NAME[ARGS]{...}`, one `[TOOL_CALLS]` per call (v11+).
 * Ids are 9 alphanumeric characters, as Mistral templates require.
 *
 * Deliberate differences: vLLM double-encodes arguments a model wrote as a
 * JSON string (`"arguments": "{\"a\": 1}"`); here they are decoded. In the
 * v11 form vLLM passes malformed or cut-off arguments (and any text after
 * them) on as the arguments string; here such a call has no arguments and
 * trailing text is content.
 */
import { randomBytes } from 'crypto';
import { pyJsonDumps, isPyDict } from '../protocol/pyjson';
import { JsonCall, JsonCallsParser, balancedEnd, callsFromValue } from './json-calls';
import { tryLoads } from './pyvalue';
import { firstNonWs } from './scan';
import type { ParseOptions } from './types';

const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

export function mistralToolId(): string {
  const b = randomBytes(9);
  let s = '';
  for (const x of b) s += ALNUM[x % ALNUM.length];
  return s;
}

const NAME = /^[A-Za-z0-9_.\-]+$/;

function readMistral(buf: string, eof: boolean): { consumed: number; calls: JsonCall[] | null } | 'more' {
  const i = firstNonWs(buf);
  if (i < 0) return eof ? { consumed: 0, calls: null } : 'more';
  if (buf[i] === '[') {
    const end = balancedEnd(buf, i);
    if (end < 0) return eof ? { consumed: 0, calls: null } : 'more';
    const v = tryLoads(buf.slice(i, end));
    return { consumed: end, calls: v === undefined ? null : callsFromValue(v, ['arguments']) };
  }
  const brace = buf.indexOf('{', i);
  const head = (brace < 0 ? buf.slice(i) : buf.slice(i, brace)).replace('[ARGS]', '');
  if (brace < 0) {
    const partial = head === '' || NAME.test(head) || NAME.test(head.replace(/\[A?R?G?S?\]?$/, ''));
    return eof || !partial ? { consumed: 0, calls: null } : 'more';
  }
  if (!NAME.test(head)) return { consumed: 0, calls: null };
  const end = balancedEnd(buf, brace);
  // Cut off by the end of the output: the call keeps its name, without arguments.
  if (end < 0) return eof ? { consumed: buf.length, calls: [{ name: head, args: '' }] } : 'more';
  const args = tryLoads(buf.slice(brace, end));
  return { consumed: end, calls: [{ name: head, args: isPyDict(args) ? pyJsonDumps(args) : '' }] };
}

export const mistral = (o: ParseOptions) =>
  new JsonCallsParser(o, { starts: ['[TOOL_CALLS]'], readBody: readMistral }, mistralToolId);
