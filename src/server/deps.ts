/**
 * The server's HTTP framework and metrics client are optional peer
 * dependencies: installing node-vllm-cpp for rendering, parsing or the
 * engine does not pull them in. `node-vllm-cpp/server` (and `serve`) checks
 * for them first, so a missing one is a clear error instead of a bare
 * MODULE_NOT_FOUND from deep inside the module graph.
 */
import { BackendError } from '../errors';

/** The peer dependencies the server needs, with the ranges it is tested with. */
export const SERVER_PEER_DEPENDENCIES: ReadonlyArray<readonly [name: string, range: string]> = [
  ['fastify', '^5'],
  ['prom-client', '^15'],
];

/** The names of SERVER_PEER_DEPENDENCIES that `resolve` cannot find. */
export function missingServerDependencies(resolve: (name: string) => unknown = require.resolve): string[] {
  const missing: string[] = [];
  for (const [name] of SERVER_PEER_DEPENDENCIES) {
    try {
      resolve(name);
    } catch {
      missing.push(name);
    }
  }
  return missing;
}

/** Throws BackendError naming the install command when a server dependency is missing. */
export function assertServerDependencies(resolve?: (name: string) => unknown): void {
  const missing = missingServerDependencies(resolve);
  if (missing.length === 0) return;
  const spec = SERVER_PEER_DEPENDENCIES.filter(([n]) => missing.includes(n)).map(([n, r]) => `${n}@${r}`);
  throw new BackendError(
    `node-vllm-cpp/server needs ${spec.join(' and ')} (${missing.length === 1 ? 'an optional peer dependency' : 'optional peer dependencies'}, not installed with the package): ` +
      `npm install ${missing.join(' ')}`,
  );
}

assertServerDependencies();
