/**
 * libvllm lets one unconstrained token through after a structured-output
 * constraint is satisfied, then ends the request with finish reason
 * "error". vLLM stops cleanly when the constraint is complete. This finds
 * where the constrained text ends, so the bridge can drop the stray token
 * and report "stop", as vLLM does.
 */
import type { NativeSampling } from './sampling';

/** A stray token is one token: its text is short. */
const MAX_STRAY = 64;

export type ConstraintCheck = (text: string) => boolean;

/** How to tell a complete constrained output, or undefined (no constraint, or a grammar we cannot check). */
export function constraintCheck(s: NativeSampling): ConstraintCheck | undefined {
  if (s.structured_regex !== undefined) {
    let re: RegExp;
    try {
      re = new RegExp(`^(?:${s.structured_regex})$`, 'u');
    } catch {
      return undefined;
    }
    return (t) => re.test(t);
  }
  if (s.structured_choice !== undefined) {
    const set = new Set(s.structured_choice);
    return (t) => set.has(t);
  }
  if (s.structured_json !== undefined || s.structured_json_object) {
    return (t) => {
      const trimmed = t.trim();
      if (!trimmed.startsWith('{') && !trimmed.startsWith('[') && !s.structured_json) return false;
      try {
        JSON.parse(t);
        return true;
      } catch {
        return false;
      }
    };
  }
  return undefined;
}

/**
 * The length of the longest prefix of `text` (shorter than the text, by at
 * most one token's worth) that satisfies the constraint, or undefined.
 */
export function completeConstrainedPrefix(text: string, check: ConstraintCheck): number | undefined {
  for (let k = text.length - 1; k >= Math.max(0, text.length - MAX_STRAY); k--) {
    // never cut inside a surrogate pair
    const code = text.charCodeAt(k);
    if (code >= 0xdc00 && code <= 0xdfff) continue;
    if (check(text.slice(0, k))) return k;
  }
  return undefined;
}
