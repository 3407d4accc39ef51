/**
 * A render worker: runs the whole per-request pipeline (decode, validate,
 * vLLM post-processing, marshal, native render) for the pool in ./pool.
 * The addon is loaded once per worker; templates are compiled once per
 * worker and kept by the hash the main thread computed.
 */
import { serialize } from 'node:v8';
import { parentPort } from 'node:worker_threads';
import { compileTemplate, type CompiledTemplate } from '../native/embedded';
import { renderChatReadOnly, type RenderChatOptions } from '../render';
import { collectPatches, encodeError } from './wire';
import { WORKER_TEMPLATE_LIMIT, type JobMessage, type ReplyMessage } from './pool';

// Same first-in-first-out rule as the pool's record of what this worker holds.
const templates = new Map<string, CompiledTemplate | Error>();

function templateFor(hash: string, source: string | undefined): CompiledTemplate {
  let t = templates.get(hash);
  if (t === undefined) {
    if (source === undefined) throw new Error(`render worker: template ${hash} was never sent`);
    // a template that does not compile is remembered too: the pool counts it as sent
    try {
      t = compileTemplate(source);
    } catch (e) {
      t = e as Error;
    }
    templates.set(hash, t);
    if (templates.size > WORKER_TEMPLATE_LIMIT) templates.delete(templates.keys().next().value as string);
  }
  if (t instanceof Error) throw t;
  return t;
}

/** An ArrayBuffer of its own (v8.serialize may hand out a view into a larger one). */
function ownBuffer(b: Buffer): ArrayBuffer {
  return b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? (b.buffer as ArrayBuffer) : (b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer);
}

function run(job: JobMessage): [ReplyMessage, ArrayBuffer[]] {
  try {
    const options: RenderChatOptions = job.options;
    if (job.nowMs !== undefined) options.now = new Date(job.nowMs);
    if (job.compiled) options.template = templateFor(job.compiled[0], job.compiled[1]);
    // (the messages and tools are only serialized here, so they need no copy of their own)
    const r = renderChatReadOnly(job.request as string, options);
    const trees = ownBuffer(serialize([r.messages, r.tools]));
    const reply: ReplyMessage = {
      id: job.id,
      ok: true,
      prompt: r.prompt,
      contentFormat: r.contentFormat,
      warnings: r.warnings,
      templateHash: r.templateHash,
      backend: r.backend,
      trees,
      patches: [collectPatches(r.messages), collectPatches(r.tools)],
    };
    return [reply, [trees]];
  } catch (e) {
    return [{ id: job.id, ok: false, error: encodeError(e) }, []];
  }
}

parentPort!.on('message', (job: JobMessage) => {
  const [reply, transfer] = run(job);
  parentPort!.postMessage(reply, transfer);
});
