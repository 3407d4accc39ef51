/** How batch splits its case lines over worker processes (splitRanges), and forwards what they wrote (forwardResults). */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { forwardResults, splitRanges, type BatchLine } from '../../src/cli/batch-workers';
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

describe('forwardResults', () => {
  it("gives each expected line's result once, in order, across chunk boundaries, and drops a torn last line", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nvc-forward-'));
    try {
      const r = rng(5);
      for (let t = 0; t < 30; t++) {
        // the range's case lines: numbers with gaps (blank lines)
        const range: BatchLine[] = [];
        for (let n = 0; range.length < 40; n += 1 + Math.floor(r() * 3)) range.push({ n, start: 0, end: 0 });
        const parts: string[] = [];
        const want: string[] = [];
        const big = (n: number) => `{"id":${n},"pad":"${'x'.repeat(r() < 0.1 ? 600_000 + Math.floor(r() * 900_000) : Math.floor(r() * 3000))}"}\n`;
        let k = 0;
        for (const line of range.slice(0, 30)) {
          // now and then: a line without a number, or an earlier line's number again
          if (r() < 0.1) parts.push(`junk\t{"x":1}\n`);
          if (r() < 0.1 && k > 0) parts.push(`${range[k - 1]!.n}\t{"again":true}\n`);
          const result = big(line.n);
          parts.push(`${line.n}\t${result}`);
          want.push(result);
          k++;
        }
        // a worker killed in the middle of its next write
        const torn = `${range[30]!.n}\t{"id":${range[30]!.n},"cut`;
        const file = path.join(dir, `r${t}`);
        fs.writeFileSync(file, parts.join('') + torn);
        const fd = fs.openSync(file, 'r');
        const got: Buffer[] = [];
        const sink = { bytes: (b: Uint8Array) => got.push(Buffer.from(b)), line: () => {}, stderr: () => {} };
        const out = forwardResults(fd, 0, range, 0, sink);
        fs.closeSync(fd);
        expect(Buffer.concat(got).toString('utf8')).toBe(want.join(''));
        expect(out.next).toBe(30);
        expect(out.position).toBe(Buffer.byteLength(parts.join('') + torn));
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
