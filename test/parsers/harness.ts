/** Shared helpers: chunkings, streaming runs and the OpenAI delta-contract check. */
import { expect } from 'vitest';
import { accumulateDeltas, createStreamingToolParser, parseToolCalls } from '../../src/parsers';
import type { ParseResult, StreamDelta, ToolShape } from '../../src/parsers';
import { rng } from '../support/random';

export function counterIds(): () => string {
  let n = 0;
  return () => `call-${n++}`;
}


/** Split by code points so multi-unit characters are never cut. */
export function chunkBy(text: string, size: number): string[] {
  const cps = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < cps.length; i += size) out.push(cps.slice(i, i + size).join(''));
  return out;
}

function randomChunks(text: string, seed: number): string[] {
  const r = rng(seed);
  const cps = Array.from(text);
  const out: string[] = [];
  let i = 0;
  while (i < cps.length) {
    const n = 1 + Math.floor(r() * 12);
    out.push(cps.slice(i, i + n).join(''));
    i += n;
  }
  // Empty pushes must be harmless too.
  if (out.length > 2) out.splice(1, 0, '');
  return out;
}

export const CHUNKINGS: { label: string; split: (t: string) => string[] }[] = [
  ...[1, 2, 3, 5, 7, 13].map((n) => ({ label: `size ${n}`, split: (t: string) => chunkBy(t, n) })),
  { label: 'whole', split: (t: string) => [t] },
  ...[1, 2, 3, 4, 5].map((seed) => ({ label: `random seed ${seed}`, split: (t: string) => randomChunks(t, seed) })),
];

export interface Opts {
  parser: string;
  tools?: ToolShape[];
}

export function parseWhole(text: string, o: Opts): ParseResult {
  return parseToolCalls(text, { ...o, idGenerator: counterIds() });
}

export function streamDeltas(chunks: string[], o: Opts): StreamDelta[] {
  const p = createStreamingToolParser({ ...o, idGenerator: counterIds() });
  const deltas: StreamDelta[] = [];
  for (const c of chunks) deltas.push(...p.push(c));
  deltas.push(...p.end());
  return deltas;
}

/**
 * What openai-node relies on: each call opens with index+id+type+name, later
 * deltas for it carry only argument fragments, a call's deltas all come
 * before the next call opens, and one finish_reason ends the stream.
 */
export function checkContract(deltas: StreamDelta[]): void {
  const last = deltas[deltas.length - 1]!;
  expect(last.finish_reason).toBeDefined();
  deltas.slice(0, -1).forEach((d) => expect(d.finish_reason).toBeUndefined());
  let current = -1;
  for (const d of deltas) {
    for (const tc of d.tool_calls ?? []) {
      if (tc.index !== current) {
        expect(tc.index).toBe(current + 1);
        current = tc.index;
        expect(tc.id).toBeTruthy();
        expect(tc.type).toBe('function');
        expect(tc.function?.name).toBeTruthy();
      } else {
        expect(tc.id).toBeUndefined();
        expect(tc.function?.name).toBeUndefined();
        expect(tc.function?.arguments).toBeTruthy();
      }
    }
    if (d.content !== undefined) expect(d.content).not.toBe('');
  }
  expect(last.finish_reason).toBe(current >= 0 ? 'tool_calls' : 'stop');
}

export function accumulate(chunks: string[], o: Opts): ParseResult {
  const deltas = streamDeltas(chunks, o);
  checkContract(deltas);
  return accumulateDeltas(deltas);
}
