/** Small string-scanning helpers shared by the format state machines. */

export interface TokenHit {
  index: number;
  token: string;
}

/** Earliest occurrence of any token at or after `from` (longest token wins a tie). */
export function findFirst(buf: string, tokens: readonly string[], from = 0): TokenHit | null {
  let best: TokenHit | null = null;
  for (const token of tokens) {
    const index = buf.indexOf(token, from);
    if (index < 0) continue;
    if (!best || index < best.index || (index === best.index && token.length > best.token.length)) best = { index, token };
  }
  return best;
}

/**
 * Length of the longest suffix of `buf` that is a proper prefix of one of the
 * tokens: text that must be held back because the next chunk may complete it.
 */
export function partialSuffixLen(buf: string, tokens: readonly string[]): number {
  let best = 0;
  for (const token of tokens) {
    const max = Math.min(token.length - 1, buf.length);
    for (let n = max; n > best; n--) {
      if (token.startsWith(buf.slice(buf.length - n))) {
        best = n;
        break;
      }
    }
  }
  return best;
}

/** True when `s` is a (possibly empty) proper prefix of one of the tokens. */
export function isPrefixOfAny(s: string, tokens: readonly string[]): boolean {
  return tokens.some((t) => t.length > s.length && t.startsWith(s));
}

export function isWs(c: string): boolean {
  return /\s/u.test(c);
}

/** Index of the first non-whitespace character, or -1. */
export function firstNonWs(s: string, from = 0): number {
  for (let i = from; i < s.length; i++) if (!isWs(s[i]!)) return i;
  return -1;
}
