/**
 * Strict UTF-8 decoding of request bytes, as Python's `bytes.decode('utf-8')`
 * does it: invalid input is an error (never U+FFFD), reported with Python's
 * `UnicodeDecodeError` text (`'utf-8' codec can't decode byte 0xff in
 * position 2: invalid start byte`). A leading BOM is kept as U+FEFF, so the
 * JSON decoder rejects it as Python's `json.loads` does.
 */

import { RequestValidationError } from '../errors';

const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Python's UnicodeDecodeError for bytes that are not UTF-8. `message` is `str(e)`. */
export class Utf8DecodeError extends RequestValidationError {
  override name = 'UnicodeDecodeError';
  constructor(
    message: string,
    /** Byte offsets [start, end) of the undecodable sequence. */
    readonly start: number,
    readonly end: number,
    readonly reason: string,
  ) {
    super(message, '');
  }
}

/** Bytes 2..4 of a sequence: the allowed range of the second byte depends on the lead byte. */
function secondByteRange(lead: number): [number, number] {
  if (lead === 0xe0) return [0xa0, 0xbf];
  if (lead === 0xed) return [0x80, 0x9f];
  if (lead === 0xf0) return [0x90, 0xbf];
  if (lead === 0xf4) return [0x80, 0x8f];
  return [0x80, 0xbf];
}

/** The first undecodable sequence of `b` as Python reports it; undefined when `b` is valid UTF-8. */
export function findInvalidUtf8(b: Uint8Array): Utf8DecodeError | undefined {
  const n = b.length;
  for (let i = 0; i < n; ) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    let need: number;
    if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c >= 0xe0 && c <= 0xef) need = 2;
    else if (c >= 0xf0 && c <= 0xf4) need = 3;
    else return decodeError(b, i, i + 1, 'invalid start byte');
    let j = i + 1;
    for (let k = 0; k < need; k++, j++) {
      if (j >= n) return decodeError(b, i, n, 'unexpected end of data');
      const [lo, hi] = k === 0 ? secondByteRange(c) : [0x80, 0xbf];
      const d = b[j]!;
      if (d < lo || d > hi) return decodeError(b, i, j, 'invalid continuation byte');
    }
    i = j;
  }
  return undefined;
}

function decodeError(b: Uint8Array, start: number, end: number, reason: string): Utf8DecodeError {
  const what =
    end - start === 1
      ? `byte 0x${b[start]!.toString(16).padStart(2, '0')} in position ${start}`
      : `bytes in position ${start}-${end - 1}`;
  return new Utf8DecodeError(`'utf-8' codec can't decode ${what}: ${reason}`, start, end, reason);
}

/** `b.decode('utf-8')`: the text, or a thrown Utf8DecodeError with Python's message. */
export function decodeUtf8Strict(b: Uint8Array): string {
  const invalid = findInvalidUtf8(b);
  if (invalid) throw invalid;
  return strict.decode(b);
}
