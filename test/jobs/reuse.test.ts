// Fresh results reused (max_age) and dry runs, on a real database with a worker running the jobs against the fake
// providers, which count every request: a reused row makes no call, says where it came from and costs 0; an
// error row, a stale row and another tenant's row are fetched again (unless results are shared); a dry run
// stores nothing and its estimate is what the real run then costs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startFakes, type Fakes } from '../helpers/fakes.ts';
import { client, startJobsApi, tokenFor, type JobsApi } from '../helpers/jobs.ts';
import { callbacksOf, jobOf, statusOf } from '../helpers/transitions.ts';

type Call = ReturnType<typeof client>;
type Row = {
  domain: string;
  source: string;
  status: 'ok' | 'error';
  fetched_at: string;
  cached_from: string | null;
  cost: { amount: number; basis: string; calls: number };
  [column: string]: unknown;
};
type Created = { job_id: string; status: string; progress: { succeeded: number; pending: number } };

const SOURCES = ['seokicks', 'ahrefs_backlinks'];
let db: TestDatabase;
let api: JobsApi;
let providers: Fakes<'seokicks' | 'ahrefs'>;
let acme: Call;
let other: Call;

beforeAll(async () => {
  db = await createTestDatabase();
  providers = await startFakes({ seokicks: {}, ahrefs: {} });
  api = await startJobsApi(db, { worker: true, env: fakeEnv() });
  acme = client(api.url, await tokenFor(db, 'acme'));
  other = client(api.url, await tokenFor(db, 'other'));
});
afterAll(async () => {
  await api?.close();
  await providers?.close();
  await db?.pool.end();
});

const fakeEnv = (extra: Record<string, string> = {}) => ({ ...providers.env, ...extra });
const calls = () => providers.fakes.seokicks.requests.length + providers.fakes.ahrefs.requests.length;

async function createJob(call: Call, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Created> {
  const res = await call('/v1/jobs', { body: { job_types: SOURCES, ...body }, headers });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as Created;
}

async function finished(call: Call, id: string): Promise<Row[]> {
  await expect.poll(() => statusOf(call, id), { timeout: 30_000 }).toMatch(/^(completed|failed)$/);
  return ((await (await call(`/v1/jobs/${id}/results`)).json()) as { results: Row[] }).results;
}

const byKey = (rows: Row[]) => new Map(rows.map((r) => [`${r.domain}/${r.source}`, r]));

describe('fresh results reused', () => {
  let first: string;
  let firstRows: Map<string, Row>;

  // The tests below build on each other, in order: this job's results are the ones reused.
  it('fills rows from a fresh earlier result with no upstream call, saying where it came from; error rows are fetched again', async () => {
    first = (await createJob(acme, { domains: ['a.example', 'b.example', 'quota.c.example'] })).job_id;
    firstRows = byKey(await finished(acme, first));
    expect(firstRows.get('quota.c.example/seokicks')?.status).toBe('error');
    const before = calls();
    const second = await createJob(acme, { domains: ['a.example', 'b.example', 'quota.c.example'], max_age: '1h' });
    expect(second.progress.succeeded).toBe(4);
    expect(second.progress.pending).toBe(2);
    const rows = await finished(acme, second.job_id);
    for (const domain of ['a.example', 'b.example']) {
      for (const source of SOURCES) {
        const row = rows.find((r) => r.domain === domain && r.source === source)!;
        const original = firstRows.get(`${domain}/${source}`)!;
        expect(row).toMatchObject({ status: 'ok', cached_from: first, fetched_at: original.fetched_at });
        expect(row.cost).toMatchObject({ amount: 0, basis: 'cached', calls: 0 });
        expect(row.raw).toEqual(original.raw);
      }
    }
    const again = rows.filter((r) => r.domain === 'quota.c.example');
    expect(again.map((r) => r.cached_from)).toEqual([null, null]);
    expect(again.every((r) => r.cost.calls >= 1)).toBe(true);
    // Only the error rows called the providers: one request each.
    expect(calls() - before).toBe(2);
  });

  it('ends a job whose every row is fresh at creation, with its callback and no call; a replay answers the same', async () => {
    const before = calls();
    const body = { domains: ['a.example', 'b.example'], max_age: 3600, webhook_url: 'https://hooks.example/done' };
    const res = await acme('/v1/jobs', { body: { job_types: SOURCES, ...body }, headers: { 'idempotency-key': 'all-cached' } });
    expect(res.status).toBe(201);
    const made = (await res.json()) as Created & { finished_at: string | null };
    expect(made).toMatchObject({ status: 'completed', progress: { succeeded: 4, pending: 0 } });
    expect(made.finished_at).not.toBeNull();
    expect(await callbacksOf(db, made.job_id)).toEqual(['job.completed']);
    const replay = await acme('/v1/jobs', { body: { job_types: SOURCES, ...body }, headers: { 'idempotency-key': 'all-cached' } });
    expect(await replay.json()).toEqual(made);
    expect((await jobOf(acme, made.job_id)).status).toBe('completed');
    expect(calls()).toBe(before);
  });

  it('copies the fetched original, never a copy: cached_from names the job that called', async () => {
    const copy = await createJob(acme, { domains: ['a.example'], max_age: '7d' });
    const rows = await finished(acme, copy.job_id);
    expect(rows.map((r) => r.cached_from)).toEqual([first, first]);
  });

  it('fetches again with max_age 0, without max_age (the default setting is 0) and when the result is older', async () => {
    for (const body of [{ max_age: 0 }, {}, { max_age: '0d' }]) {
      const before = calls();
      const job = await createJob(acme, { domains: ['a.example'], ...body });
      const rows = await finished(acme, job.job_id);
      expect(rows.map((r) => r.cached_from)).toEqual([null, null]);
      expect(calls() - before).toBe(2);
    }
    // Every result of a.example made so far is two hours old now: an hour is not fresh enough, three are.
    await db.pool.query(`UPDATE tasks SET fetched_at = fetched_at - interval '2 hours' WHERE domain = 'a.example'`);
    const stale = await createJob(acme, { domains: ['a.example'], max_age: '1h' });
    expect(stale.progress.succeeded).toBe(0);
    await finished(acme, stale.job_id);
    const fresh = await createJob(acme, { domains: ['a.example'], max_age: '1h' });
    expect(fresh.progress.succeeded).toBe(2);
    expect((await finished(acme, fresh.job_id)).map((r) => r.cached_from)).toEqual([stale.job_id, stale.job_id]);
  });

  it("does not reuse another tenant's results unless the deployment shares them", async () => {
    const before = calls();
    const own = await createJob(other, { domains: ['b.example'], max_age: '1h' });
    expect(own.progress.succeeded).toBe(0);
    expect((await finished(other, own.job_id)).map((r) => r.cached_from)).toEqual([null, null]);
    expect(calls() - before).toBe(2);

    const sharing = await startJobsApi(db, { env: fakeEnv({ JOBS_CACHE_SHARED: 'true', JOBS_CACHE_MAX_AGE: '1h' }) });
    try {
      const otherShared = client(sharing.url, await tokenFor(db, 'third'));
      const shared = await createJob(otherShared, { domains: ['b.example'] });
      expect(shared.status).toBe('completed');
      const rows = ((await (await otherShared(`/v1/jobs/${shared.job_id}/results`)).json()) as { results: Row[] }).results;
      // The freshest fetched result, whoever's: the other tenant's, made last.
      expect(rows.map((r) => r.cached_from)).toEqual([own.job_id, own.job_id]);
      expect(calls() - before).toBe(2);
    } finally {
      await sharing.close();
    }
  });

  it('refuses a max_age that is not a duration, naming it', async () => {
    for (const max_age of ['7 days', '-1', '400d', 1.5, -3]) {
      const res = await acme('/v1/jobs', { body: { domains: ['a.example'], job_types: SOURCES, max_age } });
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('max_age');
    }
  });
});

describe('dry run', () => {
  const counts = async () => {
    const { rows } = await db.pool.query<{ jobs: number; tasks: number }>(
      'SELECT (SELECT count(*)::int FROM jobs) AS jobs, (SELECT count(*)::int FROM tasks) AS tasks',
    );
    return rows[0]!;
  };

  it('answers what a job would fetch and cost, stores nothing, and the real run costs what it said', async () => {
    const domains = ['d1.example', 'd2.example', 'd3.example'];
    const stored = await counts();
    const before = calls();
    const res = await acme('/v1/jobs', { body: { domains, job_types: SOURCES, dry_run: true, max_age: '1h' } });
    expect(res.status).toBe(200);
    const estimate = (await res.json()) as {
      dry_run: true;
      rows: { total: number; to_fetch: number; from_cache: number };
      sources: Record<string, { to_fetch: number; from_cache: number; calls: number; cost: { amount: number; unit: string } }>;
      seconds: number | null;
    };
    expect(estimate.rows).toEqual({ total: 6, to_fetch: 6, from_cache: 0 });
    expect(estimate.sources.seokicks).toMatchObject({ to_fetch: 3, calls: 3, cost: { amount: 3, unit: 'seokicks_credits' } });
    expect(estimate.sources.ahrefs_backlinks).toMatchObject({ to_fetch: 3, calls: 3, cost: { amount: 150, unit: 'ahrefs_units' } });
    // Neither source has a rate by default: the provider sets the pace, so no time is promised.
    expect(estimate.seconds).toBeNull();
    expect(await counts()).toEqual(stored);
    expect(calls()).toBe(before);

    const job = await createJob(acme, { domains, max_age: '1h' });
    await finished(acme, job.job_id);
    const cost = ((await jobOf(acme, job.job_id)) as unknown as { cost: Record<string, { amount: number }> }).cost;
    expect(cost.seokicks?.amount).toBe(estimate.sources.seokicks!.cost.amount);
    expect(cost.ahrefs_backlinks?.amount).toBe(estimate.sources.ahrefs_backlinks!.cost.amount);

    const again = (await (await acme('/v1/jobs', { body: { domains, job_types: SOURCES, dry_run: true, max_age: '1h' } })).json()) as {
      rows: unknown;
      sources: Record<string, { cost: { amount: number } }>;
    };
    expect(again.rows).toEqual({ total: 6, to_fetch: 0, from_cache: 6 });
    expect(again.sources.ahrefs_backlinks!.cost.amount).toBe(0);
  });

  it('times sources by their configured rates', async () => {
    const timed = await startJobsApi(db, { env: fakeEnv({ JOBS_SEOKICKS_RATE: '2', JOBS_AHREFS_BACKLINKS_RATE: '0.5' }) });
    try {
      const call = client(timed.url, await tokenFor(db, 'acme'));
      const res = await call('/v1/jobs', { body: { domains: ['t1.example', 't2.example'], job_types: SOURCES, dry_run: true } });
      const estimate = (await res.json()) as { sources: Record<string, { seconds: number }>; seconds: number };
      expect(estimate.sources.seokicks!.seconds).toBe(1);
      expect(estimate.sources.ahrefs_backlinks!.seconds).toBe(4);
      expect(estimate.seconds).toBe(4);
    } finally {
      await timed.close();
    }
  });

  it('says which source a budget has no room for, and creation refuses that job with nothing made', async () => {
    const budgeted = client(api.url, await tokenFor(db, 'budgeted'));
    const put = await budgeted('/v1/budgets', { method: 'PUT', body: { source: 'ahrefs_backlinks', monthly_limit: 120 } });
    expect(put.status).toBe(200);
    const body = { domains: ['e1.example', 'e2.example', 'e3.example'], job_types: SOURCES };
    const estimate = (await (await budgeted('/v1/jobs', { body: { ...body, dry_run: true } })).json()) as {
      sources: Record<string, { budget: unknown }>;
      within_budget: boolean;
    };
    expect(estimate.sources.ahrefs_backlinks!.budget).toMatchObject({ monthly_limit: 120, left: 120 });
    expect(estimate.sources.seokicks!.budget).toBeNull();
    expect(estimate.within_budget).toBe(false);

    const stored = await counts();
    const refused = await budgeted('/v1/jobs', { body });
    expect(refused.status).toBe(422);
    expect(await refused.json()).toMatchObject({
      code: 'budget_exceeded',
      source: 'ahrefs_backlinks',
      estimate: 150,
      left: 120,
      monthly_limit: 120,
    });
    expect(await counts()).toEqual(stored);
    // Two domains fit (100 units of 120).
    const fits = await budgeted('/v1/jobs', { body: { ...body, domains: ['e1.example', 'e2.example'] } });
    expect(fits.status).toBe(201);
  });

  it('validates as creation does', async () => {
    const res = await acme('/v1/jobs', { body: { domains: ['not a domain'], job_types: SOURCES, dry_run: true } });
    expect(res.status).toBe(400);
  });
});
