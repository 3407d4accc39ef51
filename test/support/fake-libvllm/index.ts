/**
 * Test-only helpers around the stand-in libvllm (fake-libvllm.c, a TEST
 * DOUBLE of vllm.cpp's C ABI): compile it once per source version, and write
 * scripted "model" directories for it.
 */
import { execFileSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const SOURCE = path.join(__dirname, 'fake-libvllm.c');
/** The ABI declarations it includes (shared with the binding). */
const ABI_HEADER = path.join(__dirname, '..', '..', '..', 'native', 'engine', 'vllm_abi.h');

/** Compiles the stand-in (cached by the hash of its source and the ABI header) and returns the shared library's path. */
export function buildFakeLibvllm(): string {
  const hash = crypto.createHash('sha256').update(fs.readFileSync(SOURCE)).update(fs.readFileSync(ABI_HEADER)).digest('hex').slice(0, 16);
  const ext = process.platform === 'darwin' ? 'dylib' : 'so';
  const out = path.join(os.tmpdir(), `node-vllm-cpp-fake-libvllm-${hash}.${ext}`);
  if (!fs.existsSync(out)) {
    const tmp = `${out}.${process.pid}.tmp`;
    const cc = process.env.CC || 'cc';
    execFileSync(cc, ['-O1', '-shared', '-fPIC', '-fvisibility=hidden', '-o', tmp, SOURCE, '-lpthread'], { stdio: 'pipe' });
    fs.renameSync(tmp, out);
  }
  return out;
}

export interface FakeRule {
  match?: string;
  output?: string;
  outputPrompt?: boolean;
  outputRequest?: boolean;
  chunk?: number;
  delayMs?: number;
  finish?: string;
  fail?: string;
  kill?: boolean;
}

function escape(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\t/g, '\\t');
}

export interface FakeModelOptions {
  rules: FakeRule[];
  /** A chat template for tokenizer_config.json (the model's own template). */
  chatTemplate?: string;
  bosToken?: string;
  eosToken?: string;
  /** Added tokens flagged special in tokenizer.json. */
  specialTokens?: string[];
  /** Whether tokenizer.json's post-processor prepends the BOS token (as Gemma's does). */
  prependBos?: boolean;
  generationConfig?: Record<string, unknown>;
}

/** Writes a scripted model directory; returns its path. */
export function makeFakeModel(opts: FakeModelOptions): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-model-'));
  const lines: string[] = [];
  for (const r of opts.rules) {
    lines.push('rule');
    if (r.match !== undefined) lines.push(`match ${escape(r.match)}`);
    if (r.output !== undefined) lines.push(`output ${escape(r.output)}`);
    if (r.outputPrompt) lines.push('output-prompt');
    if (r.outputRequest) lines.push('output-request');
    if (r.chunk !== undefined) lines.push(`chunk ${r.chunk}`);
    if (r.delayMs !== undefined) lines.push(`delay_ms ${r.delayMs}`);
    if (r.finish !== undefined) lines.push(`finish ${r.finish}`);
    if (r.fail !== undefined) lines.push(`fail ${escape(r.fail)}`);
    if (r.kill) lines.push('kill');
    lines.push('end');
  }
  fs.writeFileSync(path.join(dir, 'fake-script.txt'), lines.join('\n') + '\n');
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ architectures: ['FakeForCausalLM'] }));
  const bos = opts.bosToken ?? '<bos>';
  const eos = opts.eosToken ?? '<eos>';
  const specials = [bos, eos, ...(opts.specialTokens ?? [])];
  const added = specials.map((content, id) => ({ id, content, special: true, single_word: false, lstrip: false, rstrip: false, normalized: false }));
  const tokenizer: Record<string, unknown> = { version: '1.0', added_tokens: added, model: { type: 'BPE', vocab: {}, merges: [] } };
  if (opts.prependBos) {
    tokenizer.post_processor = {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: bos, type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
      pair: [],
      special_tokens: { [bos]: { id: bos, ids: [0], tokens: [bos] } },
    };
  }
  fs.writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify(tokenizer));
  const config: Record<string, unknown> = { bos_token: bos, eos_token: eos };
  if (opts.chatTemplate !== undefined) config.chat_template = opts.chatTemplate;
  fs.writeFileSync(path.join(dir, 'tokenizer_config.json'), JSON.stringify(config));
  if (opts.generationConfig) fs.writeFileSync(path.join(dir, 'generation_config.json'), JSON.stringify(opts.generationConfig));
  return dir;
}
