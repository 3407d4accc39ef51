/**
 * The command line on hostile input: request files that are not UTF-8, and
 * a batch whose worker process dies in the middle of a case.
 */
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main';

const root = path.join(__dirname, '..', '..');
const bin = path.join(root, 'bin', 'node-vllm-cpp.js');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nvc-hardening-cli-'));
const template = path.join(tmp, 't.jinja');
fs.writeFileSync(template, '{% for m in messages %}{{ m.content }};{% endfor %}');

function run(argv: string[], stdin = ''): { code: number; out: string; err: string } {
  let out = '';
  let err = '';
  const code = main(argv, { stdout: (s) => (out += s), stderr: (s) => (err += s), readStdin: () => stdin });
  return { code, out, err };
}

const caseLine = (id: string, content: string, tpl = template) =>
  JSON.stringify({ id, template: tpl, messages: [{ role: 'user', content }] });

// The expected messages are str(e) of Python's bytes.decode('utf-8') on the same bytes.
describe('request files are decoded as Python decodes them', () => {
  it('render refuses a request file that is not UTF-8 (exit 1, Python\'s message)', () => {
    const file = path.join(tmp, 'latin1.json');
    fs.writeFileSync(file, Buffer.concat([Buffer.from('{"messages": [{"role": "user", "content": "caf'), Buffer.from([0xe9]), Buffer.from('"}]}')]));
    const r = run(['render', '--chat-template', template, '--request', file]);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toContain(`InputFileError: --request: ${file} is not UTF-8: 'utf-8' codec can't decode byte 0xe9 in position 46: invalid continuation byte`);
  });

  it('valid UTF-8 renders as before', () => {
    const file = path.join(tmp, 'utf8.json');
    fs.writeFileSync(file, '{"messages": [{"role": "user", "content": "caf\u00e9 \u{1f600}"}]}');
    const r = run(['render', '--chat-template', template, '--request', file]);
    expect(r.code).toBe(0);
    expect(r.out).toBe('caf\u00e9 \u{1f600};');
  });

  it('a batch line that is not UTF-8 is its own failed case; the others render', () => {
    const file = path.join(tmp, 'mixed.jsonl');
    fs.writeFileSync(
      file,
      Buffer.concat([
        Buffer.from(caseLine('a', 'one') + '\n'),
        Buffer.from('{"id": "b", "template": "t.jinja", "messages": [{"role": "user", "content": "'),
        Buffer.from([0xc3, 0x28]),
        Buffer.from('"}]}\n\n' + caseLine('c', 'three') + '\n'),
      ]),
    );
    for (const extra of [[], ['--in-process']]) {
      const r = run(['batch', file, ...extra]);
      expect(r.code).toBe(0);
      const lines = r.out.trim().split('\n').map((l) => JSON.parse(l));
      expect(lines).toEqual([
        { id: 'a', ok: true, prompt: 'one;' },
        { id: null, ok: false, error: "UnicodeDecodeError: line 2: 'utf-8' codec can't decode byte 0xc3 in position 77: invalid continuation byte" },
        { id: 'c', ok: true, prompt: 'three;' },
      ]);
    }
  });
});

function childrenOf(pid: number): number[] {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

describe.runIf(process.platform === 'linux')('batch survives a worker that dies mid-case', () => {
  it('the case in flight fails on its own line and the later cases still render', async () => {
    // Case "b" reads its template from a FIFO nobody writes to, so its worker
    // blocks inside that case; the worker is then killed with SIGSEGV, as a
    // native crash would kill it.
    const fifo = path.join(tmp, 'blocked.jinja');
    execFileSync('mkfifo', [fifo]);
    const file = path.join(tmp, 'crash.jsonl');
    fs.writeFileSync(file, [caseLine('a', 'before'), caseLine('b', 'x', fifo), caseLine('c', 'after'), caseLine('d', 'last')].join('\n') + '\n');
    const child = spawn(process.execPath, [bin, 'batch', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const done = new Promise<number | null>((resolve) => child.on('exit', resolve));
    // Opening the FIFO for writing without blocking succeeds once a reader
    // has it open: then the worker is inside case "b" (and blocks reading).
    let writer: number | undefined;
    for (let i = 0; i < 800 && writer === undefined; i++) {
      try {
        writer = fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
      } catch {
        await new Promise((r) => setTimeout(r, 25));
      }
    }
    expect(writer).toBeDefined();
    const workers = childrenOf(child.pid!);
    expect(workers).toHaveLength(1);
    process.kill(workers[0]!, 'SIGSEGV');
    expect(await done).toBe(0);
    fs.closeSync(writer!);
    const lines = out.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toEqual([
      { id: 'a', ok: true, prompt: 'before;' },
      { id: 'b', ok: false, error: 'BackendError: the batch worker process was killed by SIGSEGV while rendering this case' },
      { id: 'c', ok: true, prompt: 'after;' },
      { id: 'd', ok: true, prompt: 'last;' },
    ]);
  }, 30_000);
});
