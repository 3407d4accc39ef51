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

/** Child processes of `pid`, started by any of its threads. */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      out.push(...fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
    } catch {
      // the thread ended
    }
  }
  return out;
}

/**
 * `batch ARGS` in a child process, once a worker of it is blocked reading
 * `fifo` (a case's template): opening the FIFO for writing without blocking
 * succeeds once a reader has it open. `finish` waits for the batch to exit
 * (status 0) and gives its result lines.
 */
async function batchBlockedOn(fifo: string, args: string[]): Promise<{ pid: number; finish: () => Promise<unknown[]> }> {
  const child = spawn(process.execPath, [bin, 'batch', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const done = new Promise<number | null>((resolve) => child.on('exit', resolve));
  let writer: number | undefined;
  for (let i = 0; i < 800 && writer === undefined; i++) {
    try {
      writer = fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
    } catch {
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  expect(writer).toBeDefined();
  return {
    pid: child.pid!,
    finish: async () => {
      expect(await done).toBe(0);
      fs.closeSync(writer!);
      return out.trim().split('\n').map((l) => JSON.parse(l));
    },
  };
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
    const run = await batchBlockedOn(fifo, [file]);
    const workers = childrenOf(run.pid);
    expect(workers).toHaveLength(1);
    process.kill(workers[0]!, 'SIGSEGV');
    const lines = await run.finish();
    expect(lines).toEqual([
      { id: 'a', ok: true, prompt: 'before;' },
      { id: 'b', ok: false, error: 'BackendError: the batch worker process was killed by SIGSEGV while rendering this case' },
      { id: 'c', ok: true, prompt: 'after;' },
      { id: 'd', ok: true, prompt: 'last;' },
    ]);
  }, 30_000);

  it('with several workers at once (--jobs), a worker dying in a later range costs only its case', async () => {
    // 640 cases of ~14 KB: two ranges; case 500 (second range) blocks on a FIFO
    const fifo = path.join(tmp, 'blocked-range.jinja');
    execFileSync('mkfifo', [fifo]);
    const pad = 'x'.repeat(14_000);
    const cases = Array.from({ length: 640 }, (_, i) =>
      JSON.stringify({ id: i, template: i === 500 ? fifo : template, messages: [{ role: 'user', content: i === 500 ? 'x' : `${i}` }, { role: 'user', content: pad }] }),
    );
    const file = path.join(tmp, 'crash-ranges.jsonl');
    fs.writeFileSync(file, cases.join('\n') + '\n');
    const run = await batchBlockedOn(fifo, [file, '--jobs', '2']);
    // the second range's worker: the one without an end line (it runs to the end of the input)
    const workers = childrenOf(run.pid).filter((pid) => {
      const env = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      return env.some((e) => e.startsWith('NODE_VLLM_CPP_BATCH_WORKER=')) && !env.some((e) => e.startsWith('NODE_VLLM_CPP_BATCH_WORKER_END='));
    });
    expect(workers).toHaveLength(1);
    process.kill(workers[0]!, 'SIGSEGV');
    const lines = await run.finish();
    expect(lines).toHaveLength(640);
    lines.forEach((l, i) =>
      expect(l).toEqual(
        i === 500
          ? { id: 500, ok: false, error: 'BackendError: the batch worker process was killed by SIGSEGV while rendering this case' }
          : { id: i, ok: true, prompt: `${i};${pad};` },
      ),
    );
  }, 60_000);
});
