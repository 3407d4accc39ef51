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

  it('batch output is the same whether lines go out as bytes or as text (non-ASCII, long lines, failures in between)', () => {
    const template = path.join(tmp, 'echo.jinja');
    fs.writeFileSync(template, '{{ messages[0].content }};');
    const texts = ['caf\u00e9 \u{1f600}', 'x'.repeat(70_000) + '\u00e9', '\u4e2d\u6587', 'y'.repeat(30_000), 'z'];
    const cases = texts.map((content, i) => JSON.stringify({ id: i, template, messages: [{ role: 'user', content }] }));
    cases.splice(2, 0, JSON.stringify({ id: 'bad', messages: [] }));
    const file = path.join(tmp, 'bytes.jsonl');
    fs.writeFileSync(file, cases.join('\n') + '\n');
    const expectedLines = [...texts.map((content, i) => ({ id: i, ok: true, prompt: `${content};` }))];
    expectedLines.splice(2, 0, { id: 'bad', ok: false, error: 'TypeError: "template" (a path) is required' } as never);
    for (const extra of [[], ['--in-process']]) {
      const text = run(['batch', file, ...extra]);
      const chunks: Buffer[] = [];
      const order: string[] = [];
      const code = main(['batch', file, ...extra], {
        stdout: (s) => (chunks.push(Buffer.from(s, 'utf8')), order.push('text')),
        stdoutBytes: (b) => (chunks.push(Buffer.from(b)), order.push('bytes')),
        stderr: () => {},
        readStdin: () => '',
      });
      expect(code).toBe(0);
      expect(text.out.trim().split('\n').map((l) => JSON.parse(l))).toEqual(expectedLines);
      expect(Buffer.concat(chunks).toString('utf8')).toBe(text.out);
      expect(order).not.toContain('text');
    }
  });

  it('batch --jobs: a large batch split over worker processes prints what one worker and --in-process print, in input order', () => {
    // 640 cases of ~14 KB (9 MB): enough for two ranges (256 cases and 4 MiB each at least)
    const template = path.join(tmp, 'jobs.jinja');
    fs.writeFileSync(template, '{{ messages|length }}:{{ messages[-1].content[:12] }};');
    const pad = 'p\u00e9'.repeat(7000);
    const cases = Array.from({ length: 640 }, (_, i) =>
      i % 100 === 7 ? JSON.stringify({ id: i, messages: [] }) : JSON.stringify({ id: i, template, messages: [{ role: 'user', content: pad }, { role: 'user', content: `case ${i} \u4e2d` }] }),
    );
    const file = path.join(tmp, 'jobs.jsonl');
    fs.writeFileSync(file, cases.join('\n') + '\n');
    const one = run(['batch', file, '--jobs', '1']);
    expect(one.code).toBe(0);
    const lines = one.out.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(640);
    lines.forEach((l, i) =>
      expect(l).toEqual(i % 100 === 7 ? { id: i, ok: false, error: 'TypeError: "template" (a path) is required' } : { id: i, ok: true, prompt: `2:case ${i} \u4e2d;` }),
    );
    for (const extra of [['--jobs', '2'], ['--jobs', '3'], ['--in-process']]) {
      const r = run(['batch', file, ...extra]);
      expect(r.code, extra.join(' ')).toBe(0);
      expect(r.out, extra.join(' ')).toBe(one.out);
    }
    // standard input too
    const stdin = run(['batch', '-', '--jobs', '2'], fs.readFileSync(file, 'utf8'));
    expect(stdin.out).toBe(one.out);
  });

  it('batch --jobs must be a positive integer and excludes --in-process (usage errors)', () => {
    const file = path.join(tmp, 'jobs-usage.jsonl');
    fs.writeFileSync(file, '{}\n');
    for (const bad of ['0', '-1', '1.5', 'x', '']) {
      const r = run(['batch', file, `--jobs=${bad}`]);
      expect(r.code, bad).toBe(2);
      expect(r.err).toContain(`--jobs must be a positive integer, got ${bad}`);
    }
    const both = run(['batch', file, '--jobs', '2', '--in-process']);
    expect(both.code).toBe(2);
    expect(both.err).toContain('--jobs and --in-process exclude each other');
  });

  it('parse prints the OpenAI message shape, streaming or not', () => {    const out = 'Let me check.<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 1.0}}\n</tool_call>';
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

  it('vLLM flag names: --chat-template, --tools, --chat-template-content-format, kwargs, stdin request', () => {
    const text = fs.readFileSync(example, 'utf8');
    const base = ['render', '--chat-template', exampleTemplate, '--bos-token', '<bos>', '--eos-token', '<eos>', '--now', '2026-01-15T10:30:00'];
    expect(run([...base, '--request', '-'], text).out).toBe(expected.prompt);
    // tools given apart from the request replace the request's own
    const req = parsePyJson(text) as Record<string, any>;
    const toolsFile = path.join(tmp, 'tools.json');
    fs.writeFileSync(toolsFile, serializePyJson(req.tools));
    const noTools = path.join(tmp, 'no-tools.json');
    fs.writeFileSync(noTools, serializePyJson({ ...req, tools: undefined }).replace(/,?\s*"tools":\s*null/, ''));
    const withTools = run([...base, '--request', noTools, '--tools', toolsFile]);
    expect(withTools.err).toBe('');
    expect(withTools.out).toBe(expected.prompt);
    // kwargs reach the template: a template that prints one
    const tpl = path.join(tmp, 'kw.jinja');
    fs.writeFileSync(tpl, '{{ flavour }}|{{ messages[0].content is string }}');
    const user = path.join(tmp, 'user.json');
    fs.writeFileSync(user, JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], chat_template_kwargs: { flavour: 'file' } }));
    const kw = ['render', '--chat-template', tpl, '--request', user];
    expect(run(kw).out).toBe('file|True');
    expect(run([...kw, '--chat-template-kwargs', '{"flavour": "flag"}']).out).toBe('flag|True');
    // server defaults lose to the request's kwargs (vLLM's merge order)
    expect(run([...kw, '--default-chat-template-kwargs', '{"flavour": "server"}']).out).toBe('file|True');
    expect(run([...kw, '--chat-template-content-format', 'openai']).out).toBe('file|False');
    expect(run([...kw, '--chat-template-content-format', 'bogus']).code).toBe(2);
    expect(run([...kw, '--chat-template-kwargs', '[1]']).code).toBe(2);
  });

  it('--continue-final-message continues the last assistant message without a generation prompt', () => {
    const tpl = path.join(tmp, 'cont.jinja');
    fs.writeFileSync(tpl, '{% for m in messages %}<{{ m.role }}>{{ m.content }}</{{ m.role }}>{% endfor %}{% if add_generation_prompt %}<assistant>{% endif %}');
    const req = path.join(tmp, 'cont.json');
    fs.writeFileSync(req, JSON.stringify({ messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'Hel' }] }));
    const r = run(['render', '--chat-template', tpl, '--request', req, '--continue-final-message']);
    expect(r.code).toBe(0);
    // transformers cuts the rendered text right after the final message's content
    expect(r.out).toBe('<user>hi</user><assistant>Hel');
    expect(run(['render', '--chat-template', tpl, '--request', req]).out).toBe('<user>hi</user><assistant>Hel</assistant><assistant>');
  });

  it('old spellings stay as aliases', () => {
    const args = ['render', '--template', exampleTemplate, '--request', example, '--bos-token', '<bos>', '--eos-token', '<eos>', '--now', '2026-01-15T10:30:00'];
    expect(run(args).out).toBe(expected.prompt);
    const out = '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>';
    expect(JSON.parse(run(['parse', '--parser', 'hermes'], out).out).tool_calls[0].function.name).toBe('f');
    expect(JSON.parse(run(['parse', '--tool-call-parser', 'hermes'], out).out).tool_calls[0].function.name).toBe('f');
  });

  it('per-command --help prints that command\'s options and exits 0', () => {
    for (const cmd of ['render', 'batch', 'example', 'parse', 'golden']) {
      const r = run([cmd, '--help']);
      expect(r.code, cmd).toBe(0);
      expect(r.out, cmd).toMatch(new RegExp(`^usage: node-vllm-cpp ${cmd}`));
      expect(run(['help', cmd]).out).toBe(r.out);
    }
    expect(run(['render', '--help']).out).toContain('--chat-template-content-format');
    expect(run(['--help']).code).toBe(0);
    expect(run([]).code).toBe(2);
  });

  it('exit codes: usage errors 2, everything else 1; missing files are the package\'s own error', () => {
    expect(run(['render', '--chat-template', exampleTemplate]).code).toBe(2); // no --request
    expect(run(['render', '--chat-template', exampleTemplate, '--request', example, 'stray']).code).toBe(2);
    expect(run(['parse', '--tool-call-parser', 'no_such_parser'], 'x').code).toBe(2);
    expect(run(['parse']).code).toBe(2);
    const missingReq = run(['render', '--chat-template', exampleTemplate, '--request', path.join(tmp, 'missing.json')]);
    expect(missingReq.code).toBe(1);
    expect(missingReq.err).toMatch(/^InputFileError: --request: cannot read .*missing\.json: no such file/);
    const missingTpl = run(['render', '--chat-template', path.join(tmp, 'missing.jinja'), '--request', example]);
    expect(missingTpl.code).toBe(1);
    expect(missingTpl.err).toMatch(/^TemplateLoadError: /);
    const missingTools = run(['parse', '--tool-call-parser', 'hermes', '--tools', path.join(tmp, 'missing-tools.json')], 'x');
    expect(missingTools.code).toBe(1);
    expect(missingTools.err).toMatch(/^InputFileError: --tools: cannot read/);
    expect(run(['batch', path.join(tmp, 'missing.jsonl')]).code).toBe(1);
  });

  it('golden commands fail (exit 1) when their directories are missing or nothing was compared', () => {
    const empty = fs.mkdtempSync(path.join(tmp, 'empty-'));
    const noCases = run(['golden', 'report', '--cases', path.join(tmp, 'no-such-dir')]);
    expect(noCases.code).toBe(1);
    expect(noCases.err).toMatch(/^InputFileError: golden: golden cases directory not found: .*--cases DIR/);
    const nothing = run(['golden', 'report', '--templates', empty]);
    expect(nothing.code).toBe(1);
    expect(nothing.out).toContain('nothing compared');
    expect(nothing.err).toContain('nothing was compared');
    // roundtrip: only the package's own DSML template is left to compare, and it is reported
    const rt = run(['golden', 'roundtrip', '--templates', empty]);
    expect(rt.code).toBe(0);
    expect(rt.out.trim().split('\n').filter((l) => l.startsWith('  ') && !l.startsWith('    '))).toEqual([
      expect.stringMatching(/^ {2}deepseek_v32_dsml\.jinja \+ deepseek_v32: exact \d+, reordered 0, lossy \d+, failed 0 \/ \d+$/),
    ]);
    expect(run(['golden']).code).toBe(2);
    expect(run(['golden', 'frob']).code).toBe(2);
  });

  const sharedLlama = path.join(process.env.NODE_VLLM_CPP_TEMPLATES ?? path.join(root, '..', 'shared', 'templates'), 'llama3_1__vllm_json.jinja');
  it.skipIf(!fs.existsSync(sharedLlama))('golden report compares what it is given and exits 0', () => {
    // one template copied to a scratch directory: only its expected prompts are compared
    const templates = fs.mkdtempSync(path.join(tmp, 'tpl-'));
    const exp = JSON.parse(fs.readFileSync(path.join(root, 'test', 'golden', 'expected', 'llama3_1__vllm_json.json'), 'utf8'));
    fs.copyFileSync(sharedLlama, path.join(templates, 'llama3_1__vllm_json.jinja'));
    const r = run(['golden', 'report', '--templates', templates, '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out);
    expect(report.total).toBe(Object.keys(exp.cases).length);
    expect(report.matches).toBe(report.total);
  });

  it('the installed bin runs the compiled CLI', () => {
    const bin = path.join(root, 'bin', 'node-vllm-cpp.js');
    const out = execFileSync(process.execPath, [bin, 'example'], { cwd: root }).toString();
    expect(out).toBe(expected.prompt);
  });
});
