// Tenants are served fairly: another tenant's one-domain job does not wait behind a 500-domain job.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningCli } from '../../helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { startSites, startWorker, type Sites } from '../../helpers/engine.ts';
import { client, startJobsApi, tokenFor, type JobsApi } from '../../helpers/jobs.ts';

const LATENCY_MS = 500;
const CONCURRENCY = 2;
let db: TestDatabase;
let api: JobsApi;
let sites: Sites;
let worker: RunningCli;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startJobsApi(db);
  sites = await startSites({ latencyMs: LATENCY_MS });
  const hosts: Record<string, string> = { 'b-site.example': '127.0.0.1' };
  for (let i = 0; i < 500; i++) hosts[`a${i}.example`] = '127.0.0.1';
  worker = await startWorker(db.url, sites, hosts, { JOBS_PING_CONCURRENCY: String(CONCURRENCY) });
});
afterAll(async () => {
  await worker?.stop();
  await Promise.all([api.close(), sites.close()]);
  await db.pool.end();
});

describe('fairness between tenants', () => {
  it("B's one-domain job finishes within 2 × one task's latency (+ slack) while A's 500 domains are running", async () => {
    const a = client(api.url, await tokenFor(db, 'tenant-a'));
    const b = client(api.url, await tokenFor(db, 'tenant-b'));
    const jobA = (
      (await (
        await a('/v1/jobs', { body: { domains: Array.from({ length: 500 }, (_, i) => `a${i}.example`), job_types: ['ping'] } })
      ).json()) as { job_id: string }
    ).job_id;
    // A holds every slot before B arrives.
    await expect.poll(() => sites.requests.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(CONCURRENCY);

    const created = (await (await b('/v1/jobs', { body: { domains: ['b-site.example'], job_types: ['ping'] } })).json()) as {
      job_id: string;
      created_at: string;
    };
    let finishedAt = '';
    await expect
      .poll(
        async () => {
          const job = (await (await b(`/v1/jobs/${created.job_id}`)).json()) as { status: string; finished_at: string };
          finishedAt = job.finished_at;
          return job.status;
        },
        { timeout: 15_000, interval: 50 },
      )
      .toBe('completed');
    const took = Date.parse(finishedAt) - Date.parse(created.created_at);
    const slack = 500;
    console.log(`fairness: B finished ${took} ms after creation (one task ${LATENCY_MS} ms; bound ${2 * LATENCY_MS + slack} ms)`);
    expect(took).toBeLessThanOrEqual(2 * LATENCY_MS + slack);

    const progressA = (await (await a(`/v1/jobs/${jobA}`)).json()) as { status: string; progress: { pending: number } };
    expect(progressA.status).toBe('running');
    // A alone needs 500 × 500 ms / 2 slots = 125 s; most of it is still ahead.
    expect(progressA.progress.pending).toBeGreaterThan(400);
    expect((await a(`/v1/jobs/${jobA}`, { method: 'DELETE' })).status).toBe(200);
  });
});
