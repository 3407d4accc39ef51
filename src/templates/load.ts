/**
 * Locating chat templates: a source string, a .jinja file, a
 * tokenizer_config.json (string or list of {name, template}), a
 * chat_template.json, or a model directory holding any of them
 * (chat_template.jinja wins, as in transformers).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TemplateLoadError } from '../errors';

export interface LoadedTemplate {
  source: string;
  /** Where it came from, for messages. */
  origin: string;
  /** Name picked from a list-of-templates config ("default", "tool_use", ...). */
  name?: string;
  /** Special tokens configured next to the template (tokenizer_config.json, special_tokens_map.json), as strings. */
  specialTokens: Record<string, string>;
}

const SPECIAL_TOKEN_KEYS = ['bos_token', 'eos_token', 'unk_token', 'sep_token', 'pad_token', 'cls_token', 'mask_token'];

function tokenText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object' && typeof (v as { content?: unknown }).content === 'string') {
    return (v as { content: string }).content;
  }
  return undefined;
}

function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new TemplateLoadError(`cannot read chat template ${file}: ${(e as Error).message}`, { cause: e });
  }
}

/** Picks the template from tokenizer_config.json's chat_template like transformers' get_chat_template. */
export function pickFromConfig(config: unknown, origin: string, hasTools: boolean): { source: string; name?: string } {
  const ct = (config as { chat_template?: unknown })?.chat_template;
  if (typeof ct === 'string') return { source: ct };
  if (Array.isArray(ct)) {
    const named = new Map<string, string>();
    for (const [i, entry] of ct.entries()) {
      const e = entry as { name?: unknown; template?: unknown };
      if (typeof e?.name !== 'string' || typeof e?.template !== 'string') {
        throw new TemplateLoadError(`${origin}: chat_template[${i}] must be an object with string "name" and "template"`);
      }
      named.set(e.name, e.template);
    }
    if (hasTools && named.has('tool_use')) return { source: named.get('tool_use')!, name: 'tool_use' };
    if (named.has('default')) return { source: named.get('default')!, name: 'default' };
    throw new TemplateLoadError(
      `${origin}: chat_template lists templates named ${[...named.keys()].map((n) => JSON.stringify(n)).join(', ')} but none is "default"` +
        (hasTools ? ' or "tool_use"' : ''),
    );
  }
  throw new TemplateLoadError(`${origin}: no chat_template in tokenizer config`);
}

function specialTokensOf(config: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (config && typeof config === 'object') {
    for (const key of SPECIAL_TOKEN_KEYS) {
      const t = tokenText((config as Record<string, unknown>)[key]);
      if (t) out[key] = t;
    }
  }
  return out;
}

function readConfig(file: string): unknown {
  try {
    return JSON.parse(readText(file));
  } catch (e) {
    if (e instanceof TemplateLoadError) throw e;
    throw new TemplateLoadError(`${file}: not valid JSON: ${(e as Error).message}`, { cause: e });
  }
}

/**
 * The special tokens a tokenizer saved in `dir` carries, as transformers 5.24
 * loads them: tokenizer_config.json's, then (legacy tokenizers, whose config
 * has no `added_tokens_decoder`) special_tokens_map.json's on top.
 */
function specialTokensIn(dir: string, config: unknown): Record<string, string> {
  const out = specialTokensOf(config);
  const hasDecoder = config !== null && typeof config === 'object' && 'added_tokens_decoder' in (config as object);
  const mapFile = path.join(dir, 'special_tokens_map.json');
  if (!hasDecoder && fs.existsSync(mapFile)) Object.assign(out, specialTokensOf(readConfig(mapFile)));
  return out;
}

function configIn(dir: string): { file: string; config: unknown } | undefined {
  const file = path.join(dir, 'tokenizer_config.json');
  return fs.existsSync(file) ? { file, config: readConfig(file) } : undefined;
}

function hasChatTemplate(config: unknown): boolean {
  const ct = (config as { chat_template?: unknown } | null)?.chat_template;
  return ct !== undefined && ct !== null;
}

/**
 * Loads a template from a path: a .jinja file, a tokenizer_config.json, a
 * chat_template.json, or a model directory. A model directory is searched as
 * transformers and vLLM do: chat_template.jinja, else tokenizer_config.json's
 * chat_template, else chat_template.json (a processor's template). Special
 * tokens come from tokenizer_config.json (and special_tokens_map.json) in the
 * same directory, also when the path names a bare template file.
 */
export function loadTemplateFromPath(p: string, opts: { hasTools?: boolean } = {}): LoadedTemplate {
  const hasTools = opts.hasTools ?? false;
  let stat: fs.Stats;
  try {
    stat = fs.statSync(p);
  } catch {
    throw new TemplateLoadError(`chat template not found: ${p}`);
  }
  if (stat.isDirectory()) {
    const jinja = path.join(p, 'chat_template.jinja');
    const cfg = configIn(p);
    const specialTokens = specialTokensIn(p, cfg?.config);
    if (fs.existsSync(jinja)) return { source: readText(jinja), origin: jinja, specialTokens };
    const processorFile = path.join(p, 'chat_template.json');
    if (cfg && (hasChatTemplate(cfg.config) || !fs.existsSync(processorFile))) {
      const picked = pickFromConfig(cfg.config, cfg.file, hasTools);
      return { ...picked, origin: cfg.file, specialTokens };
    }
    if (fs.existsSync(processorFile)) {
      const picked = pickFromConfig(readConfig(processorFile), processorFile, hasTools);
      return { ...picked, origin: processorFile, specialTokens };
    }
    throw new TemplateLoadError(`${p}: no chat_template.jinja, tokenizer_config.json or chat_template.json in this directory`);
  }
  const dir = path.dirname(p);
  if (p.endsWith('.json')) {
    const config = readConfig(p);
    const picked = pickFromConfig(config, p, hasTools);
    const tokenizerConfig = path.basename(p) === 'tokenizer_config.json' ? config : configIn(dir)?.config;
    return { ...picked, origin: p, specialTokens: specialTokensIn(dir, tokenizerConfig) };
  }
  return { source: readText(p), origin: p, specialTokens: specialTokensIn(dir, configIn(dir)?.config) };
}
