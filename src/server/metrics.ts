/**
 * Prometheus metrics (prom-client), on a registry of their own so several
 * servers in one process (or a host app's own metrics) never collide.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Usage } from '../engine/types';

export interface MetricsOptions {
  /** Also collect prom-client's process metrics (memory, CPU, event-loop lag). Default true. */
  processMetrics?: boolean;
  /** Metric name prefix. Default `node_vllm_cpp_`. */
  prefix?: string;
}

export class ServerMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<'endpoint' | 'status'>;
  readonly promptTokens: Counter<'endpoint'>;
  readonly generationTokens: Counter<'endpoint'>;
  readonly latency: Histogram<'endpoint' | 'stream'>;
  readonly timeToFirstChunk: Histogram<'endpoint'>;
  readonly running: Gauge;
  readonly waiting: Gauge;

  constructor(options: MetricsOptions = {}) {
    const p = options.prefix ?? 'node_vllm_cpp_';
    const registers = [this.registry];
    this.requests = new Counter({
      name: `${p}requests_total`,
      help: 'HTTP requests answered, by endpoint and status (499: the client went away)',
      labelNames: ['endpoint', 'status'],
      registers,
    });
    this.promptTokens = new Counter({ name: `${p}prompt_tokens_total`, help: 'Prompt tokens processed', labelNames: ['endpoint'], registers });
    this.generationTokens = new Counter({ name: `${p}generation_tokens_total`, help: 'Tokens generated', labelNames: ['endpoint'], registers });
    this.latency = new Histogram({
      name: `${p}request_duration_seconds`,
      help: 'Time from receiving a request to its last byte',
      labelNames: ['endpoint', 'stream'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers,
    });
    this.timeToFirstChunk = new Histogram({
      name: `${p}time_to_first_chunk_seconds`,
      help: 'Time from receiving a streaming request to its first generated chunk',
      labelNames: ['endpoint'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.running = new Gauge({ name: `${p}requests_running`, help: 'Generations in progress', registers });
    this.waiting = new Gauge({ name: `${p}requests_waiting`, help: 'Requests waiting in the admission queue (queue depth)', registers });
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix: p });
  }

  countUsage(endpoint: string, usage: Partial<Usage> | null | undefined): void {
    if (!usage) return;
    if (typeof usage.prompt_tokens === 'number' && usage.prompt_tokens > 0) this.promptTokens.inc({ endpoint }, usage.prompt_tokens);
    if (typeof usage.completion_tokens === 'number' && usage.completion_tokens > 0) this.generationTokens.inc({ endpoint }, usage.completion_tokens);
  }
}
