/**
 * The addon is built by GCC, Clang and MSVC (win32-x64 prebuilds). GNU
 * spellings MSVC lacks (builtins, attributes, __int128) may only appear in
 * native/jinja/compiler.h, which maps them per compiler, or inside a
 * preprocessor branch that only GCC/Clang take.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.join(__dirname, '..', '..');
const DIRS = ['native/jinja', 'native/addon', 'native/engine'];
const GNU_ONLY = /__builtin_\w+|__attribute__\s*\(\(|\[\[gnu::|__int128|__typeof__|\btypeof\s*\(/;
const EXEMPT = new Set(['native/jinja/compiler.h']);

/** Lines of a C/C++ source that hold a GNU-only spelling outside a GCC/Clang-only branch. */
function unguardedGnuSpellings(source: string): Array<{ line: number; text: string }> {
  // one entry per open #if: whether the branch being read is GCC/Clang-only
  const stack: Array<{ gnu: boolean; cond: boolean }> = [];
  const found: Array<{ line: number; text: string }> = [];
  const lines = source.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!;
    const pp = /^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)$/.exec(text);
    if (pp) {
      const [, kw, rest] = pp;
      const mentionsGnu = /__GNUC__|__clang__/.test(rest!) && !/!\s*defined\s*\(\s*(__GNUC__|__clang__)/.test(rest!);
      if (kw === 'if' || kw === 'ifdef' || kw === 'ifndef') stack.push({ gnu: kw !== 'ifndef' && mentionsGnu, cond: mentionsGnu });
      else if (kw === 'elif') stack[stack.length - 1] = { gnu: mentionsGnu, cond: mentionsGnu };
      else if (kw === 'else') stack[stack.length - 1] = { gnu: false, cond: false };
      else stack.pop();
      continue;
    }
    const code = text.replace(/\/\/.*$/, '');
    if (GNU_ONLY.test(code) && !stack.some((s) => s.gnu)) found.push({ line: i + 1, text: text.trim() });
  }
  return found;
}

function sources(): string[] {
  const out: string[] = [];
  for (const dir of DIRS) {
    for (const f of fs.readdirSync(path.join(ROOT, dir))) {
      if (/\.(c|cc|cpp|h|hpp)$/.test(f)) out.push(`${dir}/${f}`);
    }
  }
  return out;
}

describe('native sources build with MSVC as well as GCC/Clang', () => {
  it('the checker sees unguarded spellings and accepts guarded ones', () => {
    expect(unguardedGnuSpellings('int f(unsigned x) { return __builtin_clz(x); }')).toHaveLength(1);
    expect(unguardedGnuSpellings('__attribute__((noinline)) void g();')).toHaveLength(1);
    expect(unguardedGnuSpellings('[[gnu::always_inline]] void g();')).toHaveLength(1);
    expect(unguardedGnuSpellings('__int128 x;')).toHaveLength(1);
    expect(unguardedGnuSpellings('#if defined(__GNUC__) || defined(__clang__)\nreturn __builtin_add_overflow(a, b, r);\n#else\nportable();\n#endif')).toHaveLength(0);
    expect(unguardedGnuSpellings('#if defined(__GNUC__)\nok();\n#else\nreturn __builtin_add_overflow(a, b, r);\n#endif')).toHaveLength(1);
    expect(unguardedGnuSpellings('#if !defined(__clang__)\nreturn __builtin_add_overflow(a, b, r);\n#endif')).toHaveLength(1);
    expect(unguardedGnuSpellings('// __builtin_clz in a comment\nint x;')).toHaveLength(0);
  });

  it('GNU-only spellings appear only in compiler.h or GCC/Clang-only branches', () => {
    const files = sources();
    expect(files.length).toBeGreaterThan(20);
    const bad: string[] = [];
    for (const f of files) {
      if (EXEMPT.has(f)) continue;
      for (const hit of unguardedGnuSpellings(fs.readFileSync(path.join(ROOT, f), 'utf8'))) bad.push(`${f}:${hit.line}: ${hit.text}`);
    }
    expect(bad).toEqual([]);
  });

  it('compiler.h gives every macro an MSVC spelling', () => {
    const h = fs.readFileSync(path.join(ROOT, 'native/jinja/compiler.h'), 'utf8');
    expect(h).toMatch(/defined\(_MSC_VER\) && !defined\(__clang__\)/);
    for (const m of ['JINJA_ALWAYS_INLINE', 'JINJA_NOINLINE']) expect(h.match(new RegExp(`#define ${m}\\b`, 'g'))).toHaveLength(2);
    expect(h).toMatch(/_AddressOfReturnAddress/);
    expect(h).toMatch(/_M_X64/);
  });
});
