// Compiles src/ to CommonJS (dist/cjs) with declarations, then writes a thin
// ES module facade (dist/esm) that re-exports the CommonJS build. One module
// instance serves both `import` and `require`, so the native addon is loaded
// once and `instanceof` checks on error classes hold across both.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
rmSync(join(root, 'dist'), { recursive: true, force: true });
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(root, 'tsconfig.json')], {
  stdio: 'inherit',
  cwd: root,
});

const esm = join(root, 'dist', 'esm');
mkdirSync(esm, { recursive: true });
writeFileSync(join(esm, 'package.json'), '{ "type": "module" }\n');
// Export names are read from the declaration file, so the facade needs no
// native addon at build time.
const dts = readFileSync(join(root, 'dist', 'cjs', 'index.d.ts'), 'utf8');
const names = new Set();
for (const m of dts.matchAll(/export\s*\{([^}]*)\}/g)) {
  for (const part of m[1].split(',')) {
    const t = part.trim();
    if (!t || t.startsWith('type ')) continue;
    const alias = t.split(/\s+as\s+/).pop().trim();
    names.add(alias);
  }
}
for (const m of dts.matchAll(/export\s+declare\s+(?:abstract\s+)?(?:function|class|const|let|var)\s+([A-Za-z0-9_$]+)/g)) names.add(m[1]);
const typeOnly = new Set();
for (const m of dts.matchAll(/export\s+(?:declare\s+)?(?:type|interface)\s+([A-Za-z0-9_$]+)/g)) typeOnly.add(m[1]);
const values = [...names].filter((n) => !typeOnly.has(n)).sort();
writeFileSync(
  join(esm, 'index.js'),
  `import cjs from '../cjs/index.js';\nexport const { ${values.join(', ')} } = cjs;\nexport default cjs;\n`,
);
writeFileSync(join(esm, 'index.d.ts'), `export * from '../cjs/index.js';\n`);
console.log(`dist/cjs + dist/esm facade (${values.length} exports)`);
