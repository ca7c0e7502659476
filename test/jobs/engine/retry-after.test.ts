// An upstream's 429 with Retry-After holds every worker's requests to that provider, not only the entry that
// got it: the hold lives in PostgreSQL (the source's rate window), and seokicks has no rate of its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fake } from '../../../src/dev/fakes/server.ts';
import { startSeokicksFake } from '../../../src/dev/fakes/seokicks.ts';
import type { RunningCli } from '../../helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { startSites, startWorker, type Sites } from '../../helpers/engine.ts';
import { client, startJobsApi, tokenFor, type JobsApi } from '../../helpers/jobs.ts';

const LATENCY_MS = 100;
const RETRY_AFTER_S = 3;

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
    JOBS_SEOKICKS_CONCURRENCY: '4',
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
    // Enough work that both workers' four lanes would keep calling through the hold if it were not shared, and
    // that plenty is left after it even when the hold takes its full second to reach every lane (8 lanes at
    // 100 ms get through ~80 domains in that second on a busy machine).
    const domains = Array.from({ length: 240 }, (_, i) => (i === 6 ? 'ratelimit-once.example' : `r${i}.example`));
    const { job_id: id } = (await (await call('/v1/jobs', { body: { domains, job_types: ['seokicks'] } })).json()) as { job_id: string };
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
    // The 429 left the fake at `answered`; a lane that had passed the gate before the worker wrote the hold may
    // still arrive just after. From one second on, until the hold ends, nothing may arrive.
    const answered = limited[0]!.at + LATENCY_MS;
    const during = seokicks.requests.filter((r) => r.at > answered + 1_000 && r.at < answered + RETRY_AFTER_S * 1_000 - 100);
    expect(during.map((r) => `${r.query.get('query')} at +${r.at - answered} ms`)).toEqual([]);
    // And the work went on after it: the hold was not the end of the job.
    expect(seokicks.requests.filter((r) => r.at >= answered + RETRY_AFTER_S * 1_000 - 100).length).toBeGreaterThan(10);
    expect(limited[1]!.at - answered).toBeGreaterThanOrEqual(RETRY_AFTER_S * 1_000 - 100);
  });
});
