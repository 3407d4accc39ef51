/**
 * OpenAI's error body, `{"error": {"message", "type", "param", "code"}}`, and
 * the mapping from the package's errors (each carries `.status` and `.code`)
 * and Fastify's own errors onto it.
 */
import { NodeVllmError, RequestValidationError, ToolArgumentsError } from '../errors';

export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export interface ErrorResponse {
  status: number;
  body: OpenAIErrorBody;
  headers: Record<string, string>;
}

/** An error the HTTP layer raises itself (bad key, unknown model, full queue, ...). */
export class HttpError extends Error {
  override name = 'HttpError';
  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
    readonly param: string | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** OpenAI's `type` for a status: client errors are `invalid_request_error`, the rest `server_error`. */
export function errorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 400 && status < 500) return 'invalid_request_error';
  return 'server_error';
}

function body(status: number, message: string, code: string | null, param: string | null): OpenAIErrorBody {
  return { error: { message, type: errorType(status), param, code } };
}

interface FastifyLikeError {
  statusCode?: unknown;
  code?: unknown;
  message?: unknown;
}

/**
 * Maps anything thrown while serving a request onto a status and an OpenAI
 * error body. A failure that is not one of the package's typed errors or a
 * client error answers a generic 500 (the details go to the log).
 */
export function toErrorResponse(e: unknown, retryAfterSeconds: number): ErrorResponse {
  const headers: Record<string, string> = {};
  if (e instanceof HttpError) {
    Object.assign(headers, e.headers);
    return { status: e.status, body: body(e.status, e.message, e.code, e.param), headers };
  }
  if (e instanceof NodeVllmError) {
    const param = e instanceof RequestValidationError || e instanceof ToolArgumentsError ? e.path || null : null;
    const status = e.status;
    if (status === 503) headers['retry-after'] = String(retryAfterSeconds);
    return { status, body: body(status, e.message, e.code, param), headers };
  }
  const f = (e ?? {}) as FastifyLikeError;
  if (typeof f.statusCode === 'number' && f.statusCode >= 400 && f.statusCode < 500) {
    const code = typeof f.code === 'string' ? f.code : null;
    const message = f.statusCode === 413 ? 'Request body is too large' : String(f.message ?? 'Bad request');
    return { status: f.statusCode, body: body(f.statusCode, message, code, null), headers };
  }
  return { status: 500, body: body(500, 'Internal server error', 'ERR_INTERNAL', null), headers };
}
