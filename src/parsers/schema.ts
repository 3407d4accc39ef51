/**
 * Tool-schema lookup and vLLM's schema-driven value coercion
 * (`extract_types_from_schema` / `coerce_to_schema_type` behaviour).
 */
import { PyValue, isPyDict, makePyDict, makePyFloat, pyEntries } from '../protocol/pyjson';
import { intIfWhole, pyFloat, pyInt, tryLoads } from './pyvalue';
import type { AnyTool } from './types';

type Dict = Record<string, unknown>;

export function isDict(v: unknown): v is Dict {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The `parameters` schema of the named tool. Both the Chat Completions shape
 * (`tool.function.parameters`) and the Responses `FunctionTool` shape
 * (top-level `name`/`parameters`) are accepted, as vLLM's own lookup does.
 */
export function findToolParameters(tools: readonly AnyTool[] | undefined, name: string): Dict | undefined {
  for (const tool of (tools ?? []) as readonly unknown[]) {
    if (!isDict(tool)) continue;
    // Non-function tools (custom, built-in) have no parameter schema.
    if (tool.type !== undefined && tool.type !== 'function') continue;
    const fn = isDict(tool.function) ? tool.function : tool;
    if (fn.name === name) return isDict(fn.parameters) ? fn.parameters : undefined;
  }
  return undefined;
}

/** `parameters.properties` of the named tool, when it declares any. */
export function findToolProperties(tools: readonly AnyTool[] | undefined, name: string): Dict | undefined {
  const params = findToolParameters(tools, name);
  return params && isDict(params.properties) ? params.properties : undefined;
}

function enumValueType(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (typeof v === 'string') return 'string';
  if (Array.isArray(v)) return 'array';
  return 'object';
}

/** Every type a schema admits, through `type`, `enum` and `anyOf`/`oneOf`/`allOf`. */
export function extractTypes(schema: unknown): string[] {
  if (!isDict(schema)) return ['string'];
  const types = new Set<string>();
  collectTypes(schema, types);
  return types.size ? [...types] : ['string'];
}

function collectTypes(schema: unknown, types: Set<string>): void {
  if (!isDict(schema)) return;
  const t = schema.type;
  if (typeof t === 'string') types.add(t);
  else if (Array.isArray(t)) for (const x of t) if (typeof x === 'string') types.add(x);
  if (Array.isArray(schema.enum)) for (const v of schema.enum) types.add(enumValueType(v));
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const choices = schema[key];
    if (Array.isArray(choices)) for (const c of choices) collectTypes(c, types);
  }
}

const TYPE_ALIASES: Record<string, string> = {
  str: 'string', text: 'string', varchar: 'string', char: 'string', enum: 'string',
  int: 'integer', int32: 'integer', int64: 'integer', uint: 'integer', uint32: 'integer',
  uint64: 'integer', long: 'integer', short: 'integer', unsigned: 'integer',
  float: 'number', float32: 'number', float64: 'number', double: 'number',
  bool: 'boolean', dict: 'object', arr: 'array', list: 'array', sequence: 'array',
};

const TYPE_PRIORITY = ['null', 'integer', 'number', 'boolean', 'object', 'array', 'string'] as const;

/**
 * Convert a raw string to the first admissible schema type, in vLLM's
 * priority order. Falls back to `json.loads`, then to the raw string. An
 * empty `types` list therefore means "JSON if it parses, else text".
 */
export function coerceToSchemaType(value: string, types: readonly string[], opts: { keepFloats?: boolean } = {}): PyValue {
  const normalized = new Set(types.map((t) => {
    const k = t.trim().toLowerCase();
    return Object.hasOwn(TYPE_ALIASES, k) ? TYPE_ALIASES[k]! : k;
  }));
  for (const candidate of TYPE_PRIORITY) {
    if (!normalized.has(candidate)) continue;
    switch (candidate) {
      case 'null':
        if (value.toLowerCase() === 'null') return null;
        break;
      case 'string':
        return value;
      case 'integer': {
        const i = pyInt(value);
        if (i !== null) return i;
        break;
      }
      case 'number': {
        const f = pyFloat(value);
        if (f !== null && Number.isFinite(f)) {
          // vLLM turns an integral float (`1.0`) into an int; with keepFloats the
          // model's float stays a float, as written.
          if (opts.keepFloats && Number.isInteger(f) && /[.eE]/.test(value)) return makePyFloat(f);
          return intIfWhole(f);
        }
        break;
      }
      case 'boolean': {
        const l = value.toLowerCase().trim();
        if (l === 'true' || l === '1') return true;
        if (l === 'false' || l === '0') return false;
        break;
      }
      case 'object':
      case 'array': {
        const v = tryLoads(value);
        if (v !== undefined && allFinite(v)) return v;
        break;
      }
    }
  }
  const v = tryLoads(value);
  return v !== undefined && allFinite(v) ? v : value;
}

/** No NaN or Infinity anywhere in a decoded value (integral floats and ints are always finite). */
function allFinite(v: PyValue): boolean {
  if (typeof v === 'number') return Number.isFinite(v);
  if (Array.isArray(v)) return v.every(allFinite);
  if (isPyDict(v)) return Object.values(v).every(allFinite);
  return true;
}

/**
 * A raw parameter value of the XML-style formats (GLM, MiniMax, Seed-OSS)
 * typed by the tool schema; without one it stays a string, as in vLLM.
 * Integral floats are kept as floats (vLLM turns `1.0` into `1`).
 */
export function typedParam(raw: string, schema: unknown): PyValue {
  if (schema === undefined) return raw;
  return coerceToSchemaType(raw, extractTypes(schema), { keepFloats: true });
}

/** String values of a decoded arguments object typed by the schema (vLLM's `_fix_arg_types`, floats kept). */
export function typeJsonArgs(args: PyValue, props: Record<string, unknown> | undefined): PyValue {
  if (!props || !isPyDict(args)) return args;
  return makePyDict(
    pyEntries(args).map(([k, v]) => [k, typeof v === 'string' && isDict(props[k]) ? coerceToSchemaType(v, extractTypes(props[k]), { keepFloats: true }) : v] as const),
  );
}
