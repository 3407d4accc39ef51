/**
 * Pythonic tool calls (`pythonic`, `llama4_pythonic`, `olmo3`): a Python
 * list of calls with keyword arguments, `[get_weather(city="Paris", days=3), now()]`,
 * as the output's first thing (Llama 4 may wrap it in
 * `<|python_start|>`...`<|python_end|>`; OLMo 3 in `<function_calls>`...`</function_calls>`,
 * one call per line). Argument values are Python literals (plus JSON's
 * `true`/`false`/`null`), serialized with Python `json.dumps`.
 *
 * Deliberate differences: vLLM turns a call with a negative number (or a
 * tuple) into plain content, and any text after the list makes the whole
 * output content; here literals are read as `ast.literal_eval` reads them
 * and trailing text is content.
 */
import { PyValue, makePyDict, pyJsonDumps } from '../protocol/pyjson';
import { chatcmplToolId } from './emitter';
import { JsonCall, JsonCallsParser, balancedEnd } from './json-calls';
import { literalEval } from './pyliteral';
import { firstNonWs } from './scan';
import type { ParseOptions } from './types';

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*/;
const JSON_NAMES: Record<string, PyValue> = { true: true, false: false, null: null };

/** Index of the next top-level `,` or closing bracket at or after `from` (quotes and nesting respected). */
function valueEnd(s: string, from: number): number {
  let depth = 0;
  let quote = '';
  for (let i = from; i < s.length; i++) {
    const c = s[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      if (depth === 0) return i;
      depth--;
    } else if (c === ',' && depth === 0) return i;
  }
  return -1;
}

function literal(text: string): PyValue | undefined {
  const t = text.trim();
  if (Object.prototype.hasOwnProperty.call(JSON_NAMES, t)) return JSON_NAMES[t];
  const v = literalEval(t);
  return v;
}

/** Calls of `name(k=v, ...)` separated by `sep` in `s` (the text inside the list brackets). */
export function parseCallSequence(s: string, sep: RegExp = /^\s*,\s*/): JsonCall[] | null {
  const calls: JsonCall[] = [];
  let pos = 0;
  const ws = () => {
    while (pos < s.length && /\s/.test(s[pos]!)) pos++;
  };
  ws();
  while (pos < s.length) {
    const m = IDENT.exec(s.slice(pos));
    if (!m) return null;
    const name = m[0];
    pos += name.length;
    ws();
    if (s[pos] !== '(') return null;
    pos++;
    const entries: [string, PyValue][] = [];
    for (;;) {
      ws();
      if (s[pos] === ')') {
        pos++;
        break;
      }
      const k = /^[A-Za-z_][A-Za-z0-9_]*/.exec(s.slice(pos));
      if (!k) return null;
      pos += k[0].length;
      ws();
      if (s[pos] !== '=') return null;
      pos++;
      const end = valueEnd(s, pos);
      if (end < 0) return null;
      const v = literal(s.slice(pos, end));
      if (v === undefined) return null;
      entries.push([k[0], v]);
      pos = end;
      if (s[pos] === ',') pos++;
    }
    calls.push({ name, args: pyJsonDumps(makePyDict(entries)) });
    const rest = s.slice(pos);
    const sm = sep.exec(rest);
    if (sm) pos += sm[0].length;
    ws();
    if (!sm && pos < s.length) return null;
  }
  return calls.length ? calls : null;
}

/** `[call, ...]` at the start of `buf` (after whitespace). */
export function readPythonicList(buf: string, eof: boolean): { consumed: number; calls: JsonCall[] | null } | 'more' {
  const i = firstNonWs(buf);
  if (i < 0) return eof ? { consumed: 0, calls: null } : 'more';
  if (buf[i] !== '[') return { consumed: 0, calls: null };
  const end = balancedEnd(buf, i, '"\'');
  if (end < 0) return eof ? { consumed: 0, calls: null } : 'more';
  return { consumed: end, calls: parseCallSequence(buf.slice(i + 1, end - 1)) };
}

export const pythonic = (o: ParseOptions) =>
  new JsonCallsParser(o, { starts: [], bareListAtStart: true, readBody: readPythonicList }, chatcmplToolId);

export const llama4Pythonic = (o: ParseOptions) =>
  new JsonCallsParser(
    o,
    { starts: ['<|python_start|>'], ends: ['<|python_end|>'], bareListAtStart: true, readBody: readPythonicList },
    chatcmplToolId,
  );

const OLMO_END = '</function_calls>';

/** OLMo 3: calls one per line up to `</function_calls>` (held until it, or the end, arrives). */
function readOlmoCalls(buf: string, eof: boolean): { consumed: number; calls: JsonCall[] | null } | 'more' {
  const end = buf.indexOf(OLMO_END);
  if (end < 0 && !eof) return 'more';
  const body = end < 0 ? buf : buf.slice(0, end);
  return { consumed: body.length, calls: parseCallSequence(body, /^[ \t]*(?:,[ \t]*)?\r?\n\s*/) };
}

export const olmo3 = (o: ParseOptions) =>
  new JsonCallsParser(o, { starts: ['<function_calls>'], ends: [OLMO_END], readBody: readOlmoCalls }, chatcmplToolId);

/** LFM2 (`lfm2`): a pythonic list between `<|tool_call_start|>` and `<|tool_call_end|>`. */
export const lfm2 = (o: ParseOptions) =>
  new JsonCallsParser(o, { starts: ['<|tool_call_start|>'], ends: ['<|tool_call_end|>'], readBody: readPythonicList }, chatcmplToolId);
