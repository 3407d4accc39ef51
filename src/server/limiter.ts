/**
 * A bounded admission queue: at most `maxConcurrency` generations run at
 * once, at most `maxQueue` wait for a slot, and a request beyond that is
 * refused at once (the server answers 503 with Retry-After). Waiting requests
 * leave the queue when their signal aborts (the client went away).
 */
import { AbortError } from '../errors';

export class QueueFullError extends Error {
  override name = 'QueueFullError';
}

export interface LimiterStats {
  running: number;
  waiting: number;
}

interface Waiter {
  grant: () => void;
}

export class Limiter {
  private running = 0;
  private readonly waiters: Waiter[] = [];

  constructor(
    readonly maxConcurrency: number,
    readonly maxQueue: number,
    private readonly onChange: (stats: LimiterStats) => void = () => {},
  ) {
    if (!(maxConcurrency >= 1)) throw new RangeError(`maxConcurrency must be >= 1, got ${maxConcurrency}`);
    if (!(maxQueue >= 0)) throw new RangeError(`maxQueue must be >= 0, got ${maxQueue}`);
  }

  get stats(): LimiterStats {
    return { running: this.running, waiting: this.waiters.length };
  }

  /** Resolves with a release function once a slot is free. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(new AbortError('The request was aborted'));
    if (this.running < this.maxConcurrency) {
      this.running++;
      this.onChange(this.stats);
      return Promise.resolve(this.releaser());
    }
    if (this.waiters.length >= this.maxQueue) {
      return Promise.reject(new QueueFullError(`The server is at capacity (${this.running} running, ${this.waiters.length} waiting)`));
    }
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        this.onChange(this.stats);
        reject(new AbortError('The request was aborted while waiting in the queue'));
      };
      const waiter: Waiter = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(this.releaser());
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
      this.onChange(this.stats);
    });
  }

  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.waiters.shift();
      // The slot passes straight to the next waiter; `running` is unchanged then.
      if (next) next.grant();
      else this.running--;
      this.onChange(this.stats);
    };
  }
}
