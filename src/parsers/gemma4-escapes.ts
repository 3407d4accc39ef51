/**
 * Repair of JSON-style escapes that Gemma 4 sometimes writes inside
 * `<|"|>…<|"|>` strings. Nothing is escaped inside those delimiters, so a
 * backslash is normally content; we only decode when the value is
 * evidently JSON-escaped text, and otherwise keep it byte-for-byte (a
 * Windows path such as `C:\new\temp` must survive).
 */

const JSON_ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** Decode valid JSON escapes; leave anything else (e.g. `\d`) as written. */
export function lenientUnescape(s: string): string {
  return s.replace(/\\(u[0-9a-fA-F]{4}|["\\/bfnrt])/g, (_m, e: string) =>
    e.length === 5 ? String.fromCharCode(parseInt(e.slice(1), 16)) : JSON_ESCAPES[e]!,
  );
}

/** Every backslash starts a valid JSON escape. */
function escapesAreJson(s: string): boolean {
  return !/\\(?!u[0-9a-fA-F]{4}|["\\/bfnrt])/.test(s.replace(/\\\\/g, ''));
}

/** A `\n` escape whose backslash is not itself escaped. */
function hasNewlineEscape(s: string): boolean {
  return /(?:^|[^\\])(?:\\\\)*\\n/.test(s);
}

/** Rule 1: there is an escaped quote and no bare one. */
function allQuotesEscaped(s: string): boolean {
  if (!s.includes('\\"')) return false;
  for (let i = 0; i < s.length; i++) if (s[i] === '"' && s[i - 1] !== '\\') return false;
  return true;
}

/** Drive-letter or UNC paths anywhere: their backslashes are real. */
function looksLikeWindowsPath(s: string): boolean {
  return /(?:^|[\s"'=(,])[A-Za-z]:\\/.test(s) || /^\\\\[^\\\s]/.test(s);
}

/**
 * A deliberately light Python lexical check: strings terminate (one-line
 * strings on their line), brackets balance, and no backslash stands outside
 * a string except as a line continuation. It cannot prove code valid, but it
 * catches the symptom that matters: `\n` written where a newline was meant.
 */
export function pythonLexesCleanly(s: string): boolean {
  const stack: string[] = [];
  const pairs: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (c === '#') {
      while (i < s.length && s[i] !== '\n') i++;
    } else if (c === '"' || c === "'") {
      const triple = s.startsWith(c.repeat(3), i);
      const close = triple ? c.repeat(3) : c;
      i += close.length;
      for (;;) {
        if (i >= s.length) return false;
        if (s[i] === '\\') {
          i += 2;
          continue;
        }
        if (!triple && s[i] === '\n') return false;
        if (s.startsWith(close, i)) {
          i += close.length;
          break;
        }
        i++;
      }
      continue;
    } else if (c === '\\') {
      if (s[i + 1] !== '\n') return false;
      i += 2;
      continue;
    } else if (c === '(' || c === '[' || c === '{') {
      stack.push(c);
    } else if (c === ')' || c === ']' || c === '}') {
      if (stack.pop() !== pairs[c]) return false;
    } else if (c === '$' || c === '?' || c === '`') {
      return false;
    }
    i++;
  }
  return stack.length === 0;
}

const CODE_LIKE = /code|script|python|source|program|snippet/i;

/**
 * Decide, for one complete string value, whether its escapes are spurious.
 * `key` is the nearest argument name and `tool` the function name; they
 * only widen the Python-code rule to values that are evidently code.
 */
export function repairSpuriousEscapes(raw: string, key: string, tool: string): string {
  if (!raw.includes('\\')) return raw;

  // Rule 1: every quote is escaped, so the escapes are JSON habit.
  if (allQuotesEscaped(raw)) return lenientUnescape(raw);

  const candidate = hasNewlineEscape(raw) && !raw.includes('\n') && !looksLikeWindowsPath(raw);
  if (!candidate) return raw;
  const decoded = lenientUnescape(raw);

  // Rule 2: JSON-encoded multi-line text. Guards: clean JSON escapes, some
  // whitespace (single tokens such as `a\nb` are more likely paths or
  // patterns), no control characters beyond newline/tab, and no code that
  // lexes only in its escaped form (`print("a\nb", end="")`).
  if (
    escapesAreJson(raw) &&
    /[ \t]/.test(raw) &&
    !/[\x00-\x08\x0b-\x1f]/.test(decoded) &&
    !(pythonLexesCleanly(raw) && !pythonLexesCleanly(decoded))
  ) {
    return decoded;
  }

  // Rule 3: code that only lexes after unescaping (limited to code values).
  if ((CODE_LIKE.test(key) || CODE_LIKE.test(tool)) && !pythonLexesCleanly(raw) && pythonLexesCleanly(decoded)) {
    return decoded;
  }
  return raw;
}
