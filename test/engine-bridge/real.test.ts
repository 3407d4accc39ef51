/**
 * The bridge against the real vllm.cpp engine. Runs when VLLM_CPP_LIB names a
 * libvllm build; reported as skipped otherwise (never passed). The models are
 * tiny random-weight checkpoints generated into a temporary directory by
 * scripts/tiny-model/generate.py (numpy, safetensors, tokenizers; the Python
 * is NODE_VLLM_CPP_PYTHON, scripts/tiny-model/.venv, or python3), with their
 * markers as special tokens, so tool calls only reach our parsers because the
 * bridge keeps special tokens visible.
 *
 * The tool loops are judged by the golden prompts pinned Python vLLM rendered
 * for the same history (test/golden/expected, case gemma4_terminal).
 * NODE_VLLM_CPP_GEMMA4_MODEL / NODE_VLLM_CPP_QWEN3_MODEL run the same tests on
 * real checkpoints (e.g. on a CUDA machine); the calls are forced by a regex
 * constraint, so any weights produce them.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AbortError, Engine, renderChat } from '../../src';
import { generateTinyModel, realEngineSkipReason, VLLM_CPP_LIB as LIB } from '../support/tiny-model';

const ROOT = path.join(__dirname, '..', '..');
const why = realEngineSkipReason();
const run = why === '';
if (!run) console.warn(`real vllm.cpp engine tests skipped: ${why}`);

const GOLDEN_CASE = JSON.parse(fs.readFileSync(path.join(ROOT, 'test/golden/cases/gemma4_terminal.json'), 'utf8'));
function goldenPrompt(template: string): string {
  const file = JSON.parse(fs.readFileSync(path.join(ROOT, 'test/golden/expected', `${template}.json`), 'utf8'));
  const c = file.cases.gemma4_terminal;
  expect(c.ok).toBe(true);
  return c.prompt as string;
}

function escapeRegex(s: string): string {
  return s.replace(/[|{}()[\]\\.*+?^$]/g, (m) => '\\' + m);
}

const dirs: string[] = [];
/** A real checkpoint named by NODE_VLLM_CPP_GEMMA4_MODEL / NODE_VLLM_CPP_QWEN3_MODEL, else a generated tiny one. */
function tinyModel(template: 'gemma4' | 'qwen3'): string {
  const given = process.env[`NODE_VLLM_CPP_${template.toUpperCase()}_MODEL`];
  if (given) return given;
  const out = generateTinyModel(template);
  dirs.push(out);
  return out;
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe.skipIf(!run)('the real vllm.cpp engine', () => {
  let gemmaDir: string;
  let gemma: Engine;

  beforeAll(async () => {
    gemmaDir = tinyModel('gemma4');
    gemma = await Engine.load({ model: gemmaDir, library: LIB, threads: 1, maxModelLen: 2048 });
  }, 120_000);

  afterAll(async () => {
    await gemma?.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('loads and completes greedily, deterministically', async () => {
    const a = await gemma.complete('Hello world', { max_tokens: 24, temperature: 0 });
    const b = await gemma.complete('Hello world', { max_tokens: 24, temperature: 0 });
    expect(a.finishReason).toBe('length');
    expect(a.usage.completion_tokens).toBe(24);
    expect(a.usage.prompt_tokens).toBeGreaterThan(1);
    expect(b.text).toBe(a.text);
  });

  it('streams the same text in several deltas', async () => {
    const whole = await gemma.complete('Streaming test', { max_tokens: 32, temperature: 0 });
    const chunks = await collect(gemma.stream('Streaming test', { max_tokens: 32, temperature: 0 }));
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.map((c) => c.text).join('')).toBe(whole.text);
    expect(chunks.at(-1)).toMatchObject({ finishReason: 'length', usage: whole.usage });
  });

  it('seeded sampling repeats; another seed differs', async () => {
    const p = { max_tokens: 32, temperature: 1, seed: 7 };
    const a = await gemma.complete('Seeds', p);
    const b = await gemma.complete('Seeds', p);
    const c = await gemma.complete('Seeds', { ...p, seed: 8 });
    expect(b.text).toBe(a.text);
    expect(c.text).not.toBe(a.text);
  });

  it('cancels a long stream through its AbortSignal', async () => {
    const ac = new AbortController();
    let n = 0;
    const err = await (async () => {
      for await (const c of gemma.stream('Cancel me', { max_tokens: 1500, ignore_eos: true, temperature: 0 }, { signal: ac.signal })) {
        if (c.text) n++;
        if (n === 2) ac.abort();
      }
    })().catch((e) => e);
    expect(err).toBeInstanceOf(AbortError);
    for (let i = 0; i < 200 && gemma.activeRequests > 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(gemma.activeRequests).toBe(0);
    expect((await gemma.complete('after cancel', { max_tokens: 4, temperature: 0 })).usage.completion_tokens).toBe(4);
  });

  it('serves 8 concurrent requests', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => gemma.complete(`concurrent ${i}`, { max_tokens: 16, temperature: 0, ignore_eos: true })),
    );
    for (const r of results) expect(r).toMatchObject({ finishReason: 'length', usage: { completion_tokens: 16 } });
  });

  it('the full Gemma 4 tool loop: a forced call is parsed, and the next prompt equals pinned vLLM\'s', async () => {
    const call = '<|tool_call>call:terminal{command:<|"|>date<|"|>}<tool_call|>';
    const request = {
      messages: [GOLDEN_CASE.request.messages[0]],
      tools: GOLDEN_CASE.request.tools,
      temperature: 0,
      max_tokens: 64,
      structured_outputs: { regex: escapeRegex(call) },
    };
    const r = await gemma.chat(request);
    const msg = r.choices[0].message;
    expect(msg.tool_calls).toHaveLength(1);
    expect(msg.tool_calls[0].function).toEqual({ name: 'terminal', arguments: '{"command": "date"}' });
    expect(r.choices[0].finish_reason).toBe('tool_calls');

    const next = {
      messages: [
        GOLDEN_CASE.request.messages[0],
        { role: 'assistant', content: msg.content, tool_calls: msg.tool_calls },
        { role: 'tool', tool_call_id: msg.tool_calls[0].id, content: GOLDEN_CASE.request.messages[2].content },
      ],
      tools: GOLDEN_CASE.request.tools,
    };
    const { prompt } = renderChat(next, { templatePath: gemmaDir });
    expect(prompt).toContain('call:terminal{command:<|"|>date<|"|>}');
    expect(prompt).toBe(goldenPrompt('gemma4__official_v4'));
    // and the engine generates from it
    const after = await gemma.chat({ ...next, max_tokens: 8, temperature: 0, tool_choice: 'none' });
    expect(after.usage?.completion_tokens).toBeGreaterThan(0);
  });

  it('the same loop with Qwen3 and the hermes parser', async () => {
    const dir = tinyModel('qwen3');
    const qwen = await Engine.load({ model: dir, library: LIB, threads: 1, maxModelLen: 2048, reasoningParser: 'none' });
    try {
      const call = '<tool_call>\n{"name": "terminal", "arguments": {"command": "date"}}\n</tool_call>';
      const r = await qwen.chat({
        messages: [GOLDEN_CASE.request.messages[0]],
        tools: GOLDEN_CASE.request.tools,
        temperature: 0,
        max_tokens: 64,
        structured_outputs: { regex: escapeRegex(call) },
      });
      const msg = r.choices[0].message;
      expect(msg.tool_calls.map((c) => c.function)).toEqual([{ name: 'terminal', arguments: '{"command": "date"}' }]);
      expect(r.choices[0].finish_reason).toBe('tool_calls');
      const { prompt } = renderChat(
        {
          messages: [
            GOLDEN_CASE.request.messages[0],
            { role: 'assistant', content: msg.content, tool_calls: msg.tool_calls },
            { role: 'tool', tool_call_id: msg.tool_calls[0].id, content: GOLDEN_CASE.request.messages[2].content },
          ],
          tools: GOLDEN_CASE.request.tools,
        },
        { templatePath: dir },
      );
      expect(prompt).toBe(goldenPrompt('qwen3__official'));
    } finally {
      await qwen.close();
    }
  });
});
