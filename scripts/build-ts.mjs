// Compiles src/ to CommonJS (dist/cjs) with declarations, then writes a thin
// ES module facade (dist/esm) that re-exports the CommonJS build. One module
// instance serves both `import` and `require`, so the native addon is loaded
// once and `instanceof` checks on error classes hold across both.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
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
// The CommonJS build loads the native addon lazily, so requiring it here
// only enumerates the export names.
const values = Object.keys(require(join(root, 'dist', 'cjs', 'index.js'))).filter((n) => n !== 'default').sort();
writeFileSync(
  join(esm, 'index.js'),
  `import cjs from '../cjs/index.js';\nexport const { ${values.join(', ')} } = cjs;\nexport default cjs;\n`,
);
writeFileSync(join(esm, 'index.d.ts'), `export * from '../cjs/index.js';\n`);
console.log(`dist/cjs + dist/esm facade (${values.length} exports)`);
