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

  it('a rate of 5 requests/s holds across two workers: 20 tasks take at least 3 s', async () => {
    const sites = await startSites();
    try {
      await runWithTwoWorkers(sites, { JOBS_PING_CONCURRENCY: '10', JOBS_PING_RATE: '5' }, 20);
      const times = sites.requests.map((r) => r.at).sort((a, b) => a - b);
      expect(times).toHaveLength(20);
      // Four windows of five requests: the last cannot start before three windows have passed. Two workers
      // each limited on their own would finish in about one.
      expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(2_900);
    } finally {
      await sites.close();
    }
  });
});
