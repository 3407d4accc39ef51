/**
 * The native side keeps the parsed `messages` items of recent contexts (per
 * thread; those of a context that continued an earlier one) and takes them
 * for a context whose leading bytes are the same, and the members after the
 * list for a context whose text after it is the same: the
 * result, value or error, must be what parsing the whole context gives
 * (`reuseParsed: false`, the json_loads path the golden suite holds to
 * Python). Contexts here grow, fork, repeat and change in the middle; their
 * items include numbers and literals (whose end is only known from the byte
 * after them), big ints, floats, duplicate keys and a repeated `messages`
 * member.
 */
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { compileTemplate, TemplateError } from '../../src';
import { rng } from '../support/random';

const NOW = [2026, 1, 15, 10, 30, 0, 0];
// Everything about the values that a template can see: types (tojson keeps the
// int/float split and big ints), key order, the list's length and each item's repr.
const SOURCE =
  '{{ messages|length }}|{{ messages|tojson }}|{% for m in messages %}{{ m|string }};{% if m is mapping %}{{ m.role }}{% endif %}{% endfor %}|{{ tools|tojson }}|{{ extra|default("-") }}';

function outcome(context: string, reuseParsed: boolean): string {
  try {
    return 'ok:' + compileTemplate(SOURCE).renderJson(context, { now: NOW, reuseParsed });
  } catch (e) {
    if (e instanceof TemplateError) return `error:${e.name}:${e.message}`;
    throw e;
  }
}

/** A random messages item as JSON text. */
function item(r: () => number, i: number): string {
  const k = Math.floor(r() * 12);
  switch (k) {
    case 0:
      return String(Math.floor(r() * 100)); // a number: its end depends on the byte after it
    case 1:
      return ['true', 'false', 'null', '1.0', '-0', '1e400', 'NaN', '-Infinity'][Math.floor(r() * 8)]!;
    case 2:
      return JSON.stringify(`text ${i} \u00e9 \u{1f600}`);
    case 3:
      return `{"role":"user","content":"a","content":"dup ${i}"}`;
    case 4:
      return `{"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":{"n":${123456789012345678901234567890n + BigInt(i)},"x":2.50}}}]}`;
    case 5:
      return `[${i}, [${i + 1}], {"k": [true]}]`;
    default:
      return JSON.stringify({ role: r() < 0.5 ? 'user' : 'assistant', content: `message ${i} ${'x'.repeat(Math.floor(r() * 40))}` });
  }
}

function context(items: string[], tail: string): string {
  return `{"messages":[${items.join(',')}]${tail}}`;
}

const TAILS = [',"tools":null', ',"tools":[{"type":"function"}],"extra":1', ',"messages":[1,2],"tools":0', '', ',"tools":[1.5,', ',"tools":12'];

describe('kept parsed messages (reuseParsed)', () => {
  it('growing, forked, repeated and edited conversations render as from a whole parse', () => {
    const r = rng(20261204);
    const conversations: string[][] = [];
    let reusable = 0;
    for (let step = 0; step < 1500; step++) {
      const pick = r();
      let items: string[];
      if (conversations.length === 0 || pick < 0.15) {
        items = [item(r, step)];
        conversations.push(items);
      } else {
        const c = conversations[Math.floor(r() * conversations.length)]!;
        const op = r();
        if (op < 0.5) {
          items = c.concat(item(r, step), item(r, step + 1)); // the next turn
        } else if (op < 0.65) {
          items = c.slice(); // the same again
        } else if (op < 0.8) {
          items = c.slice(0, Math.max(1, Math.floor(r() * c.length))); // a shorter prefix
        } else if (op < 0.9) {
          items = c.slice();
          items[Math.floor(r() * items.length)] = item(r, step); // an edit in the middle
        } else {
          // the last item's number or literal continued by more bytes
          items = c.slice();
          items[items.length - 1] += r() < 0.5 ? '0' : '1';
        }
        conversations.push(items);
        reusable++;
      }
      if (conversations.length > 12) conversations.splice(Math.floor(r() * conversations.length), 1);
      const text = context(items, TAILS[Math.floor(r() * TAILS.length)]!);
      expect(outcome(text, true), text).toBe(outcome(text, false));
    }
    expect(reusable).toBeGreaterThan(1000);
  });

  it('a continued number or literal is not taken from the kept item it extends', () => {
    // (the kept `5` ends where the new text has `0`: the item is `50`)
    for (const [a, b] of [
      ['5', '50'],
      ['1.5', '1.5e3'],
      ['-1', '-10.0'],
      ['12345678901234567890', '123456789012345678901'],
    ]) {
      const first = context(['{"role":"user"}', a!], ',"tools":null');
      const second = context(['{"role":"user"}', b!], ',"tools":null');
      // (the first context seen again: its items are kept parsed from then on)
      expect(outcome(first, true)).toBe(outcome(first, false));
      expect(outcome(first, true)).toBe(outcome(first, false));
      expect(outcome(second, true)).toBe(outcome(second, false));
      expect(outcome(second, true)).not.toBe(outcome(first, true));
    }
  });

  it('contexts that do not start with the messages list, and invalid texts, are parsed whole', () => {
    const base = context(['{"role":"user","content":"hi"}', '{"role":"assistant","content":"yo"}'], ',"tools":null');
    outcome(base, true);
    for (const text of [
      base.replace('{"messages":[', '{ "messages":['),
      `{"tools":null,${base.slice(1)}`,
      base.slice(0, -5),
      `${base}x`,
      base.replace(',"tools":null}', ',"tools":[1,]}'),
      base.replace('"yo"}]', '"yo"},]'),
      base.replace('"yo"}]', '"yo"}'),
    ]) {
      expect(outcome(text, true), text).toBe(outcome(text, false));
    }
  });

  it('each worker thread keeps its own, and thread-pool renders agree with whole parses', async () => {
    const r = rng(7);
    const conversations = Array.from({ length: 6 }, (_, c) => Array.from({ length: 20 }, (_, i) => item(r, c * 100 + i)));
    const texts: string[] = [];
    for (let turn = 1; turn <= 20; turn++) for (const c of conversations) texts.push(context(c.slice(0, turn), ',"tools":null'));
    const expected = texts.map((t) => outcome(t, false));
    // thread-pool renders, interleaved
    const t = compileTemplate(SOURCE);
    const got = await Promise.all(texts.map((x) => t.renderJsonAsync(x, { now: NOW }).then((s) => 'ok:' + s, (e: Error) => `error:${e.name}:${e.message}`)));
    expect(got).toEqual(expected);
    // worker threads, each rendering every text in order
    const entry = path.join(__dirname, '..', '..', 'dist', 'cjs', 'index.js');
    const results = await Promise.all(
      [0, 1, 2].map(
        () =>
          new Promise<string[]>((resolve, reject) => {
            const w = new Worker(
              `const { parentPort, workerData } = require('node:worker_threads');
               const api = require(workerData.entry);
               const t = api.compileTemplate(workerData.source);
               parentPort.postMessage(workerData.texts.map((x) => { try { return 'ok:' + t.renderJson(x, { now: workerData.now }); } catch (e) { return 'error:' + e.name + ':' + e.message; } }));`,
              { eval: true, workerData: { entry, source: SOURCE, texts, now: NOW } },
            );
            w.once('message', (m: string[]) => {
              void w.terminate();
              resolve(m);
            });
            w.once('error', reject);
          }),
      ),
    );
    for (const res of results) expect(res).toEqual(expected);
  });
});
