/** Typed wrapper over the embedded backend's compiled templates. */
import { createHash } from 'node:crypto';
import { fromNativeError } from './errors';
import { loadEmbedded, type NativeCompiledTemplate, type NativeRenderOptions } from './loader';

export type { NativeRenderOptions } from './loader';

export interface RenderLimits {
  /** Maximum size of the rendered prompt in bytes (default 256 MiB). */
  maxOutputBytes?: number;
  /** Maximum evaluation steps (default 200M). */
  maxSteps?: number;
  /** Maximum nesting of macro calls, recursive loops and expressions (default 512). */
  maxDepth?: number;
  /** Wall-clock budget of one render in milliseconds (default 10000). */
  maxRenderMs?: number;
  /** Bytes of strings and containers a render may hold alive at once, output included (default 256 MiB). */
  maxMemoryBytes?: number;
}

/**
 * A template parsed once. Immutable and shareable: many renders, sync or
 * async from the thread pool, can use it at the same time.
 */
export class CompiledTemplate {
  /** sha256 of the source, hex. */
  readonly hash: string;
  readonly source: string;
  /** Names the template reads without assigning them (jinja2.meta.find_undeclared_variables). */
  readonly undeclaredVariables: ReadonlySet<string>;
  /** vLLM's auto-detected content format for this template. */
  readonly contentFormat: 'string' | 'openai';
  readonly #native: NativeCompiledTemplate;

  /** @internal use compileTemplate() */
  constructor(source: string, hash: string) {
    const binding = loadEmbedded();
    try {
      this.#native = new binding.CompiledTemplate(source);
    } catch (e) {
      throw fromNativeError(e);
    }
    this.source = source;
    this.hash = hash;
    this.undeclaredVariables = new Set(this.#native.undeclaredVariables);
    this.contentFormat = this.#native.contentFormat;
  }

  /** Renders with the template variables given as one JSON text (Python json.loads semantics). */
  renderJson(contextJson: string, options?: NativeRenderOptions): string {
    try {
      return this.#native.render(contextJson, nativeOptions(options));
    } catch (e) {
      throw fromNativeError(e);
    }
  }

  /**
   * renderJson of a context whose `messages` are built on this thread from
   * the request planRequest shaped as `ticket`, with `plans` (config, then
   * shape and plan JSON pairs) added first. null: declined.
   * @internal
   */
  renderPlanned(contextJson: string, ticket: number, plans: string[] | null, options?: NativeRenderOptions): string | null {
    try {
      return this.#native.renderPlanned(contextJson, ticket, plans, nativeOptions(options));
    } catch (e) {
      throw fromNativeError(e);
    }
  }

  /** Same as renderJson, off the event loop. */
  async renderJsonAsync(contextJson: string, options?: NativeRenderOptions): Promise<string> {
    try {
      return await this.#native.renderAsync(contextJson, nativeOptions(options));
    } catch (e) {
      throw fromNativeError(e);
    }
  }
}

/**
 * What the native render is given: the clock fields alone when no limit is
 * set (the usual call: nothing else for it to look up), else the options.
 */
function nativeOptions(options: NativeRenderOptions | undefined): NativeRenderOptions | number[] | undefined {
  if (options === undefined) return undefined;
  const now = options.now;
  if (
    Array.isArray(now) &&
    options.maxOutputBytes === undefined &&
    options.maxSteps === undefined &&
    options.maxDepth === undefined &&
    options.maxCollection === undefined &&
    options.maxRenderMs === undefined &&
    options.maxMemoryBytes === undefined &&
    options.reuseParsed === undefined
  ) {
    return now;
  }
  return options;
}

const CACHE_LIMIT = 256;
const cache = new Map<string, CompiledTemplate>();

/** Parses a template once; identical sources (by sha256) share one compiled template. */
export function compileTemplate(source: string): CompiledTemplate {
  if (typeof source !== 'string') throw new TypeError('compileTemplate: source must be a string');
  const hash = createHash('sha256').update(source, 'utf8').digest('hex');
  const hit = cache.get(hash);
  if (hit) {
    // refresh LRU position
    cache.delete(hash);
    cache.set(hash, hit);
    return hit;
  }
  const compiled = new CompiledTemplate(source, hash);
  cache.set(hash, compiled);
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  return compiled;
}

/**
 * The request text taken apart on this thread for a planned render
 * (conversation/planned): [rest, messageCount, ticket, ...unplannedShapes],
 * null where it is not the plain case, false where it continues a request
 * taken apart here recently (an agent's next turn: the package builds it on
 * the messages it keeps).
 * @internal
 */
export function planRequest(text: string, config: string): [string, number, ...string[]] | null | false {
  return loadEmbedded().planRequest(text, config);
}

/** Keeps plans ([config, shape, plan JSON, ...]) on this thread without a render. @internal */
export function keepPlans(plans: string[]): void {
  loadEmbedded().keepPlans(plans);
}

/** Python repr of a JSON text parsed with json.loads semantics (diagnostics and tests). */
export function pyReprOfJson(json: string): string {
  try {
    return loadEmbedded().pyReprOfJson(json);
  } catch (e) {
    throw fromNativeError(e);
  }
}
