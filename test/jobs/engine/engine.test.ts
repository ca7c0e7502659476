// The engine end to end: the jobs API (in this process), a worker process running the real engine, ping
// against local sites, and a real webhook receiver for the callback.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import type { RunningCli } from '../../helpers/cli.ts';
import { startSites, startWorker, type Sites } from '../../helpers/engine.ts';
import { client, startJobsApi, tokenFor, type JobsApi } from '../../helpers/jobs.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';

let db: TestDatabase;
let api: JobsApi;
let sites: Sites;
let receiver: Receiver;
let worker: RunningCli;
let call: ReturnType<typeof client>;

const names = Array.from({ length: 18 }, (_, i) => `site${i}.example`);
const hosts = Object.fromEntries(names.map((n) => [n, '127.0.0.1']));

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startJobsApi(db, { env: { ALLOW_PRIVATE_NETWORK: 'true' } });
  call = client(api.url, await tokenFor(db, 'acme'));
  receiver = await startReceiver(() => 200);
  sites = await startSites({
    handle: (host, req, res) => {
      if (host === 'site3.example' && req.url === '/') res.writeHead(301, { location: '/final' }).end();
      else if (host === 'site5.example') res.writeHead(503).end('busy');
      else if (host === 'site7.example') res.writeHead(404).end('nope');
      else return false;
      return true;
    },
  });
  worker = await startWorker(db.url, sites, hosts, { JOBS_PUBLIC_URL: 'https://jobs.example.test' });
});
afterAll(async () => {
  await worker?.stop();
  await Promise.all([api.close(), sites.close(), receiver.close()]);
  await db.pool.end();
});

interface Job {
  job_id: string;
  status: string;
  started_at: string | null;
  finished_at: string | null;
  progress: { total: number; succeeded: number; failed: number; pending: number };
  webhook_secret?: string;
}

/** A row of /results, with the fields these tests read. */
interface ResultRow {
  domain: string;
  status: string;
  error: { code: string } | null;
  response_ms: number | null;
  linkpop?: number | null;
  raw: { addresses: string[]; error?: string; attempts: { error?: string; chain?: { url: string; status: number }[] }[] };
}

async function waitForStatus(id: string, wanted: string[], timeoutMs = 20_000): Promise<Job> {
  let job: Job | undefined;
  await expect
    .poll(
      async () => {
        job = (await (await call(`/v1/jobs/${id}`)).json()) as Job;
        return job.status;
      },
      { timeout: timeoutMs, interval: 100 },
    )
    .toSatisfy((s: string) => wanted.includes(s));
  return job!;
}

describe('a job over 20 domains × ping', () => {
  it('completes with one correct row per domain and one signed callback', async () => {
    const domains = [...names, 'gone1.example', 'gone2.example'];
    const created = (await (
      await call('/v1/jobs', { body: { domains, job_types: ['ping'], webhook_url: `${receiver.url}/done` } })
    ).json()) as Job;
    const job = await waitForStatus(created.job_id, ['completed', 'failed']);
    expect(job.status).toBe('completed');
    expect(job.progress).toEqual({ total: 20, succeeded: 20, failed: 0, pending: 0 });
    expect(Date.parse(job.finished_at!)).toBeGreaterThanOrEqual(Date.parse(job.started_at!));

    const { results } = (await (await call(`/v1/jobs/${created.job_id}/results`)).json()) as { results: ResultRow[] };
    expect(results.map((r) => r.domain)).toEqual(domains);
    const row = (d: string) => results.find((r) => r.domain === d)!;
    expect(row('site0.example')).toMatchObject({ source: 'ping', status: 'ok', error: null, reachable: true, status_code: 200 });
    expect(row('site0.example').response_ms).toBeGreaterThanOrEqual(0);
    // https:// failed to connect first, then http:// answered.
    expect(row('site0.example').raw.attempts.map((a) => a.error ?? 'ok')).toEqual(['connect', 'ok']);
    expect(row('site0.example').raw.addresses).toEqual(['127.0.0.1']);
    expect(row('site3.example')).toMatchObject({ reachable: true, status_code: 200 });
    expect(row('site3.example').raw.attempts[1]!.chain).toEqual([{ url: `http://site3.example:${sites.port}/`, status: 301 }]);
    expect(row('site5.example')).toMatchObject({ reachable: true, status_code: 503 });
    expect(row('site7.example')).toMatchObject({ reachable: true, status_code: 404 });
    for (const gone of ['gone1.example', 'gone2.example']) {
      expect(row(gone)).toMatchObject({ status: 'ok', reachable: false, status_code: null, response_ms: null });
      expect(row(gone).raw).toMatchObject({ error: 'dns', addresses: [] });
    }

    const [callback] = await receiver.waitFor('/done', 1);
    const body = JSON.parse(callback!.body.toString()) as Record<string, unknown>;
    expect(body).toEqual({
      job_id: created.job_id,
      status: 'completed',
      completed_at: job.finished_at,
      results_url: `https://jobs.example.test/v1/jobs/${created.job_id}/results`,
    });
    const expected = `sha256=${createHmac('sha256', created.webhook_secret!).update(callback!.body).digest('hex')}`;
    expect(callback!.headers['x-metrics-signature']).toBe(expected);
    expect(callback!.headers['x-metrics-attempt']).toBe('1');
    // One callback: the job ended once and enqueued one delivery, delivered at its first attempt.
    const delivery = async () =>
      (await db.pool.query('SELECT state, attempts FROM deliveries WHERE subject = $1', [created.job_id])).rows as {
        state: string;
        attempts: number;
      }[];
    await expect.poll(async () => (await delivery())[0]?.state).toBe('delivered');
    expect(await delivery()).toEqual([{ state: 'delivered', attempts: 1 }]);
    expect(receiver.forPath('/done')).toHaveLength(1);
  });

  it('a job whose every task fails ends failed, with its callback', async () => {
    const created = (await (
      await call('/v1/jobs', {
        body: { domains: ['a.example', 'b.example'], job_types: ['seokicks'], webhook_url: `${receiver.url}/failed` },
      })
    ).json()) as Job;
    const job = await waitForStatus(created.job_id, ['completed', 'failed']);
    expect(job.status).toBe('failed');
    expect(job.progress).toEqual({ total: 2, succeeded: 0, failed: 2, pending: 0 });
    const { results } = (await (await call(`/v1/jobs/${created.job_id}/results`)).json()) as { results: ResultRow[] };
    expect(results.every((r) => r.status === 'error' && r.error?.code === 'source_not_configured' && r.linkpop === null)).toBe(true);
    const [callback] = await receiver.waitFor('/failed', 1);
    expect(JSON.parse(callback!.body.toString()).status).toBe('failed');
  });
});
