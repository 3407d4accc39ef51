/** Maps the plain error objects thrown by native code onto the public error classes. */
import {
  LimitError,
  NodeVllmError,
  SecurityError,
  TemplateError,
  TemplateRaisedError,
  TemplateRuntimeError,
  TemplateSyntaxError,
} from '../errors';

interface NativeFailure {
  message: string;
  kind?: string;
  pythonType?: string;
  line?: number;
  column?: number;
  construct?: string;
}

function isNativeFailure(e: unknown): e is NativeFailure {
  return typeof e === 'object' && e !== null && typeof (e as NativeFailure).kind === 'string';
}

export function fromNativeError(e: unknown): unknown {
  if (!isNativeFailure(e)) return e;
  const where = e.line ? ` (line ${e.line}${e.column ? `:${e.column}` : ''}${e.construct ? `, ${e.construct}` : ''})` : e.construct ? ` (${e.construct})` : '';
  let err: TemplateError | NodeVllmError;
  switch (e.kind) {
    case 'syntax':
      err = new TemplateSyntaxError(`${e.message}${where}`);
      break;
    case 'security':
      err = new SecurityError(`${e.message}${where}`);
      break;
    case 'raised':
      err = new TemplateRaisedError(e.message);
      break;
    case 'limit':
      err = new LimitError(`${e.message}${where}`);
      break;
    case 'runtime':
    case 'json':
      err = new TemplateRuntimeError(`${e.pythonType ?? 'Error'}: ${e.message}${where}`);
      break;
    default:
      return new NodeVllmError(`native backend failure: ${e.message}`, { cause: e });
  }
  if (err instanceof TemplateError) {
    err.pythonType = e.pythonType ?? err.pythonType;
    if (e.line) err.line = e.line;
    if (e.column) err.column = e.column;
    if (e.construct) err.construct = e.construct;
  }
  return err;
}
