/**
 * The opt-in vllm.cpp backend: an addon built with cmake-js against a user's
 * vllm.cpp checkout (VLLM_CPP_DIR). It renders through vllm.cpp's own chat
 * template code so the same golden suite can measure it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BackendError } from '../errors';
import { fromNativeError } from './errors';
import { packageRoot, type NativeRenderOptions } from './loader';

export interface VllmCppBinding {
  render(source: string, contextJson: string, options?: NativeRenderOptions): string;
  renderAsync(source: string, contextJson: string, options?: NativeRenderOptions): Promise<string>;
  /** Description of the linked vllm.cpp build. */
  readonly version: string;
}

interface RawBinding {
  render(source: string, contextJson: string, options?: NativeRenderOptions): string;
  version: string;
}

let cached: VllmCppBinding | undefined;

/** Where `npm run build:vllm-cpp` puts the addon; NODE_VLLM_CPP_VLLM_ADDON overrides. */
export function vllmCppAddonPath(): string {
  return process.env.NODE_VLLM_CPP_VLLM_ADDON ?? path.join(packageRoot(), 'build-vllm-cpp', 'Release', 'node_vllm_cpp_vllmcpp.node');
}

export function loadVllmCpp(): VllmCppBinding {
  if (cached) return cached;
  const file = vllmCppAddonPath();
  if (!fs.existsSync(file)) {
    throw new BackendError(
      `the vllm.cpp backend is not built (${file} is missing). Build it against your vllm.cpp checkout with ` +
        '`VLLM_CPP_DIR=/path/to/vllm.cpp npm run build:vllm-cpp`.',
    );
  }
  let raw: RawBinding;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    raw = require(file) as RawBinding;
  } catch (e) {
    throw new BackendError(`the vllm.cpp backend at ${file} failed to load: ${(e as Error).message}`, { cause: e });
  }
  cached = {
    version: raw.version,
    render(source, contextJson, options) {
      try {
        return raw.render(source, contextJson, options);
      } catch (e) {
        throw fromNativeError(e);
      }
    },
    async renderAsync(source, contextJson, options) {
      // vllm.cpp's renderer is synchronous; keep the async contract.
      return this.render(source, contextJson, options);
    },
  };
  return cached;
}
