/** `tools` as vLLM passes them to the template: `[tool.model_dump() for tool in request.tools]`. */

import { isPyDict, makePyDict, pyEntries } from '../protocol/pyjson';

const FUNCTION_FIELDS = ['name', 'description', 'parameters', 'strict', 'defer_loading'];
const TOOL_FIELDS = ['type', 'function', 'defer_loading'];

const get = (o: Record<string, unknown>, k: string): unknown =>
  Object.prototype.hasOwnProperty.call(o, k) ? (o[k] ?? null) : null;

function dumpFunction(fn: Record<string, unknown>, toolDeferLoading: unknown): Record<string, unknown> {
  const out: Array<[string, unknown]> = [
    ['name', get(fn, 'name')],
    ['description', get(fn, 'description')],
    ['parameters', get(fn, 'parameters')],
  ];
  const strict = get(fn, 'strict');
  if (strict !== null) out.push(['strict', strict]);
  let defer = get(fn, 'defer_loading');
  if (defer === null) defer = toolDeferLoading;
  if (defer !== null) out.push(['defer_loading', defer]);
  for (const [k, v] of pyEntries(fn)) if (!FUNCTION_FIELDS.includes(k)) out.push([k, v]);
  return makePyDict(out) as Record<string, unknown>;
}

/** pydantic-shaped tool dicts: declared fields (defaults filled, unset optional flags omitted), then extras. */
export function shapeTools(tools: unknown): unknown[] | null {
  if (tools === null || tools === undefined) return null;
  if (!Array.isArray(tools)) return null;
  return tools.map((tool) => {
    if (!isPyDict(tool)) return tool;
    const fn = isPyDict(tool['function']) ? tool['function'] : {};
    const defer = get(tool, 'defer_loading');
    const out: Array<[string, unknown]> = [
      ['type', get(tool, 'type') ?? 'function'],
      ['function', dumpFunction(fn, defer)],
    ];
    if (defer !== null) out.push(['defer_loading', defer]);
    for (const [k, v] of pyEntries(tool)) if (!TOOL_FIELDS.includes(k)) out.push([k, v]);
    return makePyDict(out);
  });
}
