/**
 * One error hierarchy for everything the package throws. Native failures are
 * mapped onto these classes by the loader (src/native), so callers can branch
 * on `instanceof` regardless of which backend rendered.
 */

export class NodeVllmError extends Error {
  override name = 'NodeVllmError';
  /** Stable machine-readable code, e.g. `ERR_TOOL_ARGUMENTS`; never changes between versions. */
  readonly code: string = 'ERR_NODE_VLLM';
  /** The HTTP status a server should answer with for this error. */
  readonly status: number = 500;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The request does not match the OpenAI Chat Completions schema. `path` is the JSON path. */
export class RequestValidationError extends NodeVllmError {
  override name = 'RequestValidationError';
  override readonly code: string = 'ERR_REQUEST_VALIDATION';
  override readonly status: number = 400;
  constructor(
    message: string,
    readonly path: string,
    readonly issues: ReadonlyArray<{ path: string; message: string }> = [],
  ) {
    super(message);
  }
}

/** A tool call's `function.arguments` could not be decoded (strict policy). */
export class ToolArgumentsError extends NodeVllmError {
  override name = 'ToolArgumentsError';
  override readonly code: string = 'ERR_TOOL_ARGUMENTS';
  override readonly status: number = 400;
  constructor(
    message: string,
    /** e.g. `messages[3].tool_calls[0].function.arguments` */
    readonly path: string,
    /** Python json.loads' message, e.g. `Expecting value: line 1 column 1 (char 0)` */
    readonly reason: string,
  ) {
    super(message);
  }
}

/** Base of errors raised while compiling or rendering a template. */
export class TemplateError extends NodeVllmError {
  override name = 'TemplateError';
  override readonly code: string = 'ERR_TEMPLATE';
  override readonly status: number = 400;
  /** The Python exception class Jinja2 would raise for the same failure. */
  pythonType = 'TemplateError';
  /** 1-based line in the template source, when known. */
  line?: number;
  /** 1-based column in the template source, when known. */
  column?: number;
  /** The template construct being evaluated, e.g. `filter 'tojson'`. */
  construct?: string;
}

/** The template source does not parse. Carries line:col. */
export class TemplateSyntaxError extends TemplateError {
  override name = 'TemplateSyntaxError';
  override readonly code: string = 'ERR_TEMPLATE_SYNTAX';
  override readonly status: number = 400;
}

/** Evaluating the template failed (undefined misuse, type errors, ...). */
export class TemplateRuntimeError extends TemplateError {
  override name = 'TemplateRuntimeError';
  override readonly code: string = 'ERR_TEMPLATE_RUNTIME';
  override readonly status: number = 400;
}

/** The template called `raise_exception(message)`. */
export class TemplateRaisedError extends TemplateError {
  override name = 'TemplateRaisedError';
  override readonly code: string = 'ERR_TEMPLATE_RAISED';
  override readonly status: number = 400;
}

/** The sandbox refused an operation (like Jinja2's ImmutableSandboxedEnvironment). */
export class SecurityError extends TemplateError {
  override name = 'SecurityError';
  override readonly code: string = 'ERR_TEMPLATE_SECURITY';
  override readonly status: number = 400;
}

/** A resource bound (output size, recursion depth, evaluation steps) was hit. */
export class LimitError extends TemplateError {
  override name = 'LimitError';
  override readonly code: string = 'ERR_LIMIT';
  override readonly status: number = 400;
}

/** Locating or reading a chat template failed. */
export class TemplateLoadError extends NodeVllmError {
  override name = 'TemplateLoadError';
  override readonly code: string = 'ERR_TEMPLATE_LOAD';
  override readonly status: number = 500;
}

/** The native addon (or the requested backend) could not be loaded. */
export class BackendError extends NodeVllmError {
  override name = 'BackendError';
  override readonly code: string = 'ERR_BACKEND';
  override readonly status: number = 500;
}

/** Model output could not be parsed into tool calls, or an unknown parser was named. */
export class ToolParseError extends NodeVllmError {
  override name = 'ToolParseError';
  override readonly code: string = 'ERR_TOOL_PARSE';
  override readonly status: number = 500;
}

/** Base of errors raised by the generation engine bridge (libvllm). */
export class EngineError extends NodeVllmError {
  override name = 'EngineError';
  override readonly code: string = 'ERR_ENGINE';
  override readonly status: number = 500;
  /** libvllm's status name when the failure came from the library, e.g. `VLLM_ERR_RUNTIME`. */
  vllmStatus?: string;
}

/** No libvllm could be loaded (no `library` option, no `VLLM_CPP_LIB`, or a wrong/incompatible file). */
export class EngineUnavailableError extends EngineError {
  override name = 'EngineUnavailableError';
  override readonly code: string = 'ERR_ENGINE_UNAVAILABLE';
  override readonly status: number = 503;
}

/** The engine failed in a way that leaves the handle unusable; `engine.reload()` builds a fresh one. */
export class EngineDeadError extends EngineError {
  override name = 'EngineDeadError';
  override readonly code: string = 'ERR_ENGINE_DEAD';
  override readonly status: number = 503;
}

/** The engine was closed (or is closing); no new requests are accepted. */
export class EngineClosedError extends EngineError {
  override name = 'EngineClosedError';
  override readonly code: string = 'ERR_ENGINE_CLOSED';
  override readonly status: number = 503;
}

/** A generation was cancelled through its AbortSignal. `name` is `AbortError` as for fetch(). */
export class AbortError extends NodeVllmError {
  override name = 'AbortError';
  override readonly code: string = 'ABORT_ERR';
  override readonly status: number = 499;
}
