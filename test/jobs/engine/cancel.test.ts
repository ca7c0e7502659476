// Soft-cancel during a run: the job is paused, no task starts afterwards, nothing is lost, no callback. The site
// holds its answers until the job is paused, so what had started by then is known by count, whatever the speed
// of the machine; the queue then shows when nothing of the job is left to start.
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueEntries } from '../../../src/jobs/queues.ts';
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
/** Answers the site keeps back while `holding`. */
const held: ServerResponse[] = [];
let holding = true;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startJobsApi(db, { env: { ALLOW_PRIVATE_NETWORK: 'true' } });
  sites = await startSites({
    handle: (_host, _req, res) => {
      if (!holding) return false;
      held.push(res);
      return true;
    },
  });
  receiver = await startReceiver(() => 200);
  const hosts = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`c${i}.example`, '127.0.0.1']));
  worker = await startWorker(db.url, sites, hosts, { JOBS_PING_CONCURRENCY: String(CONCURRENCY) });
});
afterAll(async () => {
  for (const answer of held.splice(0)) answer.end('ok');
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
    // Both lanes wait on the site: the job can go no further until the answers are let go.
    await expect.poll(() => sites.requests.length, { timeout: 10_000 }).toBe(CONCURRENCY);
    const res = await call(`/v1/jobs/${id}`, { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { status: string }).status).toBe('paused');
    // Whatever reaches the site from here on was sent after the pause was committed.
    const mark = sites.requests.length;
    holding = false;
    for (const answer of held.splice(0)) answer.end('ok');

    // The lanes settle what they had started; the job's other entries are taken off the queue without work.
    // Once none is waiting or running, nothing more can start for the job.
    const open = async () =>
      (await queueEntries(api.queue, 'ping', id)).filter((e) => e.state === 'created' || e.state === 'retry' || e.state === 'active');
    await expect.poll(async () => (await open()).length, { timeout: 20_000, interval: 100 }).toBe(0);
    // A lane checks the job before each upstream call, so only one that had passed its check could still call
    // (here none had: both were waiting on the site).
    expect(sites.requests.slice(mark).map((r) => r.host)).toEqual([]);
    const requested = new Set(sites.requests.map((r) => r.host));
    expect(requested.size).toBe(CONCURRENCY);

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
    // A paused job does not end, so no callback was ever enqueued for it.
    const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM deliveries WHERE subject = $1', [id]);
    expect(rows[0].n).toBe(0);
    expect(receiver.received).toHaveLength(0);
  });
});
