/**
 * batch renders a case line from its raw text (messages and tools handed to
 * renderChat as request text, the rest of the line decoded on its own). Every
 * result line must be what the decoded-case path gives for the same line,
 * errors included: the reference for each line is the same case with a
 * leading `"messages": null` member, which that path takes (a duplicate
 * key; Python's json keeps the last one, so the case means the same).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main, renderRawCase } from '../../src/cli/main';
import { parsePyJson, PyFloat, serializePyJson } from '../../src/protocol/pyjson';

const root = path.join(__dirname, '..', '..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nvc-batch-raw-'));
// every value the template sees, exactly (tojson keeps key order, int/float and escapes visible)
const probe = path.join(tmp, 'probe.jinja');
fs.writeFileSync(probe, '{{ messages | tojson }}|{{ tools | default(none) | tojson }}|{{ add_generation_prompt }}|{{ greeting | default("") }}|{{ bos_token }}');
const gemmaLike = path.join(root, 'examples', 'chat_template.jinja');

/** The batch's output lines, as text. */
function batchText(lines: string[]): string[] {
  const file = path.join(tmp, `cases-${Math.random().toString(36).slice(2)}.jsonl`);
  fs.writeFileSync(file, lines.join('\n') + '\n');
  let out = '';
  let err = '';
  const code = main(['batch', file, '--in-process'], { stdout: (s) => (out += s), stderr: (s) => (err += s), readStdin: () => '' });
  expect(err).toBe('');
  expect(code).toBe(0);
  return out.trim().split('\n');
}

function batch(lines: string[]): unknown[] {
  return batchText(lines).map((l) => JSON.parse(l));
}

/** Deterministic pseudo-random numbers. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

/** JSON whitespace put after structural characters outside strings, now and then. */
function spaced(text: string, r: () => number): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    out += c;
    if (inString) {
      if (c === '\\') out += text[++i];
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if ('{[,:'.includes(c) && r() < 0.3) out += [' ', '\t', '\r', ' \t', '  '][Math.floor(r() * 5)];
  }
  return out;
}

const call = (id: string, args: string) => ({ id, type: 'function', function: { name: 'terminal', arguments: args } });
const tool = { type: 'function', function: { name: 'terminal', description: 'Run a command \u00e9', parameters: { type: 'object', properties: { command: { type: 'string' }, timeout: { type: 'number', default: new PyFloat(30) } } } } };

const MESSAGES: unknown[][] = [
  [{ role: 'user', content: 'hi' }],
  [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'date?' },
    { role: 'assistant', content: '', tool_calls: [call('c1', '{"command": "date", "timeout": 2.50}')] },
    { role: 'tool', tool_call_id: 'c1', content: 'Thu' },
  ],
  [{ role: 'user', content: 'caf\u00e9 \u{1f600} \\ " \n' }, { role: 'assistant', content: 'ok' }, { role: 'user', content: [{ type: 'text', text: 'parts' }] }],
  [{ role: 'assistant', content: null, tool_calls: [call('c2', '{"command": "ls", "n": 12345678901234567890}')] }],
  // failures: arguments that do not decode, a message without a role, no messages
  [{ role: 'assistant', content: '', tool_calls: [call('c3', '{"command": ')] }],
  [{ content: 'no role' }],
  [],
];

/** A case line: members in the given order, `messages` and `tools` keys now and then spelled with escapes. */
function caseLine(members: [string, string][], r: () => number): string {
  const body = members.map(([k, v]) => {
    const key = (k === 'messages' || k === 'tools') && r() < 0.2 ? `"\\u00${k.charCodeAt(0).toString(16)}${k.slice(1)}"` : JSON.stringify(k);
    return `${key}:${v}`;
  });
  return spaced(`{${body.join(',')}}`, r);
}

function randomCase(r: () => number, i: number): string {
  const members: [string, string][] = [];
  const ids = ['1', '1.0', '12345678901234567890', '"x\u00e9"', 'null', `${i}`];
  if (r() < 0.9) members.push(['id', ids[Math.floor(r() * ids.length)]!]);
  members.push(['template', JSON.stringify(r() < 0.5 ? probe : gemmaLike)]);
  let msgs = serializePyJson(MESSAGES[Math.floor(r() * MESSAGES.length)]);
  if (r() < 0.1) msgs = msgs.replace('hi', 'h\\ud800i'); // a lone surrogate escape
  members.push(['messages', msgs]);
  const t = r();
  if (t < 0.4) members.push(['tools', serializePyJson([tool])]);
  else if (t < 0.5) members.push(['tools', '[]']);
  else if (t < 0.55) members.push(['tools', 'null']);
  else if (t < 0.6) members.push(['tools', '[{"type": "function", "function": {"name": "f", "parameters": {"x": NaN}}}]']);
  if (r() < 0.3) members.push(['add_generation_prompt', r() < 0.5 ? 'false' : '0']);
  if (r() < 0.3) members.push(['kwargs', '{"greeting": "hello", "n": 1.0}']);
  if (r() < 0.5) members.push(['bos_token', '"<bos>"'], ['eos_token', '"<eos>"']);
  if (r() < 0.5) members.push(['now', '"2026-01-15T10:30:00"']);
  // key order varies
  for (let k = members.length - 1; k > 0; k--) {
    const j = Math.floor(r() * (k + 1));
    [members[k], members[j]] = [members[j]!, members[k]!];
  }
  return caseLine(members, r);
}

/** The same case, taking the decoded-case path. */
const decodedPath = (line: string) => `{"messages": null, ${line.slice(line.indexOf('{') + 1)}`;

describe('batch: a case rendered from its raw text', () => {
  it('gives what the decoded case gives, result and error lines alike, on 300 random cases', () => {
    const r = rng(20261204);
    const lines = Array.from({ length: 300 }, (_, i) => randomCase(r, i));
    const got = batch(lines);
    const want = batch(lines.map(decodedPath));
    expect(got).toEqual(want);
    // the raw-text path took the cases that render, and only those
    let raw = 0;
    for (let i = 0; i < lines.length; i++) {
      const direct = renderRawCase(lines[i]!, tmp);
      const w = want[i] as { ok: boolean };
      if (direct !== undefined) {
        raw++;
        expect(JSON.parse(direct)).toEqual(w);
      }
      if (!w.ok) expect(direct).toBeUndefined();
      // a case that renders is declined only for its `tools: null` (not a list)
      else if (direct === undefined) expect((parsePyJson(lines[i]!) as { tools?: unknown }).tools, lines[i]).toBeNull();
    }
    expect(raw).toBeGreaterThan(100);
  });

  it('lines that share the rest of the case (its settings) differ in their ids and messages alone', () => {
    // runs of lines with the same rest but every kind of id (kept as written:
    // big integers, 1.0, escapes, containers; missing or twice),
    // broken by lines with another rest, another tools list or none
    const r = rng(77);
    const ids = ['1', '1.0', '12345678901234567890', '"x\\u00e9\\"y"', '{"k": [1, 2.5]}', '[]', 'null', '-0', '1e400', '"\\ud800"'];
    // (a config naming a tool_use template: which one a case gets depends on its tools)
    const named = path.join(tmp, 'named');
    fs.mkdirSync(named, { recursive: true });
    const config = path.join(named, 'tokenizer_config.json');
    fs.writeFileSync(config, JSON.stringify({ chat_template: [{ name: 'default', template: 'D{{ messages|length }}' }, { name: 'tool_use', template: 'T{{ tools|length }}' }] }));
    const rests = [
      `"template": ${JSON.stringify(config)}`,
      `"template": ${JSON.stringify(probe)}, "bos_token": "<bos>", "now": "2026-01-15T10:30:00"`,
      `"template": ${JSON.stringify(probe)}, "kwargs": {"greeting": "hi", "n": 1.0}, "add_generation_prompt": false`,
      `"template": ${JSON.stringify(gemmaLike)}`,
    ];
    const lines: string[] = [];
    for (let i = 0; i < 240; i++) {
      const rest = rests[Math.floor(i / 30) % rests.length]!;
      const k = Math.floor(r() * 14);
      const id = k < ids.length ? `"id": ${ids[k]}, ` : k === ids.length ? '' : k === ids.length + 1 ? `"id": 1, "id": ${i}, ` : `"id": ${i}, `;
      const tools = r() < 0.3 ? '' : r() < 0.5 ? `, "tools": ${serializePyJson([tool])}` : ', "tools": []';
      const msgs = serializePyJson(MESSAGES[Math.floor(r() * 4)]);
      lines.push(`{${id}${rest}, "messages": ${msgs}${tools}}`);
    }
    // (compared as text: an id of 1e400 is written as Python writes inf)
    const got = batchText(lines);
    expect(got).toEqual(batchText(lines.map(decodedPath)));
    expect(got.filter((l) => l.startsWith('{"id":Infinity,"ok":true')).length).toBeGreaterThan(0);
    expect(got.some((l) => l.includes('"prompt":"T1"')) && got.some((l) => /"prompt":"D\d"/.test(l))).toBe(true);
    // (most of them rendered, from their raw text)
    expect(got.filter((l) => l.includes('"ok":true')).length).toBeGreaterThan(150);
  });

  it('declines what it cannot take whole, and the decoded-case path gives the error as before', () => {
    const good = `{"id": 1, "template": ${JSON.stringify(probe)}, "messages": [{"role": "user", "content": "hi"}]}`;
    const cases: [string, RegExp | undefined][] = [
      [good, undefined],
      // not JSON around the messages
      [good.replace('"id": 1,', '"id": 1,,'), /^PyJsonDecodeError: Expecting property name enclosed in double quotes: line 1 column 10 \(char 9\)$/],
      [good.replace('}]}', '}],}'), /^PyJsonDecodeError: Expecting property name enclosed in double quotes/],
      [good.replace('"id": 1', '"id": tru'), /^PyJsonDecodeError: Expecting value: line 1 column 8 \(char 7\)$/],
      // not JSON inside them
      [good.replace('"hi"}', '"hi",}'), /^PyJsonDecodeError: Expecting property name enclosed in double quotes/],
      // messages twice, messages not a list, tools not a list
      [good.replace('"id": 1', '"id": 1, "messages": []'), undefined],
      [good.replace(/"messages": \[.*\]/, '"messages": "hi"'), /^RequestValidationError: /],
      [good.replace('"id": 1', '"id": 1, "tools": {}'), /^RequestValidationError: /],
      // not an object
      ['[1, 2]', /^TypeError: line 9: a case must be a JSON object$/],
    ];
    const got = batch(cases.map(([l]) => l)) as { id: unknown; ok: boolean; error?: string; prompt?: string }[];
    for (let i = 0; i < cases.length; i++) {
      const [line, error] = cases[i]!;
      if (error === undefined) expect(got[i], line).toMatchObject({ ok: true, prompt: expect.stringContaining('"content": "hi"') });
      else expect(got[i]!.error, line).toMatch(error);
      if (i > 0) expect(renderRawCase(line, tmp), line).toBeUndefined();
    }
    expect(renderRawCase(good, tmp)).toBe(JSON.stringify(got[0]));
    // the id comes back as the case wrote it: a big integer or 1.0 (a float) kept, on result and error lines
    const file = path.join(tmp, 'ids.jsonl');
    fs.writeFileSync(file, [good.replace('"id": 1', '"id": 12345678901234567890'), good.replace('"id": 1', '"id": 1.0').replace('"hi"}', '"hi",}')].join('\n'));
    let out = '';
    expect(main(['batch', file, '--in-process'], { stdout: (x) => (out += x), stderr: () => {}, readStdin: () => '' })).toBe(0);
    const [big, float] = out.trim().split('\n');
    expect(big).toMatch(/^\{"id":12345678901234567890,"ok":true,"prompt":"/);
    expect(float).toMatch(/^\{"id":null,"ok":false,"error":"PyJsonDecodeError: /);
    fs.writeFileSync(file, good.replace('"id": 1', '"id": 1.0').replace('"role": "user", ', ''));
    out = '';
    main(['batch', file], { stdout: (x) => (out += x), stderr: () => {}, readStdin: () => '' });
    expect(out).toMatch(/^\{"id":1\.0,"ok":false,"error":"RequestValidationError: /);
    // the decode errors are the decoder's own for the whole line
    expect(() => parsePyJson(cases[1]![0])).toThrow('Expecting property name enclosed in double quotes: line 1 column 10 (char 9)');
  });
});
