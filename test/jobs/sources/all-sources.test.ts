// A job over 25 domains × all six sources, run by a worker process against the fake providers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAhrefsFake } from '../../../src/dev/fakes/ahrefs.ts';
import { startMozFake } from '../../../src/dev/fakes/moz.ts';
import { startSeokicksFake } from '../../../src/dev/fakes/seokicks.ts';
import type { Fake } from '../../../src/dev/fakes/server.ts';
import { startWaybackFake } from '../../../src/dev/fakes/wayback.ts';
import type { RunningCli } from '../../helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { startSites, startWorker, type Sites } from '../../helpers/engine.ts';
import { client, startJobsApi, tokenFor, type JobsApi } from '../../helpers/jobs.ts';

let db: TestDatabase;
let api: JobsApi;
let sites: Sites;
let fakes: { seokicks: Fake; moz: Fake; ahrefs: Fake; wayback: Fake };
let worker: RunningCli;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startJobsApi(db);
  sites = await startSites();
  fakes = {
    seokicks: await startSeokicksFake({ apiKey: 'sk' }),
    moz: await startMozFake({ token: 'mz' }),
    ahrefs: await startAhrefsFake({ apiKey: 'ah' }),
    wayback: await startWaybackFake({ latencyMs: 20 }),
  };
  worker = await startWorker(
    db.url,
    sites,
    { '*.example': '127.0.0.1' },
    {
      SEOKICKS_API_KEY: 'sk',
      SEOKICKS_BASE_URL: fakes.seokicks.url,
      MOZ_TOKEN: 'mz',
      MOZ_BASE_URL: fakes.moz.url,
      AHREFS_API_KEY: 'ah',
      AHREFS_BASE_URL: `${fakes.ahrefs.url}/v3`,
      WAYBACK_BASE_URL: fakes.wayback.url,
      // The real limits (Moz one call per 10 s, Wayback 0.4/s) would make this test minutes long.
      JOBS_MOZ_RATE: '20',
      JOBS_WAYBACK_RATE: '50',
      TEST_RETRY_DELAYS_MS: '200,200,200',
    },
  );
});
afterAll(async () => {
  await worker?.stop();
  await Promise.all([api.close(), sites.close(), ...Object.values(fakes ?? {}).map((f) => f.close())]);
  await db.pool.end();
});

describe('25 domains × all six sources', () => {
  it('completes with 150 rows; Moz was called in batches of at most 10; a 500 was retried', { timeout: 60_000 }, async () => {
    const call = client(api.url, await tokenFor(db, 'acme'));
    const domains = [...Array.from({ length: 24 }, (_, i) => `s${i}.example`), 'flaky.example'];
    const sources = ['seokicks', 'moz', 'ahrefs_backlinks', 'ahrefs_traffic', 'wayback', 'ping'];
    const { job_id: id } = (await (await call('/v1/jobs', { body: { domains, job_types: sources } })).json()) as { job_id: string };
    await expect
      .poll(async () => ((await (await call(`/v1/jobs/${id}`)).json()) as { status: string }).status, { timeout: 50_000, interval: 200 })
      .toBe('completed');
    const { results } = (await (await call(`/v1/jobs/${id}/results`)).json()) as { results: Record<string, any>[] };
    expect(results).toHaveLength(150);
    const errors = results.filter((r) => r.status !== 'ok');
    expect(errors, JSON.stringify(errors.slice(0, 3))).toHaveLength(0);

    const mozCalls = fakes.moz.requests.map((r) => (JSON.parse(r.body) as { targets: string[] }).targets.length);
    expect(Math.max(...mozCalls)).toBeLessThanOrEqual(10);
    expect(mozCalls.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(25);
    expect(Math.max(...fakes.wayback.requests.map((r) => r.concurrent))).toBe(1);

    // flaky.example failed once at every provider and was retried: its rows say attempt 2.
    const { rows } = await db.pool.query(
      `SELECT source, attempts FROM tasks WHERE job_id = $1 AND domain = 'flaky.example' ORDER BY source`,
      [id],
    );
    const attempts = Object.fromEntries(rows.map((r) => [r.source, r.attempts]));
    expect(attempts).toMatchObject({ seokicks: 2, moz: 2, ahrefs_backlinks: 2, ahrefs_traffic: 2, wayback: 2, ping: 1 });
    const row = (d: string, s: string) => results.find((r) => r.domain === d && r.source === s)!;
    expect(typeof row('s0.example', 'seokicks').linkpop).toBe('number');
    expect(typeof row('s0.example', 'moz').domain_authority).toBe('number');
    expect(typeof row('s0.example', 'ahrefs_traffic').traffic_value).toBe('number');
    expect(typeof row('s0.example', 'wayback').snapshot_count).toBe('number');
  });
});
