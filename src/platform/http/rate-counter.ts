// One policy's counter in the store, with a process's concurrent requests of one key counted in one statement.
// While a key's upsert is in flight, the requests of that key that arrive wait and are then counted together
// (`consume(key, n)`): the store's count rises by the same total, and each request is judged by its own place in
// that count, as if they had come one by one in that order. So the budget stays one, in PostgreSQL, and no answer
// differs; under load one hot key costs one statement per round trip instead of one per request.
import { type RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';

/** What the store says of one request: its place in the window's count, and when the window ends. */
export interface Counted {
  /** The window's count including this request; over the quota means refused. */
  count: number;
  msBeforeNext: number;
}

interface Waiting {
  resolve(counted: Counted): void;
  reject(err: unknown): void;
}

export interface RateCounter {
  count(key: string): Promise<Counted>;
}

export function rateCounter(store: RateLimiterPostgres, points: number): RateCounter {
  const waiting = new Map<string, Waiting[]>();
  const inFlight = new Set<string>();
  // A fixed window's count only grows until the window ends: a key refused once is refused until then, so this
  // process answers it without asking the store (the answer the store would give).
  const refusedUntil = new Map<string, number>();

  async function flush(key: string): Promise<void> {
    inFlight.add(key);
    // A loop, not a recursion: under steady load a hot key's batches follow one another for as long as it lasts.
    for (let batch = waiting.get(key); batch && batch.length > 0; batch = waiting.get(key)) {
      waiting.delete(key);
      try {
        const res = await consume(store, key, batch.length);
        if (res.consumedPoints > points) remember(key, Date.now() + res.msBeforeNext);
        const first = res.consumedPoints - batch.length;
        for (const [i, w] of batch.entries()) w.resolve({ count: first + i + 1, msBeforeNext: res.msBeforeNext });
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    inFlight.delete(key);
  }

  function remember(key: string, until: number): void {
    if (refusedUntil.size >= 10_000) for (const [k, t] of refusedUntil) if (t <= Date.now()) refusedUntil.delete(k);
    refusedUntil.set(key, until);
  }

  return {
    count(key) {
      const until = refusedUntil.get(key);
      if (until !== undefined) {
        const left = until - Date.now();
        if (left > 0) return Promise.resolve({ count: points + 1, msBeforeNext: left });
        refusedUntil.delete(key);
      }
      return new Promise<Counted>((resolve, reject) => {
        const list = waiting.get(key) ?? [];
        list.push({ resolve, reject });
        waiting.set(key, list);
        if (!inFlight.has(key)) void flush(key);
      });
    },
  };
}

/** The store's count after adding `n`, whether or not that is over the quota. */
async function consume(store: RateLimiterPostgres, key: string, n: number): Promise<RateLimiterRes> {
  try {
    return await store.consume(key, n);
  } catch (err) {
    if (err instanceof RateLimiterRes) return err;
    throw err;
  }
}
