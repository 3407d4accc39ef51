/**
 * The bridge's own mechanics, against the stand-in libvllm (a test double of
 * vllm.cpp's C ABI with scripted outputs): loading, streaming order,
 * cancellation, concurrency, errors, engine death, close, and the chat
 * pipeline's chunk sequence. Expected prompts come from renderChat (itself
 * checked against pinned vLLM by the golden suite); expected parses are the
 * hand-derived OpenAI shapes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AbortError,
  Engine,
  EngineClosedError,
  EngineDeadError,
  EngineError,
  EngineUnavailableError,
  RequestValidationError,
  ToolArgumentsError,
  renderChat,
} from '../../src';
import type { ChatCompletionChunk } from '../../src';
import { toRequestValue } from '../../src/conversation';
import { buildFakeLibvllm, makeFakeModel } from '../support/fake-libvllm';

const ROOT = path.join(__dirname, '..', '..');
const GEMMA_STYLE = fs.readFileSync(path.join(ROOT, 'examples', 'chat_template.jinja'), 'utf8');
const GEMMA_CALL = '<|tool_call>call:terminal{command:<|"|>date<|"|>}<tool_call|>';
const TOOLS = [
  {
    type: 'function' as const,
    function: {
      name: 'terminal',
      description: 'Run a shell command',
      parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
    },
  },
];

// The stand-in is POSIX C (pthreads); on Windows these tests are skipped.
const posix = process.platform !== 'win32';
if (!posix) console.warn('stand-in libvllm tests skipped: the test double builds on POSIX systems only');

let lib: string;
const cleanup: string[] = [];
const engines: Engine[] = [];

function model(opts: Parameters<typeof makeFakeModel>[0]): string {
  const dir = makeFakeModel(opts);
  cleanup.push(dir);
  return dir;
}

async function load(opts: Parameters<typeof makeFakeModel>[0], extra: Partial<Parameters<typeof Engine.load>[0]> = {}): Promise<Engine> {
  const e = await Engine.load({ model: model(opts), library: lib, ...extra });
  engines.push(e);
  return e;
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

beforeAll(() => {
  if (posix) lib = buildFakeLibvllm();
});

afterAll(async () => {
  for (const e of engines) await e.close();
  for (const d of cleanup) fs.rmSync(d, { recursive: true, force: true });
});

describe.skipIf(!posix)('loading libvllm', () => {
  it('without a library names the option and the variable', async () => {
    const saved = process.env.VLLM_CPP_LIB;
    delete process.env.VLLM_CPP_LIB;
    try {
      const err = await Engine.load({ model: model({ rules: [] }) }).catch((e) => e);
      expect(err).toBeInstanceOf(EngineUnavailableError);
      expect(err.code).toBe('ERR_ENGINE_UNAVAILABLE');
      expect(err.message).toMatch(/VLLM_CPP_LIB/);
    } finally {
      if (saved !== undefined) process.env.VLLM_CPP_LIB = saved;
    }
  });

  it('a missing file and a library that is not libvllm are EngineUnavailableError', async () => {
    await expect(Engine.load({ model: model({ rules: [] }), library: '/nonexistent/libvllm.so' })).rejects.toBeInstanceOf(
      EngineUnavailableError,
    );
    const notVllm = process.execPath; // an executable, not a shared library with the ABI
    const err = await Engine.load({ model: model({ rules: [] }), library: notVllm }).catch((e) => e);
    expect(err).toBeInstanceOf(EngineUnavailableError);
  });

  it('a model the library cannot load is an EngineError with libvllm status', async () => {
    const dir = model({ rules: [] });
    fs.rmSync(path.join(dir, 'fake-script.txt'));
    const err = await Engine.load({ model: dir, library: lib }).catch((e) => e);
    expect(err).toBeInstanceOf(EngineError);
    expect(err.vllmStatus).toBe('VLLM_ERR_MODEL_LOAD');
    expect(err.message).toMatch(/no fake-script\.txt/);
  });
});

describe.skipIf(!posix)('complete and stream', () => {
  it('complete returns the text, finish reason and usage', async () => {
    const e = await load({ rules: [{ output: 'Hello, world!' }] });
    const r = await e.complete('Say hi');
    expect(r.text).toBe('Hello, world!');
    expect(r.finishReason).toBe('stop');
    // the stand-in counts code points
    expect(r.usage).toEqual({ prompt_tokens: 6, completion_tokens: 13, total_tokens: 19 });
  });

  it('stream delivers deltas in order, then the finish chunk', async () => {
    const text = 'The quick brown fox jumps over the lazy dog. Ünïcödé ✓ 🎉';
    const e = await load({ rules: [{ output: text, chunk: 2 }] });
    const chunks = await collect(e.stream('go'));
    const last = chunks.at(-1)!;
    expect(last.finishReason).toBe('stop');
    expect(last.usage?.completion_tokens).toBe([...text].length);
    expect(chunks.length).toBeGreaterThan(20);
    expect(chunks.map((c) => c.text).join('')).toBe(text);
    expect(chunks.slice(0, -1).every((c) => c.finishReason === undefined)).toBe(true);
  });

  it('max_tokens cuts the output with finish reason length', async () => {
    const e = await load({ rules: [{ output: 'abcdefghij' }] });
    const r = await e.complete('x', { max_tokens: 4 });
    expect(r).toMatchObject({ text: 'abcd', finishReason: 'length' });
  });

  it("every sampling field reaches the engine explicitly, with vLLM's defaults (never libvllm's)", async () => {
    const e = await load({ rules: [{ outputRequest: true }] });
    const defaults = JSON.parse((await e.complete('p')).text);
    expect(defaults).toMatchObject({
      temperature: 1,
      top_p: 1,
      top_k: 0,
      min_p: 0,
      presence_penalty: 0,
      frequency_penalty: 0,
      repetition_penalty: 1,
      min_tokens: 0,
      ignore_eos: false,
      stop: [],
      stream: true,
      stream_options: { include_usage: true },
      skip_special_tokens: false,
      messages: [{ role: 'user', content: 'p' }],
    });
    expect(defaults).not.toHaveProperty('max_tokens'); // unset: up to the model length, as vLLM
    expect(defaults).not.toHaveProperty('seed');
    const set = JSON.parse(
      (
        await e.complete('p', {
          temperature: 0.25,
          top_p: 0.5,
          top_k: 7,
          min_p: 0.05,
          max_completion_tokens: 999,
          max_tokens: 5,
          seed: 42,
          stop: 'END',
          presence_penalty: 0.5,
          frequency_penalty: -0.5,
          repetition_penalty: 1.1,
          min_tokens: 2,
          ignore_eos: true,
          response_format: { type: 'json_object' },
        })
      ).text,
    );
    expect(set).toMatchObject({
      temperature: 0.25,
      top_p: 0.5,
      top_k: 7,
      min_p: 0.05,
      max_tokens: 999, // max_completion_tokens wins, as in vLLM
      seed: 42,
      stop: ['END'],
      presence_penalty: 0.5,
      frequency_penalty: -0.5,
      repetition_penalty: 1.1,
      min_tokens: 2,
      ignore_eos: true,
      response_format: { type: 'json_object' },
    });
  });

  it("generation_config.json supplies defaults, as vLLM's --generation-config auto", async () => {
    const e = await load({ rules: [{ outputRequest: true }], generationConfig: { temperature: 0.6, top_p: 0.95, top_k: 20 } });
    expect(JSON.parse((await e.complete('p')).text)).toMatchObject({ temperature: 0.6, top_p: 0.95, top_k: 20 });
    expect(JSON.parse((await e.complete('p', { temperature: 0 })).text)).toMatchObject({ temperature: 0, top_p: 0.95 });
  });

  it('regex, choice and grammar constraints go through the request API; JSON ones through the chat entry point', async () => {
    const e = await load({ rules: [{ outputRequest: true }] });
    const viaComplete = await e.complete('p', { structured_outputs: { regex: 'a+b' }, max_tokens: 3000 });
    expect(viaComplete.text).toMatch(/regex=a\+b/);
    expect(viaComplete.text).toMatch(/temperature=1 top_p=1 top_k=0 min_p=0 max_tokens=3000 seed=none/);
    const streamed = await collect(e.stream('p', { structured_outputs: { choice: ['yes', 'no'] } }));
    expect(streamed.map((c) => c.text).join('')).toMatch(/choice=yes\|no/);
    expect(streamed.at(-1)).toMatchObject({ finishReason: 'stop', usage: undefined });
    const json = JSON.parse((await e.complete('p', { structured_outputs: { json: { type: 'object' } } })).text);
    expect(json.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'response', schema: { type: 'object' } } });
  });

  it('a stray token after a satisfied constraint is dropped and the finish is stop, as in vLLM', async () => {
    // libvllm lets one unconstrained token through after the constraint completes, then reports "error"
    const e = await load({ rules: [{ output: 'yes!', finish: 'error', chunk: 1 }] });
    const whole = await e.complete('p', { structured_outputs: { regex: 'yes|no' } });
    expect(whole).toMatchObject({ text: 'yes', finishReason: 'stop' });
    const streamed = await collect(e.stream('p', { structured_outputs: { choice: ['yes', 'no'] } }));
    expect(streamed.map((c) => c.text).join('')).toBe('yes');
    expect(streamed.at(-1)?.finishReason).toBe('stop');
    // output that does not satisfy the constraint keeps the engine's verdict
    expect(await e.complete('p', { structured_outputs: { regex: 'maybe' } })).toMatchObject({ text: 'yes!', finishReason: 'error' });
  });

  it('special tokens are removed unless skip_special_tokens is false', async () => {
    const e = await load({ rules: [{ output: `a${GEMMA_CALL}<eos>b` }], specialTokens: ['<|tool_call>', '<tool_call|>', '<|"|>'] });
    expect((await e.complete('p')).text).toBe('acall:terminal{command:date}b');
    expect((await e.complete('p', { skip_special_tokens: false })).text).toBe(`a${GEMMA_CALL}<eos>b`);
  });
});

describe.skipIf(!posix)('validation before anything is generated', () => {
  it('refuses n > 1, logprobs and removed fields with the field as path', async () => {
    const e = await load({ rules: [{ output: 'x' }] });
    for (const [params, p] of [
      [{ n: 2 }, 'n'],
      [{ logprobs: true }, 'logprobs'],
      [{ best_of: 2 }, 'best_of'],
      [{ guided_json: {} }, 'guided_json'],
      [{ temperature: -1 }, 'temperature'],
      [{ structured_outputs: { regex: 'a', choice: ['b'] } }, 'structured_outputs'],
    ] as const) {
      const err = await e.complete('p', params as never).catch((x) => x);
      expect(err, JSON.stringify(params)).toBeInstanceOf(RequestValidationError);
      expect(err.path).toBe(p);
    }
  });

  it('refuses regex features that would kill the engine, and the engine stays alive', async () => {
    const e = await load({ rules: [{ output: 'ok' }] });
    for (const regex of ['(?=a)b', '(?<name>a)', '(a)\\1', '(?i)a', '(?!x)']) {
      const err = await e.complete('p', { structured_outputs: { regex } }).catch((x) => x);
      expect(err, regex).toBeInstanceOf(RequestValidationError);
      expect(err.path).toBe('structured_outputs.regex');
    }
    expect((await e.complete('p', { structured_outputs: { regex: '(?:ab)+[(?]x' } })).text).toBe('ok');
  });
});

describe.skipIf(!posix)('cancellation, concurrency, errors, close', () => {
  it('an AbortSignal cancels a stream inside the engine', async () => {
    const e = await load({ rules: [{ output: 'x'.repeat(400), chunk: 1, delayMs: 5 }] });
    const ac = new AbortController();
    const seen: string[] = [];
    const err = await (async () => {
      for await (const c of e.stream('p', {}, { signal: ac.signal })) {
        seen.push(c.text);
        if (seen.length === 3) ac.abort();
      }
    })().catch((x) => x);
    expect(err).toBeInstanceOf(AbortError);
    expect(err.name).toBe('AbortError');
    expect(seen.length).toBe(3);
    for (let i = 0; i < 100 && e.activeRequests > 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(e.activeRequests).toBe(0);
  });

  it('an already aborted signal never reaches the engine; breaking out of a stream cancels it', async () => {
    const e = await load({ rules: [{ output: 'y'.repeat(200), chunk: 1, delayMs: 5 }] });
    await expect(e.complete('p', {}, { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(AbortError);
    for await (const c of e.stream('p')) {
      expect(c.text).toBe('y');
      break;
    }
    for (let i = 0; i < 100 && e.activeRequests > 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(e.activeRequests).toBe(0);
  });

  it('100 concurrent streams on one engine each get their own output', async () => {
    const rules = Array.from({ length: 10 }, (_, i) => ({ match: `#${i}#`, output: `answer-${i}-`.repeat(20), chunk: 3, delayMs: 1 }));
    const e = await load({ rules });
    const results = await Promise.all(
      Array.from({ length: 100 }, async (_, k) => {
        const chunks = await collect(e.stream(`request #${k % 10}#`));
        return { k, text: chunks.map((c) => c.text).join(''), finish: chunks.at(-1)?.finishReason };
      }),
    );
    for (const r of results) {
      expect(r.text).toBe(`answer-${r.k % 10}-`.repeat(20));
      expect(r.finish).toBe('stop');
    }
  });

  it('a failed request is an EngineError with the library status; the engine keeps serving', async () => {
    const e = await load({ rules: [{ match: 'bad', fail: 'scheduler rejected the request' }, { output: 'fine' }] });
    const err = await e.complete('bad').catch((x) => x);
    expect(err).toBeInstanceOf(EngineError);
    expect(err.vllmStatus).toBe('VLLM_ERR_RUNTIME');
    expect(err.message).toMatch(/scheduler rejected the request/);
    expect((await e.complete('ok')).text).toBe('fine');
  });

  it('a dead engine says so on every request until reload()', async () => {
    const e = await load({ rules: [{ match: 'poison', kill: true }, { output: 'alive' }] });
    const first = await e.complete('poison').catch((x) => x);
    expect(first).toBeInstanceOf(EngineDeadError);
    expect(first.code).toBe('ERR_ENGINE_DEAD');
    await expect(e.complete('hello')).rejects.toBeInstanceOf(EngineDeadError);
    expect(e.healthy).toBe(false);
    expect(e.deathReason).toMatch(/engine core is dead/);
    await e.reload();
    expect(e.healthy).toBe(true);
    expect((await e.complete('hello')).text).toBe('alive');
  });

  it('close() cancels live requests, waits for them, and refuses new ones', async () => {
    const e = await Engine.load({ model: model({ rules: [{ output: 'z'.repeat(2000), chunk: 1, delayMs: 2 }] }), library: lib });
    const running = Array.from({ length: 5 }, () => collect(e.stream('p')).catch((x) => x));
    await new Promise((r) => setTimeout(r, 30));
    expect(e.activeRequests).toBe(5);
    await e.close();
    expect(e.activeRequests).toBe(0);
    const outcomes = await Promise.all(running);
    for (const o of outcomes) expect(Array.isArray(o) ? o.at(-1).finishReason : o).toBe('abort');
    await expect(e.complete('p')).rejects.toBeInstanceOf(EngineClosedError);
    await e.close(); // idempotent
  });
});

describe.skipIf(!posix)('worker threads', () => {
  it('terminating workers with live streams never takes the process down', () => {
    const dir = model({ rules: [{ output: 'w'.repeat(5000), chunk: 1, delayMs: 1 }] });
    const script = `
      const { Worker } = require('node:worker_threads');
      const code = ${JSON.stringify(`
        const { parentPort, workerData } = require('node:worker_threads');
        const { Engine } = require(workerData.pkg);
        (async () => {
          const e = await Engine.load({ model: workerData.model, library: workerData.lib });
          for (let i = 0; i < 4; i++) (async () => { for await (const c of e.stream('p')) { if (c.text) parentPort.postMessage('delta'); } })().catch(() => {});
        })();
      `)};
      (async () => {
        for (let round = 0; round < 25; round++) {
          const w = new Worker(code, { eval: true, workerData: { pkg: process.argv[1], model: process.argv[2], lib: process.argv[3] } });
          await new Promise((resolve) => w.once('message', resolve));
          await w.terminate();
        }
        console.log('alive');
      })();
    `;
    const { execFileSync } = require('node:child_process') as typeof import('node:child_process');
    const out = execFileSync(process.execPath, ['-e', script, path.join(ROOT, 'dist', 'cjs', 'index.js'), dir, lib], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(out.trim()).toBe('alive');
  });
});

describe.skipIf(!posix)('process exit', () => {
  const run = (body: string, dir: string) => {
    const { spawnSync } = require('node:child_process') as typeof import('node:child_process');
    const script = `const { Engine } = require(process.argv[1]); (async () => { const e = await Engine.load({ model: process.argv[2], library: process.argv[3] }); ${body} })();`;
    return spawnSync(process.execPath, ['-e', script, path.join(ROOT, 'dist', 'cjs', 'index.js'), dir, lib], { encoding: 'utf8', timeout: 30_000 });
  };

  it('process.exit() with live streams exits cleanly', () => {
    const dir = model({ rules: [{ output: 'q'.repeat(5000), chunk: 1, delayMs: 1 }] });
    const r = run(`for (let i = 0; i < 4; i++) (async () => { for await (const c of e.stream('p')) { if (c.text) process.exit(7); } })();`, dir);
    expect(r.signal).toBeNull();
    expect(r.status).toBe(7);
  });

  it('an engine never closed does not keep the process alive, and exit frees it cleanly', () => {
    const dir = model({ rules: [{ output: 'done' }] });
    const r = run(`console.log((await e.complete('p')).text);`, dir);
    expect(r.signal).toBeNull();
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe('done');
  });
});

describe.skipIf(!posix)('chat: our render -> the engine -> our parsers', () => {
  const history = [{ role: 'user', content: 'What is the date on the server?' }];

  it('the engine receives exactly the prompt renderChat builds; its tokenizer adds no second BOS', async () => {
    const dir = model({ rules: [{ outputPrompt: true }], chatTemplate: GEMMA_STYLE, prependBos: true, specialTokens: ['<|tool_call>'] });
    const e = await Engine.load({ model: dir, library: lib });
    engines.push(e);
    // (skip_special_tokens: false so the echoed prompt keeps its <bos>)
    const r = await e.chat({ messages: history, tools: TOOLS, tool_choice: 'none', skip_special_tokens: false });
    const { prompt } = renderChat({ messages: history, tools: TOOLS }, { template: GEMMA_STYLE, bosToken: '<bos>', eosToken: '<eos>' });
    expect(prompt.startsWith('<bos><|turn>system')).toBe(true);
    expect(r.choices[0].message.content).toBe(prompt);
    expect(r.choices[0].finish_reason).toBe('stop');
    // a plain completion gets the BOS the model's post-processor adds, as vLLM's completions API does
    expect((await e.complete('Say hi', { skip_special_tokens: false })).text).toBe('<bos>Say hi');
    expect((await e.complete('<bos>Say hi', { skip_special_tokens: false }, { addSpecialTokens: false })).text).toBe('<bos>Say hi');
    expect((await e.complete('Say hi')).text).toBe('Say hi');
  });

  it('the serving directory: markers non-special, no post-processor, the pass-through template, everything else linked', async () => {
    const dir = model({ rules: [{ output: 'x' }], chatTemplate: GEMMA_STYLE, prependBos: true, specialTokens: ['<|tool_call>'] });
    const e = await Engine.load({ model: dir, library: lib });
    engines.push(e);
    const serving = (e as unknown as { servingDir: string }).servingDir;
    const tok = JSON.parse(fs.readFileSync(path.join(serving, 'tokenizer.json'), 'utf8'));
    expect(tok.post_processor).toBeNull();
    expect(tok.added_tokens.map((t: { content: string; special: boolean }) => [t.content, t.special])).toEqual([
      ['<bos>', false],
      ['<eos>', false],
      ['<|tool_call>', false],
    ]);
    expect(JSON.parse(fs.readFileSync(path.join(serving, 'tokenizer_config.json'), 'utf8'))).toMatchObject({
      chat_template: "{{ messages[0]['content'] }}",
      bos_token: '<bos>',
    });
    expect(fs.readlinkSync(path.join(serving, 'fake-script.txt'))).toBe(path.join(dir, 'fake-script.txt'));
    await e.close();
    expect(fs.existsSync(serving)).toBe(false);
  });

  it('a Gemma 4 tool call becomes OpenAI tool_calls with JSON-string arguments', async () => {
    const e = await load({ rules: [{ output: GEMMA_CALL, chunk: 4 }], chatTemplate: GEMMA_STYLE, prependBos: true, specialTokens: ['<|tool_call>', '<tool_call|>', '<|"|>'] });
    const r = await e.chat({ model: 'x', messages: history, tools: TOOLS });
    expect(r.object).toBe('chat.completion');
    expect(r.id).toMatch(/^chatcmpl-/);
    expect(r.choices[0].finish_reason).toBe('tool_calls');
    expect(r.choices[0].message.content).toBeNull();
    expect(r.choices[0].message.tool_calls).toHaveLength(1);
    expect(r.choices[0].message.tool_calls[0]).toMatchObject({ type: 'function', function: { name: 'terminal', arguments: '{"command": "date"}' } });
    expect(r.usage?.completion_tokens).toBe([...GEMMA_CALL].length);

    // the loop: append the call and its result; the next prompt renders the call as a mapping
    const next = [
      ...history,
      { role: 'assistant', content: r.choices[0].message.content, tool_calls: r.choices[0].message.tool_calls },
      { role: 'tool', tool_call_id: r.choices[0].message.tool_calls[0].id, content: 'Wed Jan 15 10:30:00 UTC 2026' },
    ];
    const { prompt } = renderChat({ messages: next, tools: TOOLS }, { template: GEMMA_STYLE, bosToken: '<bos>' });
    expect(prompt).toContain('call:terminal{command:<|"|>date<|"|>}');
  });

  it('chatStream: role chunk, tool-call deltas (id/type/name first, then arguments), finish, usage', async () => {
    const e = await load({ rules: [{ output: `Let me check.${GEMMA_CALL}`, chunk: 3 }], chatTemplate: GEMMA_STYLE, prependBos: true });
    const chunks: ChatCompletionChunk[] = await collect(
      e.chatStream({ messages: history, tools: TOOLS, stream: true, stream_options: { include_usage: true } }),
    );
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
    const content = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(content).toBe('Let me check.');
    const toolDeltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(toolDeltas[0]).toMatchObject({ index: 0, type: 'function', function: { name: 'terminal' } });
    expect(toolDeltas[0].id).toBeTruthy();
    expect(toolDeltas.slice(1).every((d) => d.id === undefined && d.function?.name === undefined)).toBe(true);
    expect(toolDeltas.map((d) => d.function?.arguments ?? '').join('')).toBe('{"command": "date"}');
    const finish = chunks.filter((c) => c.choices[0]?.finish_reason);
    expect(finish).toHaveLength(1);
    expect(finish[0].choices[0].finish_reason).toBe('tool_calls');
    const usage = chunks.at(-1)!;
    expect(usage.choices).toEqual([]);
    expect(usage.usage?.completion_tokens).toBe([...`Let me check.${GEMMA_CALL}`].length);
  });

  it('a call cut off by max_tokens arrives without arguments, finish_reason length', async () => {
    const e = await load({ rules: [{ output: GEMMA_CALL }], chatTemplate: GEMMA_STYLE, prependBos: true });
    const r = await e.chat({ messages: history, tools: TOOLS, max_tokens: 30 });
    expect(r.choices[0].finish_reason).toBe('length');
    for (const c of r.choices[0].message.tool_calls) expect(() => JSON.parse(c.function.arguments || '{}')).not.toThrow();
  });

  it('a Qwen3-style <tool_call> block is parsed by the hermes parser', async () => {
    const qwen =
      "{%- for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{%- endfor %}{%- if tools %}<tool_call>{%- endif %}<|im_start|>assistant\n";
    const out = 'Sure.\n<tool_call>\n{"name": "terminal", "arguments": {"command": "date"}}\n</tool_call>';
    const e = await load({ rules: [{ output: out, chunk: 5 }], chatTemplate: qwen, bosToken: '<|endoftext|>', eosToken: '<|im_end|>', specialTokens: ['<|im_start|>'] }, { reasoningParser: 'none' });
    const r = await e.chat({ messages: history, tools: TOOLS });
    expect(r.choices[0].message.tool_calls[0].function).toEqual({ name: 'terminal', arguments: '{"command": "date"}' });
    expect(r.choices[0].message.content).toBe('Sure.\n');
    expect(r.choices[0].finish_reason).toBe('tool_calls');
  });

  it('tool_choice "required" constrains to vLLM\'s JSON schema and reads the calls from the JSON', async () => {
    // the output is only a call when the request carried vLLM's schema for the tool
    const e = await load({
      rules: [
        { match: '"anyOf":[{"properties":{"name":{"type":"string","enum":["terminal"]},"parameters":', output: '[{"name": "terminal", "parameters": {"command": "ls -l", "n": 1.0}}]' },
        { output: 'no schema' },
      ],
      chatTemplate: GEMMA_STYLE,
      prependBos: true,
    });
    const r = await e.chat({ messages: history, tools: TOOLS, tool_choice: 'required' });
    expect(r.choices[0].finish_reason).toBe('tool_calls');
    expect(r.choices[0].message.tool_calls).toHaveLength(1);
    expect(r.choices[0].message.tool_calls[0].function).toEqual({ name: 'terminal', arguments: '{"command": "ls -l", "n": 1.0}' });
    // a named function: its parameters are the schema, the output is the arguments, finish_reason stays "stop"
    const named = await load({
      rules: [{ match: '"response_format":{"type":"json_schema","json_schema":{"name":"response","schema":{"type":"object","properties":{"command"', output: '{"command": "pwd"}' }, { output: 'no schema' }],
      chatTemplate: GEMMA_STYLE,
      prependBos: true,
    });
    const n = await named.chat({ messages: history, tools: TOOLS, tool_choice: { type: 'function', function: { name: 'terminal' } } });
    expect(n.choices[0].finish_reason).toBe('stop');
    expect(n.choices[0].message.tool_calls[0].function).toEqual({ name: 'terminal', arguments: '{"command": "pwd"}' });
  });

  it('malformed tool-call arguments in the history fail before any token is generated', async () => {
    const e = await load({ rules: [{ fail: 'the engine must not be called' }], chatTemplate: GEMMA_STYLE, prependBos: true });
    const bad = [
      ...history,
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'terminal', arguments: '{"command": ' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'x' },
    ];
    const err = await e.chat({ messages: bad, tools: TOOLS }).catch((x) => x);
    expect(err).toBeInstanceOf(ToolArgumentsError);
    expect(err.path).toBe('messages[1].tool_calls[0].function.arguments');
  });

  it('raw request text: the same answer and the same errors as the decoded request, whatever is wrong inside its messages', async () => {
    const e = await load({ rules: [{ outputPrompt: true }], chatTemplate: GEMMA_STYLE, prependBos: true, specialTokens: ['<|tool_call>'] });
    const body = { messages: history, tools: TOOLS, tool_choice: 'none', skip_special_tokens: false, temperature: 0.5 };
    const text = JSON.stringify(body, null, 1).replace('"messages"', '"m\\u0065ssages"');
    expect((await e.chat(text)).choices[0].message.content).toBe((await e.chat(body)).choices[0].message.content);
    const outcome = (x: unknown) => e.chat(x).then((r) => `ok ${r.choices[0].message.content}`, (err: Error) => `${err.name}: ${err.message}`);
    const noStream = ', "stream_options": {"include_usage": true}}';
    // the reference: the text decoded whole first (its error, if any), then the decoded value
    const reference = async (text: string): Promise<string> => {
      let value: unknown;
      try {
        value = toRequestValue(text);
      } catch (x) {
        return `${(x as Error).name}: ${(x as Error).message}`;
      }
      return outcome(value);
    };
    for (const bad of [
      // invalid JSON inside the messages: the decode error, not the stream_options one after it
      `{"messages": [{"role": "user", "content": "a}]${noStream}`,
      `{"messages": [{"role": "user", "content": "a"},]${noStream}`,
      `{"messages": [{"role": "user", "content": "a"}] ${noStream.slice(1)}`.replace('"content": "a"', '"content": "a" "b"'),
      `{"messages": ${'['.repeat(2000)}${']'.repeat(2000)}${noStream}`,
      // a valid text: the stream_options error; the messages' own problem after it
      `{"messages": [{"role": "user"}]${noStream}`,
      `{"messages": [{"role": "user", "content": "a"}], "messages": 5, "tool_choice": "none"}`,
      `{"tools": [], "messages": [{"role": "user", "content": "a"}], "tool_choice": "required"}`,
      '[1, 2]',
      '{"messages": [] ',
    ]) {
      expect(await outcome(bad), bad).toBe(await reference(bad));
    }
    // (the cases above reach each step: decode errors, the stream_options check, the renderer's and the tool checks)
    const seen = await Promise.all(['{"messages": [] ', `{"messages": [{"role": "user"}]${noStream}`].map(reference));
    expect(seen[0]).toMatch(/^RequestValidationError: Invalid JSON body: /);
    expect(seen[1]).toBe('RequestValidationError: Stream options can only be defined when `stream=True`.');
  });

});
