/** The addon's jsonQuoteUtf8 (batch result lines as bytes) against Buffer.from(before + JSON.stringify(value) + after). */
import { describe, expect, it } from 'vitest';
import { loadEmbedded } from '../../src/native/loader';
import { resultLine, resultLineBytes } from '../../src/cli/batch-workers';
import { rng } from '../support/random';

// units JSON.stringify treats each its own way: quotes, backslashes, named and
// numbered control escapes, DEL, two- and three-byte UTF-8, both surrogate
// halves (paired or lone), line and paragraph separators
const UNITS = ['a', 'Z', ' ', '"', '\\', '/', '\b', '\t', '\n', '\f', '\r', '\x00', '\x01', '\x1f', '\x7f', '\u00e9', '\u07ff', '\u0800', '\u20ac', '\u2028', '\u2029', '\ufffd', '\uffff', '\ud800', '\udbff', '\udc00', '\udfff', '\ud83d\ude00'];

function randomString(r: () => number, max: number): string {
  let s = '';
  for (let n = Math.floor(r() * max); n > 0; n--) s += r() < 0.5 ? 'plain text ' : UNITS[Math.floor(r() * UNITS.length)]!;
  return s;
}

describe('jsonQuoteUtf8', () => {
  const quote = loadEmbedded().jsonQuoteUtf8!;

  it('gives the bytes Buffer.from gives for before + JSON.stringify(value) + after', () => {
    const r = rng(23);
    for (let t = 0; t < 3000; t++) {
      const before = randomString(r, 4);
      const value = randomString(r, t % 100 === 0 ? 20_000 : 40);
      const after = randomString(r, 3);
      const got = quote(before, value, after);
      expect(Buffer.isBuffer(got)).toBe(true);
      expect(got.equals(Buffer.from(before + JSON.stringify(value) + after, 'utf8')), JSON.stringify(value).slice(0, 300)).toBe(true);
    }
  });

  it('takes every single unit, and strings past its kept scratch size', () => {
    for (let u = 0; u < 0x10000; u++) {
      const s = String.fromCharCode(u);
      expect(quote('', s, '').equals(Buffer.from(JSON.stringify(s), 'utf8')), `U+${u.toString(16)}`).toBe(true);
    }
    // (output several times the units' count: the bytes are grown as they are written)
    for (const long of ['x"\ud800'.repeat(100_000), '\x01'.repeat(70_000), `${'a'.repeat(100_000)}\n\u00e9`]) {
      expect(quote('[', long, ']').equals(Buffer.from(`[${JSON.stringify(long)}]`, 'utf8'))).toBe(true);
    }
    // (and the small calls after it still agree)
    expect(quote('', 'ok\n', '').toString()).toBe('"ok\\n"');
  });

  it('rejects arguments that are not three strings', () => {
    expect(() => (quote as (...a: unknown[]) => unknown)('', 1, '')).toThrow(TypeError);
    expect(() => (quote as (...a: unknown[]) => unknown)('', '')).toThrow(TypeError);
  });

  it('makes the batch result line resultLine makes, as bytes', () => {
    const r = rng(5);
    for (let t = 0; t < 300; t++) {
      const id = [null, t, `case ${t}`, { k: [1, 'x'] }, 'é\ud800'][t % 5];
      const prompt = randomString(r, 60);
      const expected = Buffer.from(`${t}\t${resultLine(id, { prompt })}\n`, 'utf8');
      // (the line's format, by hand, where json.dumps writes the id as JSON.stringify does)
      if (id === null || typeof id === 'number' || id === `case ${t}`) {
        expect(expected.toString('utf8')).toBe(`${t}\t{"id":${JSON.stringify(id)},"ok":true,"prompt":${JSON.stringify(prompt)}}\n`);
      }
      expect(Buffer.from(resultLineBytes(`${t}\t`, id, { prompt }, quote)).equals(expected)).toBe(true);
      expect(Buffer.from(resultLineBytes(`${t}\t`, id, { prompt })).equals(expected)).toBe(true);
      const error = `BackendError: ${prompt}`;
      expect(Buffer.from(resultLineBytes('', id, { error }, quote)).toString('utf8')).toBe(`${resultLine(id, { error })}\n`);
    }
  });
});
