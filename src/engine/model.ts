/**
 * What the bridge needs to know about a model directory before libvllm loads
 * it, and the serving view of it libvllm actually loads.
 *
 * libvllm's completion entry points always decode with special tokens
 * skipped, and its chat entry points render with the template found in the
 * model directory. vLLM itself renders with our template and keeps special
 * tokens whenever a tool parser needs its markers. So the engine is loaded
 * from a *serving directory*: every file of the model linked as is, except
 *   - tokenizer.json, whose added tokens are flagged non-special (the flag
 *     only drives decode-time skipping; encoding, ids and the vocabulary are
 *     unchanged), so generated markers reach our parsers, and the skipping
 *     vLLM would do is applied here, per request, by removing those tokens'
 *     texts from the output; and whose post-processor is removed, so libvllm
 *     adds no BOS of its own: a rendered chat prompt is tokenized as vLLM's
 *     chat path tokenizes it (add_special_tokens=False), and plain
 *     completions get the post-processor's tokens as text (src/engine/engine.ts);
 *   - tokenizer_config.json, whose chat template becomes a pass-through of the
 *     prompt we rendered, so the chat entry point (which reports finish
 *     reasons and token usage) generates from exactly our prompt.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EngineError } from '../errors';

/** The chat template the serving directory carries: our prompt, verbatim. */
export const PASS_THROUGH_TEMPLATE = "{{ messages[0]['content'] }}";

export interface TokenizerFacts {
  /** Texts of the added tokens flagged special (what skip_special_tokens removes), longest first. */
  specialTexts: string[];
  /** Text of the token the tokenizer's post-processor prepends to every prompt (e.g. `<bos>`), if any. */
  prependedText?: string;
  /** Text of a token the post-processor appends to every prompt, if any. */
  appendedText?: string;
}

export interface ModelFacts {
  /** The path given (directory or .gguf file), absolute. */
  path: string;
  kind: 'directory' | 'gguf';
  /** tokenizer_config.json, when present. */
  tokenizerConfig?: Record<string, unknown>;
  /** generation_config.json, when present: vLLM takes default sampling values from it. */
  generationConfig?: Record<string, unknown>;
  tokenizer?: TokenizerFacts;
}

function readJson(file: string): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch (e) {
    throw new EngineError(`${file} is not valid JSON: ${(e as Error).message}`);
  }
}

interface AddedToken {
  id: number;
  content: string;
  special?: boolean;
}

function templateProcessing(pp: unknown): Record<string, unknown> | undefined {
  if (!pp || typeof pp !== 'object') return undefined;
  const node = pp as Record<string, unknown>;
  if (node.type === 'TemplateProcessing') return node;
  if (node.type === 'Sequence' && Array.isArray(node.processors)) {
    for (const p of node.processors) {
      const tp = templateProcessing(p);
      if (tp) return tp;
    }
  }
  return undefined;
}

/** The texts a TemplateProcessing "single" template puts before/after the sequence. */
function edgeTokens(tokenizer: Record<string, unknown>, byId: Map<number, string>): { first?: string; last?: string } {
  const tp = templateProcessing(tokenizer.post_processor);
  if (!tp || !Array.isArray(tp.single) || tp.single.length === 0) return {};
  const specials = (tp.special_tokens ?? {}) as Record<string, { ids?: number[]; tokens?: string[] }>;
  const textOf = (step: unknown): string | undefined => {
    const st = (step as { SpecialToken?: { id?: string } })?.SpecialToken;
    if (!st || typeof st.id !== 'string') return undefined;
    const entry = specials[st.id];
    if (entry && Array.isArray(entry.ids) && entry.ids.length === 1) return byId.get(entry.ids[0]) ?? st.id;
    return st.id;
  };
  return { first: textOf(tp.single[0]), last: tp.single.length > 1 ? textOf(tp.single[tp.single.length - 1]) : undefined };
}

export function inspectModel(modelPath: string): ModelFacts {
  const abs = path.resolve(modelPath);
  let st: fs.Stats;
  try {
    st = fs.statSync(abs);
  } catch {
    throw new EngineError(`model not found: ${abs} (give a model directory with config.json, safetensors and tokenizer files, or a .gguf file)`);
  }
  if (st.isFile()) {
    if (!abs.endsWith('.gguf')) throw new EngineError(`model ${abs} is a file but not a .gguf`);
    return { path: abs, kind: 'gguf' };
  }
  const facts: ModelFacts = {
    path: abs,
    kind: 'directory',
    tokenizerConfig: readJson(path.join(abs, 'tokenizer_config.json')),
    generationConfig: readJson(path.join(abs, 'generation_config.json')),
  };
  const tokenizer = readJson(path.join(abs, 'tokenizer.json'));
  if (tokenizer) {
    const added = (Array.isArray(tokenizer.added_tokens) ? tokenizer.added_tokens : []) as AddedToken[];
    const byId = new Map<number, string>();
    for (const t of added) if (typeof t?.id === 'number' && typeof t.content === 'string') byId.set(t.id, t.content);
    const specialTexts = added
      .filter((t) => t && t.special === true && typeof t.content === 'string' && t.content.length > 0)
      .map((t) => t.content)
      .sort((a, b) => b.length - a.length);
    const edges = edgeTokens(tokenizer, byId);
    facts.tokenizer = { specialTexts, prependedText: edges.first, appendedText: edges.last };
  }
  return facts;
}

/** Builds the serving directory in a fresh temporary folder; returns its path. */
export function createServingDir(facts: ModelFacts): string {
  if (facts.kind !== 'directory') throw new EngineError('a serving directory is only built for model directories');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'node-vllm-cpp-model-'));
  try {
    for (const name of fs.readdirSync(facts.path)) {
      if (name === 'tokenizer.json' || name === 'tokenizer_config.json') continue;
      fs.symlinkSync(path.join(facts.path, name), path.join(dir, name));
    }
    const tokPath = path.join(facts.path, 'tokenizer.json');
    if (fs.existsSync(tokPath)) {
      const tokenizer = JSON.parse(fs.readFileSync(tokPath, 'utf8')) as Record<string, unknown>;
      if (Array.isArray(tokenizer.added_tokens)) {
        tokenizer.added_tokens = (tokenizer.added_tokens as AddedToken[]).map((t) => ({ ...t, special: false }));
      }
      tokenizer.post_processor = null;
      fs.writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify(tokenizer));
    }
    const config = { ...(facts.tokenizerConfig ?? {}), chat_template: PASS_THROUGH_TEMPLATE };
    fs.writeFileSync(path.join(dir, 'tokenizer_config.json'), JSON.stringify(config));
  } catch (e) {
    removeServingDir(dir);
    throw new EngineError(`cannot prepare the serving directory for ${facts.path}: ${(e as Error).message}`, { cause: e });
  }
  return dir;
}

export function removeServingDir(dir: string): void {
  try {
    fs.rmSync(dir, { recursive: true, force: true });
  } catch {
    // best effort: a temporary directory
  }
}

/**
 * Removes special tokens' texts from streamed output, as decoding with
 * skip_special_tokens does. A piece that could be the start of a special
 * token is held back until the next delta (or the end) decides it, so a
 * token split across deltas is still removed.
 */
export class SpecialTextFilter {
  private held = '';
  constructor(private readonly specials: readonly string[]) {}

  push(text: string): string {
    if (this.specials.length === 0) return text;
    let s = this.held + text;
    this.held = '';
    for (const sp of this.specials) if (s.includes(sp)) s = s.split(sp).join('');
    // hold back the longest suffix that is a proper prefix of a special text
    let keep = 0;
    for (const sp of this.specials) {
      for (let n = Math.min(sp.length - 1, s.length); n > keep; n--) {
        if (s.endsWith(sp.slice(0, n))) {
          keep = n;
          break;
        }
      }
    }
    if (keep > 0) {
      this.held = s.slice(s.length - keep);
      s = s.slice(0, s.length - keep);
    }
    return s;
  }

  end(): string {
    const rest = this.held;
    this.held = '';
    return rest;
  }
}
