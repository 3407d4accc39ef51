/**
 * The OpenAI-compatible HTTP server, as a library:
 *
 *   createServer(options)        a Fastify instance with the routes (call .listen())
 *   nodeVllmCppPlugin            the routes as a Fastify plugin for an existing app
 *   createHandler(options)       a plain `(req, res)` handler for node:http / Express / Koa
 *
 * and the backends it serves from: `chatBackend(pipeline, generator)` over a
 * ChatPipeline, or the libvllm Engine itself, and `UpstreamGenerator` for an
 * OpenAI-compatible completions endpoint.
 */
// first: a clear error when the optional peer dependencies are not installed
import './deps';
import * as http from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { nodeVllmCppPlugin, requestIdGenerator, ServingState, type NodeVllmCppPluginOptions } from './app';
import { ServerMetrics } from './metrics';

export { nodeVllmCppPlugin, requestIdGenerator, ServingState } from './app';
export type { NodeVllmCppPluginOptions, RequestIdOptions } from './app';
export { HttpError, toErrorResponse, errorType } from './errors';
export type { ErrorResponse, OpenAIErrorBody } from './errors';
export { Limiter, QueueFullError } from './limiter';
export { ServerMetrics } from './metrics';
export type { MetricsOptions } from './metrics';
export { UpstreamGenerator, UpstreamError, sseData } from './upstream';
export type { UpstreamGenerateOptions, UpstreamOptions } from './upstream';
export { chatBackend } from './backends';
export { SERVER_PEER_DEPENDENCIES, missingServerDependencies } from './deps';
export type { ChatBackendInfo, ChatCapable } from './backends';
export type { ChatBackend, ChatCallOptions, ChatCompletionChunkLike, ChatCompletionLike, ServerBackend } from './types';

export interface CreateServerOptions extends NodeVllmCppPluginOptions {
  /** Fastify's logger option (pino): `true`, `false` (default) or pino options such as `{ level: 'info' }`. */
  logger?: FastifyServerOptions['logger'];
  /** Honour the client's `x-request-id` header (default true). */
  trustRequestId?: boolean;
  /** On close, in-flight generations get this long to finish before they are aborted. Default 30 s. */
  drainTimeoutMs?: number;
  /** Close the backend when the server closes (default true). */
  closeBackend?: boolean;
  /** Passed to Fastify as is (e.g. `serverFactory`). */
  fastify?: Omit<FastifyServerOptions, 'logger' | 'genReqId' | 'requestIdHeader' | 'bodyLimit'>;
}

/**
 * A Fastify instance serving the OpenAI routes. `close()` stops accepting
 * connections, lets in-flight requests finish (aborting them after
 * `drainTimeoutMs`), then closes the backend.
 */
export async function createServer(options: CreateServerOptions): Promise<FastifyInstance> {
  const { logger, trustRequestId, drainTimeoutMs, closeBackend, fastify, ...pluginOptions } = options;
  const app = Fastify({
    ...fastify,
    logger: logger ?? false,
    requestIdHeader: false,
    genReqId: requestIdGenerator({ trustRequestId }),
    // Requests that arrive on open connections while draining get our own 503 (OpenAI's error body).
    return503OnClosing: false,
    bodyLimit: pluginOptions.bodyLimit ?? 32 * 1024 * 1024,
  });
  const state = pluginOptions.state ?? new ServingState();
  const metrics = pluginOptions.metrics ?? new ServerMetrics();
  let abortTimer: NodeJS.Timeout | undefined;
  // Node's server.close() waits for every socket, also those that carry no
  // request (a client's spare keep-alive connection): close those at once,
  // and the others as soon as their response is done.
  const sockets = new Set<Socket>();
  const busy = new Set<Socket>();
  let closing = false;
  app.server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => {
      sockets.delete(s);
      busy.delete(s);
    });
  });
  app.server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const s = req.socket;
    busy.add(s);
    res.once('close', () => {
      busy.delete(s);
      if (closing) s.end();
    });
  });
  app.addHook('preClose', async () => {
    closing = true;
    state.closing = true;
    for (const s of sockets) if (!busy.has(s)) s.destroy();
    if (state.inflight.size) app.log.info({ inflight: state.inflight.size }, 'draining in-flight requests');
    abortTimer = setTimeout(() => {
      if (state.inflight.size) app.log.warn({ inflight: state.inflight.size }, 'drain timeout: aborting in-flight requests');
      state.abortAll();
    }, drainTimeoutMs ?? 30_000);
    abortTimer.unref();
  });
  app.addHook('onClose', async () => {
    clearTimeout(abortTimer);
    if (closeBackend !== false) await pluginOptions.backend.close?.();
  });
  await app.register(nodeVllmCppPlugin, { ...pluginOptions, state, metrics });
  return app;
}

export type RequestHandler = ((req: http.IncomingMessage, res: http.ServerResponse) => void) & {
  /** The Fastify instance behind the handler. */
  app: FastifyInstance;
  /** Drains and closes (see createServer). */
  close(): Promise<void>;
};

/**
 * The same routes as a plain `(req, res)` handler, for node:http servers and
 * frameworks that take one (Express: `app.use('/llm', handler)` strips the
 * prefix before the handler sees the URL).
 */
export async function createHandler(options: CreateServerOptions): Promise<RequestHandler> {
  let route: ((req: http.IncomingMessage, res: http.ServerResponse) => void) | undefined;
  const app = await createServer({
    ...options,
    fastify: {
      ...options.fastify,
      serverFactory: (handler) => {
        route = handler;
        return http.createServer();
      },
    },
  });
  await app.ready();
  const r = route;
  if (!r) throw new Error('createHandler: Fastify did not hand over its request handler');
  const handler = ((req: http.IncomingMessage, res: http.ServerResponse) => r(req, res)) as RequestHandler;
  handler.app = app;
  handler.close = () => app.close();
  return handler;
}
