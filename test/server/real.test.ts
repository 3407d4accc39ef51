/**
 * `node-vllm-cpp serve --model DIR --library LIB` with the real vllm.cpp
 * engine and a tiny random-weight checkpoint, driven by the openai client.
 * Runs when VLLM_CPP_LIB names a libvllm build and the checkpoint can be
 * generated (test/support/tiny-model.ts); reported as skipped otherwise.
 *
 * The model's text is arbitrary, so the tool call of the first turn is forced
 * with vLLM's structured_outputs regex; the second turn's prompt is judged by
 * its token count against the golden prompt pinned Python vLLM rendered for
 * the same history (test/golden/expected, case gemma4_terminal).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine';
import { generateTinyModel, realEngineSkipReason, VLLM_CPP_LIB } from '../support/tiny-model';
import { client, killServed, startServe, type Served } from './support';

const ROOT = path.join(__dirname, '..', '..');
const LIB = VLLM_CPP_LIB;
const built = fs.existsSync(path.join(ROOT, 'dist', 'cjs', 'cli', 'serve.js'));
const why = realEngineSkipReason() || (built ? '' : 'dist/ is not built');
if (why) console.warn(`serve against the real vllm.cpp engine skipped: ${why}`);

const GOLDEN_CASE = JSON.parse(fs.readFileSync(path.join(ROOT, 'test/golden/cases/gemma4_terminal.json'), 'utf8'));
const CALL = '<|tool_call>call:terminal{command:<|"|>date<|"|>}<tool_call|>';
const escapeRegex = (s: string): string => s.replace(/[|{}()[\]\\.*+?^$]/g, (m) => '\\' + m);

describe.skipIf(why !== '')('serve on the real vllm.cpp engine', () => {
  let dir: string;
  let served: Served;

  beforeAll(async () => {
    dir = generateTinyModel('gemma4');
    served = await startServe(['--model', dir, '--library', LIB!, '--threads', '1', '--max-model-len', '2048', '--served-model-name', 'tiny', '--tool-call-parser', 'gemma4']);
  }, 120_000);

  afterAll(() => {
    killServed();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the streaming tool loop: a forced call parsed from the stream, the string arguments rendered as vLLM does', async () => {
    const openai = client(served.base);
    const tools = GOLDEN_CASE.request.tools as ChatCompletionTool[];
    const first = GOLDEN_CASE.request.messages[0] as ChatCompletionMessageParam;
    const stream = await openai.chat.completions.create({
      model: 'tiny',
      messages: [first],
      tools,
      temperature: 0,
      max_tokens: 64,
      stream: true,
      stream_options: { include_usage: true },
      // vLLM's extension, passed through by the client
      structured_outputs: { regex: escapeRegex(CALL) },
    } as Parameters<typeof openai.chat.completions.create>[0] & { stream: true });
    let id = '';
    let name = '';
    let args = '';
    let finish: string | null = null;
    for await (const c of stream) {
      const tc = c.choices[0]?.delta?.tool_calls?.[0];
      if (tc?.id) id = tc.id;
      if (tc?.function?.name) name += tc.function.name;
      if (tc?.function?.arguments) args += tc.function.arguments;
      finish = c.choices[0]?.finish_reason ?? finish;
    }
    expect(finish).toBe('tool_calls');
    expect(name).toBe('terminal');
    expect(args).toBe('{"command": "date"}');

    const messages: ChatCompletionMessageParam[] = [
      first,
      { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: args } }] },
      { role: 'tool', tool_call_id: id, content: GOLDEN_CASE.request.messages[2].content },
    ];
    let usage: { prompt_tokens: number; completion_tokens: number } | undefined;
    let text = '';
    for await (const c of await openai.chat.completions.create({
      model: 'tiny',
      messages,
      tools,
      tool_choice: 'none',
      temperature: 0,
      max_tokens: 8,
      stream: true,
      stream_options: { include_usage: true },
    })) {
      text += c.choices[0]?.delta?.content ?? '';
      if (c.usage) usage = c.usage;
    }
    expect(usage?.completion_tokens).toBeGreaterThan(0);
    expect(typeof text).toBe('string');
    // The engine tokenized exactly pinned vLLM's prompt for this history: same token count as the golden prompt.
    const golden = JSON.parse(fs.readFileSync(path.join(ROOT, 'test/golden/expected/gemma4__official_v4.json'), 'utf8')).cases.gemma4_terminal.prompt as string;
    const engine = await Engine.load({ model: dir, library: LIB, threads: 1, maxModelLen: 2048 });
    try {
      const ref = await engine.complete(golden, { max_tokens: 1, temperature: 0 }, { addSpecialTokens: false });
      expect(usage?.prompt_tokens).toBe(ref.usage.prompt_tokens);
    } finally {
      await engine.close();
    }
  }, 120_000);

  it('a client abort mid-stream leaves the engine idle and the server serving', async () => {
    const openai = client(served.base);
    const ac = new AbortController();
    let n = 0;
    await (async () => {
      for await (const c of await openai.chat.completions.create(
        { model: 'tiny', messages: [{ role: 'user', content: 'Talk for a long time.' }], max_tokens: 1500, temperature: 0, stream: true, ignore_eos: true } as Parameters<
          typeof openai.chat.completions.create
        >[0] & { stream: true },
        { signal: ac.signal },
      )) {
        if (c.choices[0]?.delta?.content) n++;
        if (n === 2) ac.abort();
      }
    })().catch(() => {});
    // chunks already in flight may still arrive after the abort, but not the rest of 1500 tokens
    expect(n).toBeGreaterThanOrEqual(2);
    expect(n).toBeLessThan(100);
    let m = '';
    for (let i = 0; i < 100 && !/^node_vllm_cpp_requests_running 0$/m.test(m); i++) {
      m = await (await fetch(`${served.base}/metrics`)).text();
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(m).toMatch(/^node_vllm_cpp_requests_running 0$/m);
    const r = await openai.chat.completions.create({ model: 'tiny', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 4, temperature: 0 });
    expect(r.usage?.completion_tokens).toBeGreaterThan(0);
  }, 120_000);
});
