/** Building a ServerBackend from a chat-capable object (the Engine, a ChatPipeline) and a TextGenerator. */
import type { TextGenerator } from '../engine/types';
import type { ChatBackend, ChatCallOptions, ChatCompletionChunkLike, ChatCompletionLike, ServerBackend } from './types';

/** Anything with OpenAI-shaped `chat` / `chatStream` (the Engine, a ChatPipeline). */
export interface ChatCapable {
  chat(request: never, options?: ChatCallOptions): Promise<unknown>;
  chatStream(request: never, options?: ChatCallOptions): AsyncIterable<unknown>;
}

export interface ChatBackendInfo {
  modelName: string;
  maxModelLen?: number;
  /** Pass the raw body text to `chat()` (the pipeline decodes it with Python's number semantics). */
  acceptsRequestText?: boolean;
  healthy?: () => boolean;
  close?: () => Promise<void> | void;
}

/**
 * `chat`/`chatStream` from `chat`, raw-prompt completions from `generator`.
 * With the Engine both are the engine; in upstream mode `chat` is a
 * ChatPipeline over the upstream generator.
 */
export function chatBackend(chat: ChatCapable, generator: TextGenerator, info: ChatBackendInfo): ServerBackend {
  const c = chat as unknown as ChatBackend;
  return {
    generator,
    modelName: info.modelName,
    maxModelLen: info.maxModelLen,
    acceptsRequestText: info.acceptsRequestText,
    healthy: info.healthy,
    close: info.close,
    chat: (request: unknown, options?: ChatCallOptions) => c.chat(request, options) as Promise<ChatCompletionLike>,
    chatStream: (request: unknown, options?: ChatCallOptions) => c.chatStream(request, options) as AsyncIterable<ChatCompletionChunkLike>,
  };
}
