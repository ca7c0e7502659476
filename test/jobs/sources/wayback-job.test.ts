// Wayback through the whole engine, at the archive's real limits (one request in flight, 0.4 requests/s), with
// two workers competing for it: the limits are shared, and paging is counted into one row.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fake } from '../../../src/dev/fakes/server.ts';
import { captureTimestamp, startWaybackFake } from '../../../src/dev/fakes/wayback.ts';
import type { RunningCli } from '../../helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { startSites, startWorker, type Sites } from '../../helpers/engine.ts';
import { client, startJobsApi, tokenFor, type JobsApi } from '../../helpers/jobs.ts';

let db: TestDatabase;
let api: JobsApi;
let sites: Sites;
let wayback: Fake;
let workers: RunningCli[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startJobsApi(db);
  sites = await startSites();
  wayback = await startWaybackFake({ pageSize: 1000, latencyMs: 50 });
  const env = { WAYBACK_BASE_URL: wayback.url };
  workers = await Promise.all([startWorker(db.url, sites, {}, env), startWorker(db.url, sites, {}, env)]);
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await Promise.all([api.close(), sites.close(), wayback.close()]);
  await db.pool.end();
});

const iso = (stamp: string) =>
  `${stamp.slice(0, 4)}-${stamp.slice(4, 6)}-${stamp.slice(6, 8)}T${stamp.slice(8, 10)}:${stamp.slice(10, 12)}:${stamp.slice(12, 14)}.000Z`;

describe('a wayback job', () => {
  it('counts 2,345 captures over resume-key pages into one row; one request at a time, at most 0.4/s', { timeout: 60_000 }, async () => {
    const call = client(api.url, await tokenFor(db, 'archive'));
    const domains = ['captures-2345.example', 'captures-3.example'];
    const { job_id: id, created_at: createdAt } = (await (
      await call('/v1/jobs', { body: { domains, job_types: ['wayback'] } })
    ).json()) as {
      job_id: string;
      created_at: string;
    };
    await expect
      .poll(async () => ((await (await call(`/v1/jobs/${id}`)).json()) as { status: string }).status, { timeout: 50_000, interval: 250 })
      .toBe('completed');

    const { results } = (await (await call(`/v1/jobs/${id}/results`)).json()) as { results: Record<string, unknown>[] };
    expect(results).toMatchObject([
      {
        domain: 'captures-2345.example',
        status: 'ok',
        snapshot_count: 2345,
        first_snapshot_at: iso(captureTimestamp(0)),
        last_snapshot_at: iso(captureTimestamp(2344)),
      },
      { domain: 'captures-3.example', status: 'ok', snapshot_count: 3 },
    ]);

    const requests = wayback.requests;
    expect(requests.map((r) => r.query.get('resumeKey') ?? 'first').sort()).toEqual(['1000', '2000', 'first', 'first']);
    expect(Math.max(...requests.map((r) => r.concurrent))).toBe(1);
    // 0.4 requests/s is one request per 2.5 s window, shared by both workers: the k-th request's permit falls in
    // the k-th window at the earliest, which opens (k - 1) × 2.5 s after the first, itself after the job was
    // created. A slow machine only makes requests later, so each bound holds however busy it is.
    const times = requests.map((r) => r.at - Date.parse(createdAt)).sort((a, b) => a - b);
    for (const [k, t] of times.entries())
      expect(t, `request ${k + 1}, ${t} ms after the job was created`).toBeGreaterThanOrEqual(k * 2_500);
  });
});
