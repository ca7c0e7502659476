// A source's concurrency and request rate hold across worker processes (they live in PostgreSQL).
import { describe, expect, it } from 'vitest';
import type { RunningCli } from '../../helpers/cli.ts';
import { startSites, startWorker, type Sites } from '../../helpers/engine.ts';
import { client, tokenFor, useJobsApi } from '../../helpers/jobs.ts';

const t = useJobsApi();

async function runWithTwoWorkers(sites: Sites, env: Record<string, string>, count: number): Promise<void> {
  const hosts = { '*.example': '127.0.0.1' };
  const workers: RunningCli[] = await Promise.all([startWorker(t.db.url, sites, hosts, env), startWorker(t.db.url, sites, hosts, env)]);
  try {
    const call = client(t.api.url, await tokenFor(t.db, 'limits'));
    const domains = Array.from({ length: count }, (_, i) => `l${i}-${Date.now()}.example`);
    const { job_id: id } = (await (await call('/v1/jobs', { body: { domains, job_types: ['ping'] } })).json()) as { job_id: string };
    await expect
      .poll(async () => ((await (await call(`/v1/jobs/${id}`)).json()) as { status: string }).status, { timeout: 60_000, interval: 100 })
      .toBe('completed');
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
  }
}

describe('limits shared by all workers', () => {
  it('concurrency 2 means at most 2 requests in flight, with two workers of 2 lanes each', async () => {
    const sites = await startSites({ latencyMs: 200 });
    try {
      await runWithTwoWorkers(sites, { JOBS_PING_CONCURRENCY: '2' }, 16);
      expect(sites.requests).toHaveLength(16);
      expect(sites.maxInFlight()).toBe(2);
    } finally {
      await sites.close();
    }
  });

  it('a rate of 5 requests/s holds across two workers calling at once', { timeout: 120_000 }, async () => {
    const sites = await startSites();
    const workers: RunningCli[] = [];
    try {
      const hosts = { '*.example': '127.0.0.1' };
      const pidsHolding = async () =>
        (
          await t.db.pool.query<{ pid: number; slots: number }>(
            `SELECT split_part(holder, ':', 2)::int AS pid, count(*)::int AS slots FROM source_slots
             WHERE source = 'ping' AND holder IS NOT NULL GROUP BY 1`,
          )
        ).rows;
      // Both workers must be calling at the same time, or a rate each process kept to itself would look shared:
      // worker A may use ping slots 0-3 only; B (slots 0-7) starts once A is calling, and both must then hold
      // slots at once. (Waiting for A to hold all four at one poll was timing-sensitive on a loaded machine.)
      workers.push(await startWorker(t.db.url, sites, hosts, { JOBS_PING_CONCURRENCY: '4', JOBS_PING_RATE: '5' }));
      const call = client(t.api.url, await tokenFor(t.db, 'rates'));
      const domains = Array.from({ length: 30 }, (_, i) => `r${i}.example`);
      const job = (await (await call('/v1/jobs', { body: { domains, job_types: ['ping'] } })).json()) as {
        job_id: string;
        created_at: string;
      };
      // A bound, not a measure: a worker starved of CPU (a loaded CI machine) takes its four slots late.
      await expect.poll(async () => (await pidsHolding()).length, { timeout: 40_000, interval: 20 }).toBe(1);
      workers.push(await startWorker(t.db.url, sites, hosts, { JOBS_PING_CONCURRENCY: '8', JOBS_PING_RATE: '5' }));
      await expect.poll(async () => (await pidsHolding()).length, { timeout: 40_000, interval: 20 }).toBe(2);
      await expect
        .poll(async () => ((await (await call(`/v1/jobs/${job.job_id}`)).json()) as { status: string }).status, {
          timeout: 50_000,
          interval: 100,
        })
        .toBe('completed');
      expect(sites.requests).toHaveLength(30);
      // 30 tasks take 60 permits (https, refused, then http), five per one-second window shared by both workers:
      // the last is in the twelfth window, which opens 11 s after the first at the earliest, and the first comes
      // after the job was created. So however slow the machine, the last request comes 11 s after the creation;
      // with a window of five per worker, ten a second went through while both were calling.
      const last = Math.max(...sites.requests.map((r) => r.at));
      expect(last - Date.parse(job.created_at)).toBeGreaterThanOrEqual(11_000);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      await sites.close();
    }
  });
});
