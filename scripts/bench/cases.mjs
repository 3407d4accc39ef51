// The bench cases shared by scripts/bench.mjs and its child processes:
// agentic tool-call histories of a chosen length and a small Gemma 4 agent
// request, with the tools an agent sends.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const NOW = '2026-01-15T10:30:00';
export const NOW_FIELDS = [2026, 1, 15, 10, 30, 0, 0];

export const TOOLS = ['terminal', 'write_file', 'search'].map((name) => ({
  type: 'function',
  function: {
    name,
    description: `The ${name} tool.`,
    parameters: { type: 'object', properties: { command: { type: 'string' }, path: { type: 'string' }, content: { type: 'string' } }, required: [] },
  },
}));

/**
 * An agentic history of `total` messages (total >= 4, even): system, user,
 * (assistant tool call, tool result) pairs, a final answer and a user turn.
 * history(100) is the 50-turn history the bench has always used.
 */
export function history(total = 100) {
  const messages = [
    { role: 'system', content: 'You are a coding agent. Use the tools to inspect and change the repository.' },
    { role: 'user', content: 'Find why the build fails on CI and fix it. Keep the change minimal.' },
  ];
  const pairs = Math.max(0, Math.floor((total - 4) / 2));
  for (let i = 0; i < pairs; i++) {
    const id = `call_${i}`;
    const args = i % 3 === 0
      ? { command: `grep -rn "TODO ${i}" src/ | head -n 20`, timeout: 30.0 }
      : i % 3 === 1
        ? { path: `src/module_${i}.ts`, content: `export const value${i} = ${i};\nexport function f${i}(x: number) {\n  return x * ${i} + "\\"quoted\\"";\n}\n` }
        : { query: `failing test ${i}`, limit: 10, filters: { lang: 'ts', paths: ['src', 'test'] } };
    const name = i % 3 === 0 ? 'terminal' : i % 3 === 1 ? 'write_file' : 'search';
    messages.push({ role: 'assistant', content: i % 4 === 0 ? `Step ${i}: checking.` : null, tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] });
    messages.push({ role: 'tool', tool_call_id: id, content: `result ${i}: ` + 'ok '.repeat(20 + (i % 7)) });
  }
  messages.push({ role: 'assistant', content: 'The build failed because of a missing export; fixed in src/module_1.ts.' });
  messages.push({ role: 'user', content: 'Thanks. Now run the tests again.' });
  return { messages, tools: TOOLS };
}

/**
 * `request` with its own first message (`[i] ` before its content): a
 * request that shares no leading message with request j != i, as a new
 * conversation does (the cold requests of the benches).
 */
export function withOwnFirstMessage(request, i) {
  const [first, ...rest] = request.messages;
  return { ...request, messages: [{ ...first, content: `[${i}] ${first.content}` }, ...rest] };
}

/** A realistic small Gemma 4 agent request: one tool call and its result, then the next user turn (6 messages, 3 tools). */
export function smallToolLoop() {
  const r = JSON.parse(readFileSync(join(root, 'examples', 'tool-loop.json'), 'utf8'));
  return { model: 'gemma-4', messages: r.messages, tools: [...r.tools, ...TOOLS.slice(1)], temperature: 0.7, max_tokens: 1024 };
}

export function templatesDir(argvDir) {
  return argvDir ?? process.env.NODE_VLLM_CPP_TEMPLATES ?? join(root, '..', 'shared', 'templates');
}

/** [name, template file, request] for the four bench cases; a missing template gives a skip reason instead. */
export function benchCases(dir) {
  const list = [
    ['gemma4 tool loop (6 msgs)', 'gemma4__official_v4.jinja', smallToolLoop()],
    ['gemma4 50 turns', 'gemma4__official_v4.jinja', history(100)],
    ['qwen3 50 turns', 'qwen3__official.jinja', history(100)],
    ['qwen3 200 msgs', 'qwen3__official.jinja', history(200)],
  ];
  return list.map(([name, file, request]) => {
    const path = join(dir, file);
    return existsSync(path) ? { name, file, path, request } : { name, file, path, skip: `${path} not found` };
  });
}
