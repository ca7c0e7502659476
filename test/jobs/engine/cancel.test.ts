// Soft-cancel during a run: the job is paused, no task starts afterwards, nothing is lost, no callback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningCli } from '../../helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { startSites, startWorker, type Sites } from '../../helpers/engine.ts';
import { client, startJobsApi, tokenFor, type JobsApi } from '../../helpers/jobs.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';

const CONCURRENCY = 2;
let db: TestDatabase;
let api: JobsApi;
let sites: Sites;
let receiver: Receiver;
let worker: RunningCli;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startJobsApi(db, { allowPrivateNetwork: true });
  sites = await startSites({ latencyMs: 300 });
  receiver = await startReceiver(() => 200);
  const hosts = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`c${i}.example`, '127.0.0.1']));
  worker = await startWorker(db.url, sites, hosts, { JOBS_PING_CONCURRENCY: String(CONCURRENCY) });
});
afterAll(async () => {
  await worker?.stop();
  await Promise.all([api.close(), sites.close(), receiver.close()]);
  await db.pool.end();
});

describe('DELETE /v1/jobs/{id} during a run', () => {
  it('pauses the job: no upstream request starts after it, finished rows stay, no callback', async () => {
    const call = client(api.url, await tokenFor(db, 'acme'));
    const domains = Array.from({ length: 20 }, (_, i) => `c${i}.example`);
    const { job_id: id } = (await (
      await call('/v1/jobs', { body: { domains, job_types: ['ping'], webhook_url: `${receiver.url}/cb` } })
    ).json()) as {
      job_id: string;
    };
    await expect.poll(() => sites.requests.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(4);
    const res = await call(`/v1/jobs/${id}`, { method: 'DELETE' });
    const pausedAt = Date.now();
    expect(res.status).toBe(200);
    expect(((await res.json()) as { status: string }).status).toBe('paused');

    // Lanes finish what they had started (and the job stays paused), then nothing more arrives.
    await new Promise((r) => setTimeout(r, 2_000));
    const late = sites.requests.filter((r) => r.at > pausedAt);
    // At most one request per lane can be on its way at the moment of the pause (checked before sending).
    expect(late.length).toBeLessThanOrEqual(CONCURRENCY);
    expect(late.every((r) => r.at < pausedAt + 1_000)).toBe(true);
    const requested = new Set(sites.requests.map((r) => r.host));
    expect(requested.size).toBeLessThan(20);

    const job = (await (await call(`/v1/jobs/${id}`)).json()) as {
      status: string;
      finished_at: string | null;
      progress: Record<string, number>;
    };
    expect(job.status).toBe('paused');
    expect(job.finished_at).toBeNull();
    // Every task that reached its site has its row; the rest are pending, never started.
    const { results } = (await (await call(`/v1/jobs/${id}/results`)).json()) as { results: { domain: string }[] };
    expect(new Set(results.map((r) => r.domain))).toEqual(requested);
    expect(job.progress).toEqual({ total: 20, succeeded: requested.size, failed: 0, pending: 20 - requested.size });
    // The queue holds nothing more for it.
    const { rows } = await db.pool.query(
      `SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'task.ping' AND data->>'jobId' = $1 AND state < 'active'`,
      [id],
    );
    expect(rows[0].n).toBe(0);
    expect(receiver.received).toHaveLength(0);
  });
});
