/**
 * One error hierarchy for everything the package throws. Native failures are
 * mapped onto these classes by the loader (src/native), so callers can branch
 * on `instanceof` regardless of which backend rendered.
 */

export class NodeVllmError extends Error {
  override name = 'NodeVllmError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The request does not match the OpenAI Chat Completions schema. `path` is the JSON path. */
export class RequestValidationError extends NodeVllmError {
  override name = 'RequestValidationError';
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
}

/** Evaluating the template failed (undefined misuse, type errors, ...). */
export class TemplateRuntimeError extends TemplateError {
  override name = 'TemplateRuntimeError';
}

/** The template called `raise_exception(message)`. */
export class TemplateRaisedError extends TemplateError {
  override name = 'TemplateRaisedError';
}

/** The sandbox refused an operation (like Jinja2's ImmutableSandboxedEnvironment). */
export class SecurityError extends TemplateError {
  override name = 'SecurityError';
}

/** A resource bound (output size, recursion depth, evaluation steps) was hit. */
export class LimitError extends TemplateError {
  override name = 'LimitError';
}

/** Locating or reading a chat template failed. */
export class TemplateLoadError extends NodeVllmError {
  override name = 'TemplateLoadError';
}

/** The native addon (or the requested backend) could not be loaded. */
export class BackendError extends NodeVllmError {
  override name = 'BackendError';
}

/** Model output could not be parsed into tool calls, or an unknown parser was named. */
export class ToolParseError extends NodeVllmError {
  override name = 'ToolParseError';
}
