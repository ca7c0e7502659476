// Tenants are served fairly: another tenant's one-domain job does not wait behind a 500-domain job. Checked by
// order, not by time: the site records requests as they come, and once B's job exists only a task of A per lane
// (and one more) may reach it before B's (docs/decisions.md, "Fairness": B waits at most one task for a slot).
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
  it("B's one-domain job goes ahead of A's queued work, and finishes while A's 500 domains are running", async () => {
    const a = client(api.url, await tokenFor(db, 'tenant-a'));
    const b = client(api.url, await tokenFor(db, 'tenant-b'));
    const jobA = (
      (await (
        await a('/v1/jobs', { body: { domains: Array.from({ length: 500 }, (_, i) => `a${i}.example`), job_types: ['ping'] } })
      ).json()) as { job_id: string }
    ).job_id;
    // A holds every slot before B arrives.
    await expect.poll(() => sites.requests.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(CONCURRENCY);

    // What reaches the site from here on was on its way already, or was started after this point.
    const mark = sites.requests.length;
    const created = (await (await b('/v1/jobs', { body: { domains: ['b-site.example'], job_types: ['ping'] } })).json()) as {
      job_id: string;
    };
    await expect
      .poll(async () => ((await (await b(`/v1/jobs/${created.job_id}`)).json()) as { status: string }).status, { timeout: 15_000 })
      .toBe('completed');

    // Each lane may still deliver the task of A it had started (or started while B's job was being created),
    // and the lane B does not take may start one more while B's task makes its first (https) attempt: three at
    // most. Without the first pass for tenants with nothing running, B's entry waits behind A's six queued ones.
    const after = sites.requests.slice(mark).map((r) => r.host);
    const aheadOfB = after.indexOf('b-site.example');
    expect(aheadOfB, `requests from the mark on: ${after.join(' ')}`).toBeGreaterThanOrEqual(0);
    expect(aheadOfB, `requests from the mark on: ${after.join(' ')}`).toBeLessThanOrEqual(CONCURRENCY + 1);

    // B is done while A (500 tasks of one site latency each, on two lanes) is not.
    const progressA = (await (await a(`/v1/jobs/${jobA}`)).json()) as { status: string };
    expect(progressA.status).toBe('running');
    expect((await a(`/v1/jobs/${jobA}`, { method: 'DELETE' })).status).toBe(200);
  });
});
