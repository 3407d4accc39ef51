/** Strict UTF-8 decoding with Python's UnicodeDecodeError text. */
import { describe, expect, it } from 'vitest';
import { decodeUtf8Strict, findInvalidUtf8, Utf8DecodeError } from '../../src/protocol/utf8';
import { rng } from '../support/random';

// str(e) of bytes.decode('utf-8') in CPython 3.11, for each input
const PYTHON: Array<[number[], string]> = [
  [[0x61, 0x62, 0xff, 0x63, 0x64], "'utf-8' codec can't decode byte 0xff in position 2: invalid start byte"],
  [[0x80], "'utf-8' codec can't decode byte 0x80 in position 0: invalid start byte"],
  [[0x78, 0xc0, 0xaf, 0x79], "'utf-8' codec can't decode byte 0xc0 in position 1: invalid start byte"],
  [[0xe2, 0x82], "'utf-8' codec can't decode bytes in position 0-1: unexpected end of data"],
  [[0xe2, 0x82, 0x78], "'utf-8' codec can't decode bytes in position 0-1: invalid continuation byte"],
  [[0xe2, 0x78], "'utf-8' codec can't decode byte 0xe2 in position 0: invalid continuation byte"],
  [[0xed, 0xa0, 0x80], "'utf-8' codec can't decode byte 0xed in position 0: invalid continuation byte"],
  [[0xe0, 0x80, 0x80], "'utf-8' codec can't decode byte 0xe0 in position 0: invalid continuation byte"],
  [[0xf0, 0x8f, 0xbf, 0xbf], "'utf-8' codec can't decode byte 0xf0 in position 0: invalid continuation byte"],
  [[0xf4, 0x90, 0x80, 0x80], "'utf-8' codec can't decode byte 0xf4 in position 0: invalid continuation byte"],
  [[0xf5, 0x80], "'utf-8' codec can't decode byte 0xf5 in position 0: invalid start byte"],
  [[0x6f, 0x6b, 0xf0, 0x9f, 0x98], "'utf-8' codec can't decode bytes in position 2-4: unexpected end of data"],
  [[0xc3], "'utf-8' codec can't decode byte 0xc3 in position 0: unexpected end of data"],
  [[0xc3, 0xa9, 0xe9], "'utf-8' codec can't decode byte 0xe9 in position 2: unexpected end of data"],
  [[0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xe9, 0x74, 0xe9, 0x22, 0x7d], "'utf-8' codec can't decode byte 0xe9 in position 6: invalid continuation byte"],
];

describe('decodeUtf8Strict', () => {
  for (const [bytes, message] of PYTHON) {
    it(`rejects ${Buffer.from(bytes).toString('hex')} as Python does`, () => {
      let err: unknown;
      try {
        decodeUtf8Strict(Uint8Array.from(bytes));
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(Utf8DecodeError);
      expect((err as Error).message).toBe(message);
      expect((err as Error).name).toBe('UnicodeDecodeError');
    });
  }

  it('decodes valid UTF-8 and keeps a BOM for the JSON decoder to reject', () => {
    expect(decodeUtf8Strict(Buffer.from('h\u00e9\u{1f600}\u20ac', 'utf8'))).toBe('h\u00e9\u{1f600}\u20ac');
    expect(decodeUtf8Strict(Uint8Array.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]))).toBe('\ufeff{}');
  });

  it('agrees with a fatal TextDecoder on random bytes', () => {
    const r = rng(1414);
    const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    const pool = [0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf4, 0xf5, 0xff];
    for (let n = 0; n < 20000; n++) {
      const len = 1 + Math.floor(r() * 6);
      const b = new Uint8Array(len);
      for (let i = 0; i < len; i++) b[i] = r() < 0.8 ? pool[Math.floor(r() * pool.length)]! : Math.floor(r() * 256);
      let valid = true;
      try {
        strict.decode(b);
      } catch {
        valid = false;
      }
      expect(findInvalidUtf8(b) === undefined).toBe(valid);
    }
  });
});
