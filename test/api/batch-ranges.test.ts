/** How batch splits its case lines over worker processes (splitRanges). */
import { describe, expect, it } from 'vitest';
import { splitRanges, type BatchLine } from '../../src/cli/batch-workers';
import { rng } from '../support/random';

function lines(sizes: number[]): BatchLine[] {
  const out: BatchLine[] = [];
  let at = 0;
  sizes.forEach((size, i) => {
    out.push({ n: i * 2, start: at, end: at + size }); // (blank lines between: numbers skip)
    at += size + 1;
  });
  return out;
}

const bytes = (range: BatchLine[]) => range.reduce((a, l) => a + l.end - l.start + 1, 0);

describe('splitRanges', () => {
  it('a batch below the minimum cases or bytes per range gets one range', () => {
    expect(splitRanges(lines(Array(300).fill(10)), 8, { cases: 256, bytes: 1 })).toHaveLength(1);
    expect(splitRanges(lines(Array(10_000).fill(10)), 8, { cases: 256, bytes: 1 << 20 })).toHaveLength(1);
    expect(splitRanges(lines(Array(10_000).fill(10)), 1, { cases: 1, bytes: 1 })).toHaveLength(1);
    expect(splitRanges([], 4, { cases: 1, bytes: 1 })).toEqual([[]]);
  });

  it('ranges are contiguous, in order, cover every line once and hold about the same bytes', () => {
    const r = rng(11);
    for (let t = 0; t < 200; t++) {
      const n = 1 + Math.floor(r() * 3000);
      const sizes = Array.from({ length: n }, () => 1 + Math.floor(r() < 0.05 ? r() * 50_000 : r() * 2000));
      const all = lines(sizes);
      const jobs = 1 + Math.floor(r() * 9);
      const min = { cases: 1 + Math.floor(r() * 300), bytes: 1 + Math.floor(r() * 200_000) };
      const ranges = splitRanges(all, jobs, min);
      const total = bytes(all);
      const expectCount = Math.max(1, Math.min(jobs, Math.floor(n / min.cases), Math.floor(total / min.bytes)));
      expect(ranges).toHaveLength(expectCount);
      expect(ranges.flat()).toEqual(all);
      for (const range of ranges) expect(range.length).toBeGreaterThan(0);
      if (ranges.length > 1) {
        // each range ends within one line of its share of the bytes
        let seen = 0;
        const largest = Math.max(...sizes) + 1;
        ranges.slice(0, -1).forEach((range, k) => {
          seen += bytes(range);
          const goal = (total * (k + 1)) / ranges.length;
          expect(Math.abs(seen - goal)).toBeLessThanOrEqual(largest);
        });
      }
    }
  });
});
