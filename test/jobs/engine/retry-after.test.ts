// An upstream's 429 with Retry-After holds every worker's requests to that provider, not only the entry that
// got it: the hold lives in PostgreSQL (the source's rate window), and seokicks has no rate of its own. Checked
// against the hold as PostgreSQL records it and the order in which the fake provider received requests, so a slow
// machine cannot make it fail.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Fake } from '../../../src/dev/fakes/server.ts';
import { startSeokicksFake } from '../../../src/dev/fakes/seokicks.ts';
import type { RunningCli } from '../../helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { startSites, startWorker, type Sites } from '../../helpers/engine.ts';
import { client, startJobsApi, tokenFor, type JobsApi } from '../../helpers/jobs.ts';

const LATENCY_MS = 100;
const RETRY_AFTER_S = 3;
/** Seokicks entries in flight at once, across both workers (the slots live in PostgreSQL). */
const CONCURRENCY = 4;

let db: TestDatabase;
let api: JobsApi;
let sites: Sites;
let seokicks: Fake;
let workers: RunningCli[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startJobsApi(db);
  sites = await startSites();
  seokicks = await startSeokicksFake({ apiKey: 'sk', latencyMs: LATENCY_MS, retryAfterSeconds: RETRY_AFTER_S });
  const env = {
    SEOKICKS_API_KEY: 'sk',
    SEOKICKS_BASE_URL: seokicks.url,
    JOBS_SEOKICKS_CONCURRENCY: String(CONCURRENCY),
    TEST_RETRY_DELAYS_MS: '100,100,100',
  };
  workers = await Promise.all([startWorker(db.url, sites, {}, env), startWorker(db.url, sites, {}, env)]);
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await Promise.all([api.close(), sites.close(), seokicks.close()]);
  await db.pool.end();
});

describe('429 with Retry-After', () => {
  it('holds every worker for the time the provider asked, then the task is retried and succeeds', { timeout: 60_000 }, async () => {
    const call = client(api.url, await tokenFor(db, 'held'));
    // Enough work that the lanes of both workers would keep calling through the hold if it were not shared, and
    // that plenty is left after it.
    const domains = Array.from({ length: 240 }, (_, i) => (i === 6 ? 'ratelimit-once.example' : `r${i}.example`));
    const { job_id: id } = (await (await call('/v1/jobs', { body: { domains, job_types: ['seokicks'] } })).json()) as { job_id: string };
    // The hold is the source's rate window blocked until `expire` (ms since the epoch); only a hold writes that row
    // for a source without a rate. Once it is committed, every permit waits for it: from the moment it is seen
    // here, a lane can still deliver only the one request it had been permitted before.
    const holdEnd = await vi.waitFor(
      async () => {
        const { rows } = await db.pool.query<{ expire: string }>(
          `SELECT expire FROM source_rates WHERE key = 'rate:seokicks' AND points > 1`,
        );
        if (rows.length === 0) throw new Error('no hold recorded for seokicks');
        return Number(rows[0]!.expire);
      },
      { timeout: 30_000, interval: 10 },
    );
    const mark = seokicks.requests.length;
    await expect
      .poll(async () => ((await (await call(`/v1/jobs/${id}`)).json()) as { status: string }).status, { timeout: 50_000, interval: 200 })
      .toBe('completed');

    const { rows } = await db.pool.query(
      `SELECT state, attempts, count(*)::int AS n FROM tasks WHERE job_id = $1 GROUP BY 1, 2 ORDER BY 2`,
      [id],
    );
    expect(rows).toEqual([
      { state: 'ok', attempts: 1, n: 239 },
      { state: 'ok', attempts: 2, n: 1 },
    ]);

    const limited = seokicks.requests.filter((r) => r.query.get('query') === 'ratelimit-once.example');
    expect(limited).toHaveLength(2);
    // The hold runs for Retry-After from when the worker wrote it, after the limited request reached the fake.
    expect(holdEnd - limited[0]!.at).toBeGreaterThanOrEqual(RETRY_AFTER_S * 1_000);
    // Between the hold being seen and its end, at most one request per lane arrives (permitted before the hold):
    // a hold each worker kept to itself, or one that a permit ignored, lets the lanes go on calling.
    const during = seokicks.requests.slice(mark).filter((r) => r.at < holdEnd);
    expect(during.length, `arrived during the hold: ${during.map((r) => r.query.get('query')).join(' ')}`).toBeLessThanOrEqual(CONCURRENCY);
    // The task was tried again once the hold was over, and the work went on after it.
    expect(limited[1]!.at).toBeGreaterThanOrEqual(holdEnd);
    expect(seokicks.requests.filter((r) => r.at >= holdEnd).length).toBeGreaterThan(10);
  });
});
