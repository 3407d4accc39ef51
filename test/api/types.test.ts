/**
 * The public types, checked by the TypeScript compiler as a user's editor
 * would: every ```ts block of README.md exactly as written, the official
 * openai package's request types, and calls that must be rejected. One tsc
 * run (--strict) against the package's types (src/index.ts, which dist/*.d.ts
 * is compiled from).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, it } from 'vitest';

const root = path.join(__dirname, '..', '..');

export interface Block {
  /** 1-based README line of the block's first code line. */
  line: number;
  code: string;
}

/** The fenced ```ts / ```typescript blocks of a Markdown text. */
export function tsBlocks(markdown: string): Block[] {
  const out: Block[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,})\s*(ts|typescript)\s*$/.exec(lines[i]);
    if (!open) continue;
    const fence = open[2];
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !lines[j].trimStart().startsWith(fence); j++) body.push(lines[j]);
    out.push({ line: i + 2, code: body.join('\n') + '\n' });
    i = j;
  }
  return out;
}

it('finds the README blocks (fence detection)', () => {
  expect(tsBlocks('a\n```ts\nconst x = 1;\n```\n```sh\nls\n```\n```typescript\nlet y;\n```\n')).toEqual([
    { line: 3, code: 'const x = 1;\n' },
    { line: 9, code: 'let y;\n' },
  ]);
});

it('README TypeScript blocks, openai request types and must-fail calls pass tsc --strict', () => {
  const blocks = tsBlocks(fs.readFileSync(path.join(root, 'README.md'), 'utf8'));
  expect(blocks.length).toBeGreaterThanOrEqual(4);
  // Inside the package so that bare imports (openai, @types/node) resolve from its node_modules.
  const dir = path.join(root, 'node_modules', '.cache', `readme-ts-${process.pid}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  try {
    const files: string[] = [];
    for (const b of blocks) {
      const f = path.join(dir, `README.md-line-${b.line}.ts`);
      // each block is its own module, as a reader would paste it into a file
      fs.writeFileSync(f, b.code + '\nexport {};\n');
      files.push(f);
    }
    for (const f of ['openai-compat.ts', 'must-fail.ts']) files.push(path.join(__dirname, 'types', f));
    const tsconfig = {
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: 'ES2022',
        lib: ['ES2022'],
        module: 'commonjs',
        moduleResolution: 'node10',
        esModuleInterop: true,
        skipLibCheck: true,
        types: ['node'],
        typeRoots: [path.join(root, 'node_modules', '@types')],
        baseUrl: root,
        paths: { 'node-vllm-cpp': [path.join(root, 'src', 'index.ts')] },
      },
      files,
    };
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
    let output = '';
    let status = 0;
    try {
      execFileSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir, '--pretty', 'false'], { cwd: root, stdio: 'pipe' });
    } catch (e) {
      const err = e as { status: number; stdout: Buffer; stderr: Buffer };
      status = err.status;
      output = err.stdout.toString() + err.stderr.toString();
    }
    // README.md-line-N.ts(l,c): point at the README line the reader sees
    const readable = output.replace(/[^\s(]*README\.md-line-(\d+)\.ts\((\d+),(\d+)\)/g, (_, start, l, c) => `README.md:${Number(start) + Number(l) - 1}:${c}`);
    expect(readable, readable).toBe('');
    expect(status).toBe(0);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

it('an openai ChatCompletionCreateParams body renders: fields the renderer does not read are ignored', async () => {
  const { renderChat } = await import('../../src');
  const template = '{% for m in messages %}[{{ m.role }}:{{ m.content }}]{% endfor %}{{ tools | length }}';
  const body = {
    model: 'gemma-4', temperature: 0.2, stream: true, max_completion_tokens: 64, user: 'u1',
    messages: [{ role: 'user', content: 'hi', name: 'alice' }],
    tools: [{ type: 'function' as const, function: { name: 'f', parameters: { type: 'object', properties: {} } } }],
  };
  expect(renderChat(body, { template }).prompt).toBe('[user:hi]1');
  // and a custom tool, which the types accept, is rejected as vLLM rejects it
  const custom = { messages: body.messages, tools: [{ type: 'custom' as const, custom: { name: 'g' } }] };
  expect(() => renderChat(custom, { template })).toThrow(/tools/);
});
