import { PyFloat, pyEntries, pyFloatRepr } from '../../src/protocol/pyjson';

/** The tagged tree scripts/conversation-vectors.py writes for a Python value. */
export type Tagged = unknown[];

export function tagOf(v: unknown): Tagged {
  if (v === null || v === undefined) return ['none'];
  if (typeof v === 'boolean') return ['bool', v];
  if (typeof v === 'bigint') return ['int', v.toString()];
  if (typeof v === 'number') {
    if (Number.isInteger(v) && !Object.is(v, -0)) return ['int', Number.isSafeInteger(v) ? String(v) : BigInt(v).toString()];
    return ['float', pyFloatRepr(v)];
  }
  if (v instanceof PyFloat) return ['float', pyFloatRepr(v.value)];
  if (typeof v === 'string') return ['str', v];
  if (Array.isArray(v)) return ['list', v.map(tagOf)];
  if (v instanceof Map) return ['dict', [...v.entries()].map(([k, x]) => [k, tagOf(x)])];
  return ['dict', pyEntries(v as object).map(([k, x]) => [k, tagOf(x)])];
}
