/**
 * renderChatAsync's worker pool: for every golden case x template, the async
 * result (or error) is the one renderChat gives, for the request as an object
 * and as raw JSON text; prompts match what pinned Python vLLM rendered
 * (test/golden/expected); the pool really did the work; an idle pool never
 * keeps a process alive.
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BackendError, compileTemplate, renderChat, renderChatAsync, ToolArgumentsError, type RenderChatOptions, type RenderChatResult } from '../../src';
import { RenderPool, renderPool } from '../../src/async';
import { WORKER_TEMPLATE_LIMIT } from '../../src/async/pool';
import { compileEntry, goldenDirs, listTemplates, loadExpected, loadGoldenCases, type GoldenCase } from '../../src/golden/suite';
import { parsePyJson, PyFloat, serializePyJson } from '../../src/protocol/pyjson';

const root = path.join(__dirname, '..', '..');
const dirs = goldenDirs();
const cases = loadGoldenCases(dirs.cases);
const templates = listTemplates(dirs.templates);

type Outcome = { ok: true; result: RenderChatResult } | { ok: false; error: unknown };

function shapeOfError(e: unknown): unknown {
  if (typeof e !== 'object' || e === null) return { thrown: e };
  const own: Record<string, unknown> = {};
  for (const k of Object.getOwnPropertyNames(e)) if (k !== 'stack') own[k] = (e as Record<string, unknown>)[k];
  return own;
}

function syncOutcome(request: unknown, opts: RenderChatOptions): Outcome {
  try {
    return { ok: true, result: renderChat(request as string, opts) };
  } catch (error) {
    return { ok: false, error };
  }
}

async function asyncOutcome(request: unknown, opts: RenderChatOptions): Promise<Outcome> {
  try {
    return { ok: true, result: await renderChatAsync(request as string, opts) };
  } catch (error) {
    return { ok: false, error };
  }
}

function expectSame(a: Outcome, s: Outcome, what: string): void {
  expect(a.ok, `${what}: ${a.ok ? 'rendered' : String(a.error)} vs ${s.ok ? 'rendered' : String(s.error)}`).toBe(s.ok);
  if (a.ok && s.ok) {
    // toStrictEqual compares prototypes (PyFloat) and undefined-valued keys too
    expect(a.result, what).toStrictEqual(s.result);
    // key order, Python order included
    expect(serializePyJson([a.result.messages, a.result.tools]), what).toBe(serializePyJson([s.result.messages, s.result.tools]));
  } else if (!a.ok && !s.ok) {
    expect(a.error instanceof Error, what).toBe(s.error instanceof Error);
    if (typeof s.error === 'object' && s.error !== null) expect(Object.getPrototypeOf(a.error), what).toBe(Object.getPrototypeOf(s.error));
    expect(shapeOfError(a.error), what).toStrictEqual(shapeOfError(s.error));
  }
}

function optionsFor(c: GoldenCase, template: RenderChatOptions['template']): RenderChatOptions {
  return { template, bosToken: c.bosToken, eosToken: c.eosToken, now: c.now ?? '2026-01-15T10:30:00', policy: c.policy };
}

describe('worker pool', () => {
  it('is available (the compiled worker exists) and sized to the machine', () => {
    const pool = renderPool();
    expect(pool.script, 'dist/cjs/async/worker.js missing: run npm run build:ts').toBeDefined();
    expect(pool.size).toBeGreaterThanOrEqual(1);
  });

  it('takes text and plain-object requests; keeps PyFloat requests on the calling thread with the same result', async () => {
    const pool = renderPool();
    const opts: RenderChatOptions = { template: '{{ messages[0].content }}|{{ messages[1].tool_calls[0].function.arguments }}' };
    const text = '{"messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{\\"t\\": 30.0, \\"2\\": 1, \\"1\\": 2}"}}]}]}';
    const before = pool.submitted;
    const fromText = await renderChatAsync(text, opts);
    expect(pool.submitted).toBe(before + 1);
    // Python: json.loads keeps 30.0 a float and the key order "2", "1"
    expect(fromText.prompt).toBe("hi|{'t': 30.0, '2': 1, '1': 2}");
    const args = (fromText.messages[1] as { tool_calls: { function: { arguments: Record<string, unknown> } }[] }).tool_calls[0].function.arguments;
    expect(args.t).toBeInstanceOf(PyFloat);
    expect(Object.keys(args)).toEqual(['1', '2', 't']);
    expectSame({ ok: true, result: fromText }, syncOutcome(text, opts), 'text');

    const obj = JSON.parse(text);
    await renderChatAsync(obj, opts);
    expect(pool.submitted).toBe(before + 2);

    const decoded = parsePyJson('{"messages":[{"role":"user","content":"x"}],"chat_template_kwargs":{"f":1.0}}');
    const o2: RenderChatOptions = { template: '{{ f }}' };
    const a = await renderChatAsync(decoded as never, o2);
    expect(pool.submitted).toBe(before + 2);
    expect(a.prompt).toBe('1.0');
    expectSame({ ok: true, result: a }, syncOutcome(decoded, o2), 'PyFloat kwargs');
    expect(pool.workers).toBeGreaterThanOrEqual(1);
  });

  it('errors are rebuilt as the public classes with their fields', async () => {
    const text = '{"messages":[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{\\"x\\""}}]}]}';
    const opts: RenderChatOptions = { template: '{{ messages }}' };
    const s = syncOutcome(text, opts);
    const a = await asyncOutcome(text, opts);
    expect(a.ok).toBe(false);
    if (!a.ok) {
      expect(a.error).toBeInstanceOf(ToolArgumentsError);
      expect((a.error as ToolArgumentsError).code).toBe('ERR_TOOL_ARGUMENTS');
      expect((a.error as ToolArgumentsError).path).toBe('messages[0].tool_calls[0].function.arguments');
      expect((a.error as ToolArgumentsError).reason).toBe("Expecting ':' delimiter: line 1 column 5 (char 4)");
    }
    expectSame(a, s, 'tool arguments');
    for (const [req, o] of [
      ['{"messages": [', opts],
      ['[]', opts],
      ['{"messages":[{"role":"user","content":"x"}]}', { template: '{% if %}' }],
      ['{"messages":[{"role":"user","content":"x"}]}', { template: '{{ raise_exception("no") }}' }],
      ['{"messages":[{"role":"user","content":"x"}]}', { template: '{{ x }}', now: 'not a date' }],
      ['{"messages":[{"role":"user","content":"x"}]}', {}],
      ['{"messages":[{"role":"user","content":"x"}]}', { templatePath: '/nonexistent/chat_template.jinja' }],
      ['{"messages":[{"role":"user","content":"x"}]}', { template: '{{ "x" * 100 }}', maxOutputBytes: 10 }],
    ] as [string, RenderChatOptions][]) {
      expectSame(await asyncOutcome(req, o), syncOutcome(req, o), `${req} ${JSON.stringify(o)}`);
    }
  });

  it('more compiled templates than a worker keeps: evicted ones are sent again', async () => {
    const request = '{"messages":[{"role":"user","content":"x"}]}';
    const compiled = Array.from({ length: WORKER_TEMPLATE_LIMIT + 6 }, (_, i) => compileTemplate(`T${i}:{{ messages[0].content }}`));
    for (let round = 0; round < 2; round++) {
      const prompts = await Promise.all(compiled.map((template) => renderChatAsync(request, { template })));
      expect(prompts.map((p) => p.prompt)).toEqual(compiled.map((_, i) => `T${i}:x`));
    }
  });

  it('without options.now, strftime_now reads the time of the call', async () => {
    const opts: RenderChatOptions = { template: "{{ strftime_now('%Y-%m-%d') }}" };
    const request = '{"messages":[{"role":"user","content":"x"}]}';
    const before = renderChat(request, opts).prompt;
    const a = (await renderChatAsync(request, opts)).prompt;
    const after = renderChat(request, opts).prompt;
    expect([before, after]).toContain(a);
    expect(a).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('a closed pool fails its pending requests with BackendError', async () => {
    const pool = new RenderPool(1);
    const p = pool.submit({ request: '{"messages":[{"role":"user","content":"x"}]}', options: { template: '{{ messages }}' } });
    expect(p).toBeDefined();
    const rejected = expect(p).rejects.toBeInstanceOf(BackendError);
    await pool.close();
    await rejected;
    expect(pool.workers).toBe(0);
  });

  it('an idle pool does not keep the process alive', () => {
    const script = `
      const api = require(${JSON.stringify(path.join(root, 'dist', 'cjs', 'index.js'))});
      api.renderChatAsync('{"messages":[{"role":"user","content":"hi"}]}', { template: '{{ messages[0].content }}' })
        .then((r) => console.log(r.prompt));
    `;
    const out = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30_000 });
    expect(out.trim()).toBe('hi');
  });
});

describe.skipIf(!templates)(`golden cases through the pool, templates from ${dirs.templates}`, () => {
  for (const t of templates ?? []) {
    it(t.file, async () => {
      const expected = loadExpected(t.file, dirs.expected);
      compileEntry(t);
      if (!t.compiled) return;
      let compared = 0;
      for (const c of cases) {
        const opts = optionsFor(c, t.compiled);
        const text = serializePyJson(c.request);
        const [aText, aObj] = await Promise.all([asyncOutcome(text, opts), asyncOutcome(c.request, opts)]);
        expectSame(aText, syncOutcome(text, opts), `${c.id} (text)`);
        expectSame(aObj, syncOutcome(c.request, opts), `${c.id} (object)`);
        const exp = expected?.cases[c.id];
        if (exp && exp.case_sha256 === c.sha256 && exp.ok && aText.ok) {
          expect(aText.result.prompt, `${c.id} vs Python`).toBe(exp.prompt);
          compared++;
        }
      }
      if (expected) expect(compared).toBeGreaterThan(0);
    });
  }
});
