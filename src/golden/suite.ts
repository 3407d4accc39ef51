/**
 * Golden suite plumbing: the case corpus (test/golden/cases), the expected
 * prompts produced by Python (test/golden/expected), and running one case
 * through our API on a chosen backend.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { NodeVllmError, RequestValidationError, TemplateError, ToolArgumentsError } from '../errors';
import { packageRoot } from '../native/loader';
import { compileTemplate, type CompiledTemplate } from '../native/embedded';
import { parsePyJson } from '../protocol/pyjson';
import type { ChatCompletionRequest } from '../protocol/schemas';
import { renderChat, type Backend } from '../render';

export interface GoldenCase {
  id: string;
  description?: string;
  /** The request exactly as the case file holds it (lossless values; validated when rendered). */
  request: ChatCompletionRequest;
  bosToken?: string;
  eosToken?: string;
  now?: string;
  policy?: 'strict' | 'lenient';
  sha256: string;
}

export type ExpectedOutcome =
  | { case_sha256: string; ok: true; prompt: string; warnings?: string[] }
  | { case_sha256: string; ok: false; error_type: string; error_message?: string };

export interface ExpectedFile {
  template: string;
  template_sha256: string;
  provenance: Record<string, unknown>;
  cases: Record<string, ExpectedOutcome>;
}

export type ActualOutcome = { ok: true; prompt: string; warnings: string[] } | { ok: false; errorType: string; error: string };

export function goldenDirs(): { cases: string; expected: string; templates: string } {
  const root = packageRoot();
  return {
    cases: path.join(root, 'test', 'golden', 'cases'),
    expected: path.join(root, 'test', 'golden', 'expected'),
    templates: process.env.NODE_VLLM_CPP_TEMPLATES ?? path.join(root, '..', 'shared', 'templates'),
  };
}

type Obj = Record<string, unknown>;

export function loadGoldenCases(dir = goldenDirs().cases): GoldenCase[] {
  const out: GoldenCase[] = [];
  for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.json')).sort()) {
    const text = fs.readFileSync(path.join(dir, f), 'utf8');
    const c = parsePyJson(text) as Obj;
    const s = (k: string) => (typeof c[k] === 'string' ? (c[k] as string) : undefined);
    out.push({
      id: s('id') ?? f.replace(/\.json$/, ''),
      description: s('description'),
      request: c.request as ChatCompletionRequest,
      bosToken: s('bos_token'),
      eosToken: s('eos_token'),
      now: s('now'),
      policy: s('policy') as GoldenCase['policy'],
      sha256: createHash('sha256').update(text).digest('hex'),
    });
  }
  return out;
}

export function loadExpected(templateFile: string, dir = goldenDirs().expected): ExpectedFile | undefined {
  const p = path.join(dir, templateFile.replace(/\.jinja$/, '') + '.json');
  if (!fs.existsSync(p)) return undefined;
  return JSON.parse(fs.readFileSync(p, 'utf8')) as ExpectedFile;
}

/** The Python exception class our error corresponds to, for comparing expected failures. */
export function pythonTypeOf(e: unknown): string {
  if (e instanceof TemplateError) return e.pythonType;
  if (e instanceof ToolArgumentsError) return 'JSONDecodeError';
  if (e instanceof RequestValidationError) return 'ValueError';
  if (e instanceof NodeVllmError) return e.name;
  return e instanceof Error ? e.name : 'Error';
}

// Python-side names that all mean "the request was rejected before rendering".
const REQUEST_ERRORS = new Set(['ValueError', 'VLLMValidationError', 'ValidationError', 'BadRequestError', 'TypeError']);

export function sameErrorType(expected: string, actual: string): boolean {
  if (expected === actual) return true;
  if (actual === 'ValueError' && REQUEST_ERRORS.has(expected)) return true;
  return false;
}

export function runGoldenCase(template: CompiledTemplate, c: GoldenCase, backend: Backend = 'embedded'): ActualOutcome {
  try {
    const r = renderChat(c.request, {
      template,
      bosToken: c.bosToken,
      eosToken: c.eosToken,
      now: c.now ?? '2026-01-15T10:30:00',
      policy: c.policy,
      backend,
    });
    return { ok: true, prompt: r.prompt, warnings: r.warnings };
  } catch (e) {
    return { ok: false, errorType: pythonTypeOf(e), error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  }
}

export function outcomesMatch(expected: ExpectedOutcome, actual: ActualOutcome): boolean {
  if (expected.ok !== actual.ok) return false;
  if (expected.ok && actual.ok) return expected.prompt === actual.prompt;
  if (!expected.ok && !actual.ok) return sameErrorType(expected.error_type, actual.errorType);
  return false;
}

export interface TemplateEntry {
  file: string;
  path: string;
  compiled?: CompiledTemplate;
  compileError?: string;
}

export function listTemplates(dir = goldenDirs().templates): TemplateEntry[] | undefined {
  if (!fs.existsSync(dir)) return undefined;
  return fs
    .readdirSync(dir)
    .filter((n) => n.endsWith('.jinja'))
    .sort()
    .map((file) => ({ file, path: path.join(dir, file) }));
}

export function compileEntry(t: TemplateEntry): TemplateEntry {
  try {
    t.compiled = compileTemplate(fs.readFileSync(t.path, 'utf8'));
  } catch (e) {
    t.compileError = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  }
  return t;
}
