// A source's request rate, shared by every worker process through PostgreSQL (rate-limiter-flexible's store
// over the `source_rates` table). A window of `points` requests per `duration` seconds gives the rate.
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Pool } from '../../platform/db/index.ts';

export interface RateGate {
  /** Resolves when one more request may be made now (waiting as long as the shared window says). */
  take(signal: AbortSignal): Promise<void>;
  /** Holds every worker's requests for `ms` (an upstream's Retry-After). */
  holdFor(ms: number): Promise<void>;
}

/**
 * `rate` requests per second; 0 means no rate of our own, but an upstream's Retry-After still holds every
 * worker (a provider without a published limit can still answer 429).
 */
export function rateGate(pool: Pool, source: string, rate: number): RateGate {
  // Whole requests per window, and windows of at least one second: 0.4/s is 1 per 2.5 s, 20/s is 20 per 1 s.
  const points = rate > 0 ? Math.max(1, Math.floor(rate)) : 1;
  const limiter = new RateLimiterPostgres({
    storeClient: pool,
    tableName: 'source_rates',
    tableCreated: true,
    clearExpiredByTimeout: false,
    keyPrefix: 'rate',
    points,
    duration: rate > 0 ? points / rate : 1,
  });
  // With no rate, a request only looks for a hold (a block leaves more than `points` consumed).
  const admit =
    rate > 0
      ? () => limiter.consume(source, 1)
      : async () => {
          const res = await limiter.get(source);
          if (res && res.consumedPoints > points && res.msBeforeNext > 0) throw res;
        };
  return {
    async take(signal) {
      while (!signal.aborted) {
        try {
          await admit();
          return;
        } catch (err) {
          if (!(err instanceof RateLimiterRes)) throw err;
          await sleep(Math.max(10, err.msBeforeNext) + Math.random() * 20, signal);
        }
      }
    },
    async holdFor(ms) {
      await limiter.block(source, Math.ceil(ms / 1000));
    },
  };
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
