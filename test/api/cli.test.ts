/** The command line: render, batch, example, parse (contracts used by outside tooling). */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main';
import { parsePyJson, pyDeepCopy, serializePyJson } from '../../src/protocol/pyjson';

const root = path.join(__dirname, '..', '..');
const example = path.join(root, 'examples', 'tool-loop.json');
const exampleTemplate = path.join(root, 'examples', 'chat_template.jinja');
// Rendered by the pure-Jinja2 mirror of pinned vLLM (scripts/examples-expected.py).
const expected = JSON.parse(fs.readFileSync(path.join(__dirname, 'example.expected.json'), 'utf8')) as { prompt: string };

function run(argv: string[], stdin = ''): { code: number; out: string; err: string } {
  let out = '';
  let err = '';
  const code = main(argv, { stdout: (s) => (out += s), stderr: (s) => (err += s), readStdin: () => stdin });
  return { code, out, err };
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nvc-cli-'));

describe('cli', () => {
  it('example renders the bundled tool loop exactly as Python does', () => {
    const r = run(['example']);
    expect(r.code).toBe(0);
    expect(r.out).toBe(expected.prompt);
    expect(r.out).toContain('call:terminal{command:<|"|>date<|"|>}');
  });

  it('render prints the prompt, or JSON with --json', () => {
    const args = ['render', '--template', exampleTemplate, '--request', example, '--bos-token', '<bos>', '--eos-token', '<eos>', '--now', '2026-01-15T10:30:00'];
    const r = run(args);
    expect(r.code).toBe(0);
    expect(r.out).toBe(expected.prompt);
    const j = run([...args, '--json']);
    expect(JSON.parse(j.out).prompt).toBe(expected.prompt);
  });

  it('render exits non-zero with the error class on bad input', () => {
    const bad = path.join(tmp, 'bad.json');
    const req = JSON.parse(fs.readFileSync(example, 'utf8'));
    req.messages[2].tool_calls[0].function.arguments = '{"command": ';
    fs.writeFileSync(bad, JSON.stringify(req));
    const r = run(['render', '--template', exampleTemplate, '--request', bad]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^ToolArgumentsError: .*messages\[2\]\.tool_calls\[0\]\.function\.arguments.*Expecting value: line 1 column 13 \(char 12\)/);
  });

  it('batch prints one result line per case and exits 0 even when cases fail', () => {
    // Lossless: the example's tools hold `30.0`, which JSON.parse would turn into 30.
    const req = parsePyJson(fs.readFileSync(example, 'utf8')) as Record<string, any>;
    const good = { id: 'good', template: exampleTemplate, messages: req.messages, tools: req.tools, bos_token: '<bos>', eos_token: '<eos>', now: '2026-01-15T10:30:00' };
    const badArgs = { ...good, id: 'bad-args', messages: pyDeepCopy(req.messages) };
    badArgs.messages[2].tool_calls[0].function.arguments = '{"command": "date"';
    const noTemplate = { id: 7, template: 'does/not/exist.jinja', messages: req.messages };
    const file = path.join(tmp, 'cases.jsonl');
    fs.writeFileSync(file, [good, badArgs, noTemplate].map((c) => serializePyJson(c)).join('\n') + '\n\n');
    const r = run(['batch', file]);
    expect(r.code).toBe(0);
    const lines = r.out.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toEqual({ id: 'good', ok: true, prompt: expected.prompt });
    expect(lines[1].id).toBe('bad-args');
    expect(lines[1].ok).toBe(false);
    expect(lines[1].error).toMatch(/^ToolArgumentsError: .*Expecting ',' delimiter: line 1 column 19 \(char 18\)/);
    expect(lines[2]).toMatchObject({ id: 7, ok: false });
    expect(lines[2].error).toMatch(/^TemplateLoadError: /);
  });

  it('parse prints the OpenAI message shape, streaming or not', () => {
    const out = 'Let me check.<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 1.0}}\n</tool_call>';
    for (const argv of [['parse', '--parser', 'hermes'], ['parse', '--parser', 'hermes', '--stream', '--chunk-size', '3']]) {
      const r = run(argv, out);
      expect(r.code).toBe(0);
      const msg = JSON.parse(r.out);
      expect(msg.content).toBe('Let me check.');
      expect(msg.tool_calls).toHaveLength(1);
      expect(msg.tool_calls[0].function).toEqual({ name: 'get_weather', arguments: '{"city": "Paris", "days": 1.0}' });
    }
  });

  it('unknown commands and options are usage errors (exit 2)', () => {
    expect(run(['frobnicate']).code).toBe(2);
    expect(run(['render', '--nope']).code).toBe(2);
  });

  it('the installed bin runs the compiled CLI', () => {
    const bin = path.join(root, 'bin', 'node-vllm-cpp.js');
    const out = execFileSync(process.execPath, [bin, 'example'], { cwd: root }).toString();
    expect(out).toBe(expected.prompt);
  });
});
