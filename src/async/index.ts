/**
 * renderChatAsync's way off the main thread: turn a call into a pool job,
 * or say (undefined) that it must stay on the calling thread.
 */
import { CompiledTemplate } from '../native/embedded';
import { MAX_DEPTH } from '../protocol/pyjson';
import type { RenderChatOptions, RenderChatResult } from '../render';
import { renderPool, type JobMessage } from './pool';
import { isPlainTree } from './wire';

export { RenderPool, renderPool } from './pool';

/**
 * Renders `request` in the worker pool. Undefined when the call has to run
 * on the calling thread: the pool is off (no compiled worker, or
 * NODE_VLLM_CPP_ASYNC_WORKERS=0), the backend is not the embedded one, or
 * the request or options hold values structured clone would change
 * (PyFloat, Python key order, class instances, functions, cycles).
 */
export function renderInPool(request: unknown, options: RenderChatOptions): Promise<RenderChatResult> | undefined {
  const pool = renderPool();
  if (pool.size === 0) return undefined;
  if (typeof options !== 'object' || options === null) return undefined;
  if (options.backend !== undefined && options.backend !== 'embedded') return undefined;
  if (typeof request !== 'string' && !isPlainTree(request, MAX_DEPTH)) return undefined;
  if (options.chatTemplateKwargs !== undefined && !isPlainTree(options.chatTemplateKwargs, MAX_DEPTH)) return undefined;
  const job: Omit<JobMessage, 'id'> = { request, options: { ...options } };
  if (options.now === undefined) job.nowMs = Date.now();
  if (options.template instanceof CompiledTemplate) {
    delete job.options.template;
    return pool.submit(job, options.template);
  }
  return pool.submit(job);
}
