/**
 * The one place that loads native code. Everything else talks to the typed
 * wrapper in ./embedded (and ./vllm-cpp for the opt-in backend).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BackendError } from '../errors';

export interface NativeRenderOptions {
  /** [year, month, day, hour, minute, second, microsecond] for strftime_now */
  now?: number[];
  maxOutputBytes?: number;
  maxSteps?: number;
  maxDepth?: number;
  maxCollection?: number;
}

export interface NativeCompiledTemplate {
  render(contextJson: string, options?: NativeRenderOptions): string;
  renderAsync(contextJson: string, options?: NativeRenderOptions): Promise<string>;
  readonly undeclaredVariables: string[];
  readonly contentFormat: 'string' | 'openai';
}

export interface NativeBinding {
  CompiledTemplate: new (source: string) => NativeCompiledTemplate;
  pyReprOfJson(json: string): string;
  engine: string;
}

/** The package root: the nearest directory above this file holding binding.gyp. */
export function packageRoot(): string {
  let dir = __dirname;
  for (;;) {
    if (fs.existsSync(path.join(dir, 'binding.gyp'))) return dir;
    const up = path.dirname(dir);
    if (up === dir) throw new BackendError(`node-vllm-cpp: cannot find the package root above ${__dirname}`);
    dir = up;
  }
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
        '). Build it with `npm rebuild node-vllm-cpp` (or `npm run build:native` in a checkout); ' +
        'this needs a C++20 compiler, python3 and make.',
      { cause: err },
    );
  }
  return cached;
}
