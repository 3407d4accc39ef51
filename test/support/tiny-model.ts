/**
 * What the real-engine tests need: VLLM_CPP_LIB (a libvllm build), a Python
 * with numpy, safetensors and tokenizers for scripts/tiny-model/generate.py
 * (NODE_VLLM_CPP_PYTHON, scripts/tiny-model/.venv, or python3), and the chat
 * templates. `realEngineSkipReason` is '' when all are there, else why the
 * tests are skipped (they are reported skipped, never passed).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

export const VLLM_CPP_LIB = process.env.VLLM_CPP_LIB;
export const TEMPLATES_DIR = process.env.NODE_VLLM_CPP_TEMPLATES ?? path.join(ROOT, '..', 'shared', 'templates');

/** A Python that can run generate.py, or undefined. */
export function tinyModelPython(): string | undefined {
  for (const py of [process.env.NODE_VLLM_CPP_PYTHON, path.join(ROOT, 'scripts/tiny-model/.venv/bin/python'), 'python3']) {
    if (!py) continue;
    try {
      execFileSync(py, ['-c', 'import numpy, safetensors, tokenizers'], { stdio: 'pipe' });
      return py;
    } catch {
      // next
    }
  }
  return undefined;
}

export function realEngineSkipReason(): string {
  if (!VLLM_CPP_LIB) return 'VLLM_CPP_LIB is not set';
  if (!fs.existsSync(VLLM_CPP_LIB)) return `VLLM_CPP_LIB=${VLLM_CPP_LIB} does not exist`;
  if (!tinyModelPython()) return 'no Python with numpy, safetensors and tokenizers (set NODE_VLLM_CPP_PYTHON)';
  if (!fs.existsSync(TEMPLATES_DIR)) return `templates not found at ${TEMPLATES_DIR}`;
  return '';
}

/** Generates a tiny random-weight checkpoint into a fresh temporary directory; returns its path. */
export function generateTinyModel(template: 'gemma4' | 'qwen3' | 'llama3'): string {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), `tiny-${template}-`));
  execFileSync(tinyModelPython()!, [path.join(ROOT, 'scripts/tiny-model/generate.py'), '--out', out, '--template', template, '--templates-dir', TEMPLATES_DIR], {
    stdio: 'pipe',
  });
  return out;
}
