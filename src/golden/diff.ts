/** A unified line diff with visible whitespace, for golden mismatch reports. */

/** Makes whitespace visible: spaces as ·, tabs as →, carriage returns as ␍, line ends as ⏎. */
export function visible(line: string): string {
  return line.replace(/ /g, '·').replace(/\t/g, '→').replace(/\r/g, '␍') + '⏎';
}

function splitKeep(s: string): string[] {
  // Each element is one line without its "\n"; a trailing "\n" yields a final "" element,
  // so a missing/extra last newline shows up in the diff.
  return s.split('\n');
}

/** Unified diff (3 lines of context) of two texts; empty string when equal. */
export function unifiedDiff(expected: string, actual: string, labels = ['expected (Python)', 'actual']): string {
  if (expected === actual) return '';
  const a = splitKeep(expected);
  const b = splitKeep(actual);
  // Trim common prefix/suffix, then LCS on the middle (bounded).
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const am = a.slice(pre, a.length - suf);
  const bm = b.slice(pre, b.length - suf);
  type Op = { t: ' ' | '-' | '+'; line: string; ai: number; bi: number };
  const ops: Op[] = [];
  if (am.length * bm.length <= 4_000_000) {
    const n = am.length;
    const m = bm.length;
    const dp: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        dp[i][j] = am[i] === bm[j] ? dp[i + 1][j + 1] + 1 : Math.max(dp[i + 1][j], dp[i][j + 1]);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && am[i] === bm[j]) {
        ops.push({ t: ' ', line: am[i], ai: pre + i, bi: pre + j });
        i++;
        j++;
      } else if (j < m && (i === n || dp[i][j + 1] >= dp[i + 1][j])) {
        ops.push({ t: '+', line: bm[j], ai: pre + i, bi: pre + j });
        j++;
      } else {
        ops.push({ t: '-', line: am[i], ai: pre + i, bi: pre + j });
        i++;
      }
    }
  } else {
    for (const [k, line] of am.entries()) ops.push({ t: '-', line, ai: pre + k, bi: pre });
    for (const [k, line] of bm.entries()) ops.push({ t: '+', line, ai: pre + am.length, bi: pre + k });
  }
  const ctx = 3;
  const before = a.slice(Math.max(0, pre - ctx), pre).map((line, k) => ({ t: ' ' as const, line, ai: pre - Math.min(ctx, pre) + k, bi: 0 }));
  const after = a.slice(a.length - suf, Math.min(a.length, a.length - suf + ctx)).map((line) => ({ t: ' ' as const, line, ai: 0, bi: 0 }));
  const startA = pre - before.length + 1;
  const out = [`--- ${labels[0]}`, `+++ ${labels[1]}`, `@@ -${startA} +${startA} @@`];
  for (const op of [...before, ...ops, ...after]) out.push(`${op.t} ${visible(op.line)}`);
  return out.join('\n');
}
