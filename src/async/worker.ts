/**
 * A render worker: runs the whole per-request pipeline (decode, validate,
 * vLLM post-processing, marshal, native render) for the pool in ./pool.
 * The addon is loaded once per worker; templates are compiled once per
 * worker and kept by the hash the main thread computed.
 */
import { parentPort } from 'node:worker_threads';
import { compileTemplate, type CompiledTemplate } from '../native/embedded';
import { renderChat, type RenderChatOptions } from '../render';
import { collectPatches, encodeError } from './wire';
import type { JobMessage, ReplyMessage } from './pool';

const TEMPLATE_CACHE_LIMIT = 64;
const templates = new Map<string, CompiledTemplate>();

function templateFor(hash: string, source: string): CompiledTemplate {
  let t = templates.get(hash);
  if (t === undefined) {
    t = compileTemplate(source);
    templates.set(hash, t);
    if (templates.size > TEMPLATE_CACHE_LIMIT) templates.delete(templates.keys().next().value as string);
  }
  return t;
}

function run(job: JobMessage): ReplyMessage {
  try {
    const options: RenderChatOptions = job.options;
    if (job.compiled) options.template = templateFor(job.compiled[0], job.compiled[1]);
    const r = renderChat(job.request as string, options);
    return {
      id: job.id,
      ok: true,
      prompt: r.prompt,
      contentFormat: r.contentFormat,
      warnings: r.warnings,
      templateHash: r.templateHash,
      backend: r.backend,
      messages: r.messages,
      tools: r.tools,
      patches: [collectPatches(r.messages), collectPatches(r.tools)],
    };
  } catch (e) {
    return { id: job.id, ok: false, error: encodeError(e) };
  }
}

parentPort!.on('message', (job: JobMessage) => {
  parentPort!.postMessage(run(job));
});
