/** Where libvllm is: the `library` option, else the VLLM_CPP_LIB environment variable. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EngineUnavailableError } from '../errors';

export const LIBRARY_ENV = 'VLLM_CPP_LIB';

export function resolveLibraryPath(option?: string): string {
  const given = option ?? process.env[LIBRARY_ENV];
  if (!given) {
    throw new EngineUnavailableError(
      'no libvllm given: build vllm.cpp\'s `vllm_shared` target (see vllm.cpp\'s README) and pass its path as ' +
        '`library` to Engine.load, or set VLLM_CPP_LIB=/path/to/libvllm.so',
    );
  }
  const abs = path.resolve(given);
  if (!fs.existsSync(abs)) {
    throw new EngineUnavailableError(`libvllm not found at ${abs}${option ? '' : ` (from ${LIBRARY_ENV})`}`);
  }
  return abs;
}
