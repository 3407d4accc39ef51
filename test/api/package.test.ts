/** The published entry points: CommonJS and the ES module facade expose the same API objects. */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { expect, it } from 'vitest';

const root = path.join(__dirname, '..', '..');

it('require() and import() give the same exports, and errors are the same classes', () => {
  const script = `
    const cjs = require(${JSON.stringify(root)});
    import(${JSON.stringify(path.join(root, 'dist', 'esm', 'index.js'))}).then((esm) => {
      const names = Object.keys(cjs).sort();
      const same = names.every((n) => esm[n] === cjs[n]);
      const r = esm.renderChat({ messages: [{ role: 'user', content: 'hi' }] }, { template: '{{ messages[0].content }}|{{ tools }}' });
      console.log(JSON.stringify({ names: names.length, same, prompt: r.prompt, schema: typeof esm.ChatCompletionRequestSchema.parse }));
    });`;
  const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: root }).toString());
  expect(out.same).toBe(true);
  expect(out.names).toBeGreaterThan(40);
  // tools absent -> None, as transformers passes it
  expect(out.prompt).toBe('hi|None');
  expect(out.schema).toBe('function');
});
