import { renderChat, type RenderChatOptions } from '../../src';
import { serializePyJson } from '../../src/protocol/pyjson';

/**
 * The outcome of renderChat, comparable across paths: the prompt, the
 * result's messages and tools as Python JSON, the warnings and the content
 * format, or the error's class, code, message and path.
 */
export function renderOutcome(request: unknown, options: RenderChatOptions): unknown {
  const error = (e: unknown) => {
    const err = e as { name?: string; code?: string; message?: string; path?: string };
    return { error: [err.name, err.code, err.message, err.path] };
  };
  let r: ReturnType<typeof renderChat>;
  try {
    r = renderChat(request as never, options);
  } catch (e) {
    return error(e);
  }
  // (the result's messages and tools may be built when first read: a failure there is not the render's)
  try {
    return { prompt: r.prompt, messages: serializePyJson(r.messages), tools: serializePyJson(r.tools), warnings: r.warnings, format: r.contentFormat };
  } catch (e) {
    return { prompt: r.prompt, whenRead: error(e) };
  }
}
