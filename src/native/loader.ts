/**
 * The one place that loads native code. Everything else talks to the typed
 * wrapper in ./embedded (and ./vllm-cpp for the opt-in backend).
 */
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { BackendError } from '../errors';
import { useNativeMemberCount } from '../protocol/json-parse-agrees';
import { useNativeValueEnd } from '../protocol/json-spans';

const PACKAGE_NAME = 'node-vllm-cpp';

export interface NativeRenderOptions {
  /** [year, month, day, hour, minute, second, microsecond] for strftime_now */
  now?: number[];
  maxOutputBytes?: number;
  maxSteps?: number;
  maxDepth?: number;
  maxCollection?: number;
  maxRenderMs?: number;
  maxMemoryBytes?: number;
  /**
   * Default true: the leading messages of a context this thread parsed
   * recently (byte for byte the same, in a conversation seen continuing) are
   * taken as parsed (docs/limits.md); false parses the whole context and
   * keeps nothing of it.
   */
  reuseParsed?: boolean;
}

export interface NativeCompiledTemplate {
  /** `options` is the options object, or the `now` fields alone. */
  render(contextJson: string, options?: NativeRenderOptions | number[]): string;
  renderAsync(contextJson: string, options?: NativeRenderOptions | number[]): Promise<string>;
  /** render, with the context's `messages` built from plans for the request planRequest shaped as `ticket` on this thread; null: declined. */
  renderPlanned(contextJson: string, ticket: number, plans: string[] | null, options?: NativeRenderOptions | number[]): string | null;
  readonly undeclaredVariables: string[];
  readonly contentFormat: 'string' | 'openai';
}

export interface NativeBinding {
  CompiledTemplate: new (source: string) => NativeCompiledTemplate;
  pyReprOfJson(json: string): string;
  /** [rest, messageCount, ticket, ...unplannedShapes], or null (conversation/planned). */
  planRequest(text: string, config: string): [string, number, ...string[]] | null | false;
  /** Keeps plans ([config, shape, plan JSON, ...]) without a render. */
  keepPlans(plans: string[]): void;
  /** Just past the JSON value at `at` by its structure (protocol/json-spans), or -1. */
  jsonValueEnd?(text: string, at: number): number;
  /** The `:` outside the strings of a valid JSON text (its members, duplicates included), or -1 (protocol/json-parse-agrees). */
  jsonMembers?(text: string): number;
  /** The UTF-8 bytes of `before + JSON.stringify(value) + after`, as Buffer.from gives them. */
  jsonQuoteUtf8?(before: string, value: string, after: string): Buffer;
  engine: string;
}

function isPackageRoot(dir: string): boolean {
  return fs.existsSync(path.join(dir, 'binding.gyp')) && fs.existsSync(path.join(dir, 'package.json'));
}

let rootCache: string | undefined;

/**
 * The package root (where prebuilds/, build/ and examples/ live):
 * `NODE_VLLM_CPP_ROOT` when set; else the nearest directory above this file
 * holding binding.gyp (an installed package or a checkout); else, when this
 * code was bundled into another file (esbuild, webpack, ...), the installed
 * package `node-vllm-cpp` as Node resolves it from the bundle's directory.
 */
export function packageRoot(): string {
  if (rootCache) return rootCache;
  const fromEnv = process.env.NODE_VLLM_CPP_ROOT;
  if (fromEnv) {
    if (!isPackageRoot(fromEnv)) throw new BackendError(`node-vllm-cpp: NODE_VLLM_CPP_ROOT=${fromEnv} is not the package directory (no binding.gyp and package.json)`);
    return (rootCache = fromEnv);
  }
  // an ES module bundle has no __dirname
  const here = typeof __dirname === 'string' ? __dirname : undefined;
  for (let dir = here; dir !== undefined; ) {
    if (isPackageRoot(dir)) return (rootCache = dir);
    const up = path.dirname(dir);
    dir = up === dir ? undefined : up;
  }
  // Resolved at run time (not a literal require of the package, which a bundler would inline).
  const resolve = createRequire(path.join(process.cwd(), 'index.js')).resolve;
  for (const from of [here, process.argv[1] && path.dirname(process.argv[1]), process.cwd()]) {
    if (!from) continue;
    try {
      const dir = path.dirname(resolve(`${PACKAGE_NAME}/package.json`, { paths: [from] }));
      if (isPackageRoot(dir)) return (rootCache = dir);
    } catch {
      // not installed where `from` can see it
    }
  }
  throw new BackendError(
    `node-vllm-cpp: cannot find the package directory above ${here ?? 'this module'}. When bundling, keep the package external ` +
      `(esbuild --external:${PACKAGE_NAME}, webpack externals) and install it beside the bundle, or set NODE_VLLM_CPP_ROOT.`,
  );
}

let cached: NativeBinding | undefined;

/**
 * Loads the embedded backend: the addon file named by NODE_VLLM_CPP_ADDON
 * when set (an instrumented or alternative-compiler build), else a prebuild
 * from prebuilds/ if one matches, else build/Release.
 */
export function loadEmbedded(): NativeBinding {
  if (cached) return cached;
  const root = packageRoot();
  try {
    const override = process.env.NODE_VLLM_CPP_ADDON;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const nodeGypBuild = require('node-gyp-build') as (dir: string) => NativeBinding;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    cached = override ? (require(path.resolve(override)) as NativeBinding) : nodeGypBuild(root);
  } catch (err) {
    throw new BackendError(
      'node-vllm-cpp: the native addon could not be loaded (' +
        (err instanceof Error ? err.message : String(err)).replace(/\s*\n\s*/g, ' ') +
        `). No prebuilt addon matches ${process.platform}-${process.arch}, so it must be built from source: ` +
        '`npm rebuild node-vllm-cpp` (pnpm skips install scripts: `pnpm approve-builds`, then `pnpm rebuild node-vllm-cpp`; ' +
        'in a checkout: `npm run build:native`); this needs a C++20 compiler, python3 and make.',
      { cause: err },
    );
  }
  // (an addon given by NODE_VLLM_CPP_ADDON may predate the scan)
  if (typeof cached.jsonValueEnd === 'function') useNativeValueEnd(cached.jsonValueEnd);
  if (typeof cached.jsonMembers === 'function') useNativeMemberCount(cached.jsonMembers);
  return cached;
}
