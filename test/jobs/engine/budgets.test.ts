// Budgets at run time: two worker processes run jobs against the Ahrefs fake, which bills 50 units a request
// (`cached.*` 0, `units-<n>.*` n) and counts what it billed. Creation refuses a job whose estimate is over what
// is left, so what the engine holds the line against is what creation cannot see: calls that cost more than
// their estimate, and jobs running side by side. A job that reaches its budget ends the rest of the source's rows
// `budget_exceeded` and still ends once, with one callback; jobs running side by side never spend more than the
// budget together; a hold whose worker is gone does not count.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAhrefsFake } from '../../../src/dev/fakes/ahrefs.ts';
import type { Fake, LoggedRequest } from '../../../src/dev/fakes/server.ts';
import { acquireSlots, releaseSlots, reserveBudget, tenantIdByName } from '../../../src/jobs/store/index.ts';
import type { RunningCli } from '../../helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { startSites, startWorker, type Sites } from '../../helpers/engine.ts';
import { client, startJobsApi, tokenFor, type JobsApi } from '../../helpers/jobs.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';

type Call = ReturnType<typeof client>;
type Row = { domain: string; source: string; status: string; error: { code: string; message: string } | null; cost: { amount: number } };
type Budget = { source: string; monthly_limit: number | null; month: string; spent: number; reserved: number; left: number | null };

let db: TestDatabase;
let api: JobsApi;
let sites: Sites;
let ahrefs: Fake;
let receiver: Receiver;
const workers: RunningCli[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startJobsApi(db, { env: { ALLOW_PRIVATE_NETWORK: 'true' } });
  sites = await startSites();
  ahrefs = await startAhrefsFake({ apiKey: 'ah', latencyMs: 20 });
  receiver = await startReceiver(() => 200);
  // Two processes: holds are taken across workers, not within one. Backlinks run four calls at once across
  // both; traffic (150 units a domain, three requests) one at a time.
  const env = {
    AHREFS_API_KEY: 'ah',
    AHREFS_BASE_URL: `${ahrefs.url}/v3`,
    JOBS_AHREFS_BACKLINKS_CONCURRENCY: '4',
    JOBS_AHREFS_TRAFFIC_CONCURRENCY: '1',
  };
  for (let i = 0; i < 2; i++) workers.push(await startWorker(db.url, sites, { '*.example': '127.0.0.1' }, env));
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await Promise.all([api?.close(), sites?.close(), ahrefs?.close(), receiver?.close()]);
  await db?.pool.end();
});

async function tenant(name: string, budgets: Record<string, number> = {}): Promise<Call> {
  const call = client(api.url, await tokenFor(db, name));
  for (const [source, limit] of Object.entries(budgets)) {
    expect((await call('/v1/budgets', { method: 'PUT', body: { source, monthly_limit: limit } })).status).toBe(200);
  }
  return call;
}

async function createJob(call: Call, body: Record<string, unknown>): Promise<string> {
  const res = await call('/v1/jobs', { body });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { job_id: string }).job_id;
}

async function finished(call: Call, id: string): Promise<{ status: string; rows: Row[] }> {
  let status = '';
  await expect
    .poll(async () => (status = ((await (await call(`/v1/jobs/${id}`)).json()) as { status: string }).status), {
      timeout: 30_000,
      interval: 100,
    })
    .toMatch(/^(completed|failed)$/);
  const { results } = (await (await call(`/v1/jobs/${id}/results`)).json()) as { results: Row[] };
  return { status, rows: results };
}

async function budgetOf(call: Call, source: string): Promise<Budget> {
  const { budgets } = (await (await call('/v1/budgets')).json()) as { budgets: Budget[] };
  return budgets.find((b) => b.source === source)!;
}

/** What the fake billed for backlinks (or traffic) calls about domains starting with `prefix`. */
function billed(prefix: string, endpoint = '/batch-analysis/'): number {
  const target = (r: LoggedRequest) =>
    r.method === 'GET' ? (r.query.get('target') ?? '') : ((JSON.parse(r.body) as { targets: { url: string }[] }).targets[0]?.url ?? '');
  return ahrefs.usage((r) => r.path.includes(endpoint) && target(r).startsWith(prefix)).units;
}

const byStatus = (rows: Row[], source: string) => {
  const own = rows.filter((r) => r.source === source);
  return { ok: own.filter((r) => r.status === 'ok'), exceeded: own.filter((r) => r.error?.code === 'budget_exceeded'), all: own };
};

describe('a running job that reaches its budget', () => {
  it('ends the rest of the source’s rows budget_exceeded, its other sources run, and it ends with one callback', async () => {
    // Six traffic domains at 150 units each (three requests at the smallest charge) fit 900 at creation, but
    // Ahrefs bills units-100 domains 100 a request: three domains spend it all. Traffic runs one call at a time.
    const call = await tenant('solo', { ahrefs_traffic: 900 });
    const domains = Array.from({ length: 6 }, (_, i) => `units-100.solo${i}.example`);
    const id = await createJob(call, { domains, job_types: ['ahrefs_traffic', 'ping'], webhook_url: `${receiver.url}/solo` });
    const { status, rows } = await finished(call, id);
    expect(status).toBe('completed');

    const traffic = byStatus(rows, 'ahrefs_traffic');
    expect(traffic.all).toHaveLength(6);
    expect(traffic.ok).toHaveLength(3);
    expect(traffic.exceeded).toHaveLength(3);
    const month = new Date().toISOString().slice(0, 7);
    for (const row of traffic.exceeded) {
      expect(row.error!.message).toContain(`monthly budget of ahrefs_traffic for ${month}`);
      expect(row.error!.message).toContain('limit 900 ahrefs_units');
      expect(row.cost.amount).toBe(0);
    }
    expect(byStatus(rows, 'ping').ok).toHaveLength(6);

    expect(billed('units-100.solo', '/site-explorer/')).toBe(900);
    expect(await budgetOf(call, 'ahrefs_traffic')).toMatchObject({ monthly_limit: 900, spent: 900, reserved: 0, left: 0 });
    const usage = (await (await call('/v1/usage')).json()) as { sources: { source: string; amount: number }[] };
    expect(usage.sources.find((s) => s.source === 'ahrefs_traffic')!.amount).toBe(900);

    await receiver.waitFor('/solo', 1);
    const body = JSON.parse(receiver.forPath('/solo')[0]!.body.toString()) as { job_id: string; status: string };
    expect(body).toMatchObject({ job_id: id, status: 'completed' });
  });

  it('counts what the tenant spent before the budget was set', async () => {
    const call = await tenant('early');
    await finished(call, await createJob(call, { domains: ['early0.example'], job_types: ['ahrefs_traffic'] }));
    expect(billed('early0', '/site-explorer/')).toBe(150);
    const set = await call('/v1/budgets', { method: 'PUT', body: { source: 'ahrefs_traffic', monthly_limit: 450 } });
    expect(await set.json()).toMatchObject({ spent: 150, left: 300 });

    // 300 left takes both domains at creation; at 240 each (units-80), the first leaves 60, too little for the next.
    const domains = ['units-80.early1.example', 'units-80.early2.example'];
    const { rows } = await finished(call, await createJob(call, { domains, job_types: ['ahrefs_traffic'] }));
    expect(byStatus(rows, 'ahrefs_traffic').ok).toHaveLength(1);
    expect(byStatus(rows, 'ahrefs_traffic').exceeded).toHaveLength(1);
    expect(billed('units-80.early', '/site-explorer/')).toBe(240);
    expect(await budgetOf(call, 'ahrefs_traffic')).toMatchObject({ spent: 390, reserved: 0, left: 60 });
  });

  it('holds a call’s estimate until it settles, then only what it cost', async () => {
    // Answers from Ahrefs' cache cost 0: the first job's holds (its whole budget) give way to nothing, so the
    // second job fits whole at creation and at run time.
    const call = await tenant('cheap', { ahrefs_traffic: 600 });
    const cached = Array.from({ length: 4 }, (_, i) => `cached.cheap${i}.example`);
    expect(
      byStatus((await finished(call, await createJob(call, { domains: cached, job_types: ['ahrefs_traffic'] }))).rows, 'ahrefs_traffic').ok,
    ).toHaveLength(4);
    expect(await budgetOf(call, 'ahrefs_traffic')).toMatchObject({ spent: 0, reserved: 0, left: 600 });
    const billedOnes = Array.from({ length: 4 }, (_, i) => `units-10.cheap${i}.example`);
    expect(
      byStatus((await finished(call, await createJob(call, { domains: billedOnes, job_types: ['ahrefs_traffic'] }))).rows, 'ahrefs_traffic')
        .ok,
    ).toHaveLength(4);
    expect(await budgetOf(call, 'ahrefs_traffic')).toMatchObject({ spent: 120, reserved: 0, left: 480 });
  });
});

describe('holds across processes', () => {
  it('a hold whose worker is gone stops counting when its lease runs out; a lapsed one never counted', async () => {
    const call = await tenant('held', { ahrefs_backlinks: 200 });
    const tenantId = (await tenantIdByName(db.pool, 'held'))!;
    // As a worker holds before a call, then dies: nobody renews it.
    const hold = (leaseSeconds: number) =>
      reserveBudget(db.pool, { tenantId, source: 'ahrefs_backlinks', amount: 200, entryId: null, jobId: null, leaseSeconds });

    expect(await hold(0)).toMatchObject({ held: true });
    const first = await finished(
      call,
      await createJob(call, { domains: ['held0.example', 'held1.example'], job_types: ['ahrefs_backlinks'] }),
    );
    expect(byStatus(first.rows, 'ahrefs_backlinks').ok).toHaveLength(2);

    expect(await hold(5)).toMatchObject({ held: false, spent: 100 });
    const half = await reserveBudget(db.pool, {
      tenantId,
      source: 'ahrefs_backlinks',
      amount: 100,
      entryId: null,
      jobId: null,
      leaseSeconds: 5,
    });
    expect(half).toMatchObject({ held: true });
    const refused = await call('/v1/jobs', { body: { domains: ['held2.example'], job_types: ['ahrefs_backlinks'] } });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { code: string }).code).toBe('budget_exceeded');

    await expect.poll(async () => (await budgetOf(call, 'ahrefs_backlinks')).reserved, { timeout: 30_000, interval: 200 }).toBe(0);
    const second = await finished(
      call,
      await createJob(call, { domains: ['held2.example', 'held3.example'], job_types: ['ahrefs_backlinks'] }),
    );
    expect(byStatus(second.rows, 'ahrefs_backlinks').ok).toHaveLength(2);
    expect(billed('held')).toBe(200);
    expect(await budgetOf(call, 'ahrefs_backlinks')).toMatchObject({ spent: 200, reserved: 0, left: 0 });
  });

  it('two jobs running at once against one budget never spend more than it, 20 times over', { timeout: 300_000 }, async () => {
    const GATE = 'test-gate';
    for (let round = 0; round < 20; round++) {
      const where = `round ${round}`;
      // A tenant per round: a fresh month's spending. 250 units take five of the eight calls wanted, and each job
      // (200) fits at creation. Both are made while the source's slots are taken, so neither has begun when the
      // other is checked; then both run at once, on two workers.
      const call = await tenant(`race${round}`, { ahrefs_backlinks: 250 });
      const slots: number[] = [];
      await expect
        .poll(async () => slots.push(...(await acquireSlots(db.pool, 'ahrefs_backlinks', 4, 4 - slots.length, GATE, 60))), {
          timeout: 10_000,
          interval: 20,
        })
        .toBe(4);
      const domains = (j: number) => Array.from({ length: 4 }, (_, i) => `r${round}-j${j}-${i}.example`);
      const ids = await Promise.all([0, 1].map((j) => createJob(call, { domains: domains(j), job_types: ['ahrefs_backlinks'] })));
      await releaseSlots(db.pool, 'ahrefs_backlinks', slots, GATE);
      const jobs = await Promise.all(ids.map((id) => finished(call, id)));

      const spent = billed(`r${round}-`);
      const rows = jobs.flatMap((j) => j.rows);
      expect(spent, where).toBeLessThanOrEqual(250);
      // Every call fits until the budget is spent, and estimates equal what the fake bills: exactly five.
      expect(byStatus(rows, 'ahrefs_backlinks').ok.length, where).toBe(5);
      expect(byStatus(rows, 'ahrefs_backlinks').exceeded.length, where).toBe(3);
      expect(spent, where).toBe(250);
      expect(await budgetOf(call, 'ahrefs_backlinks'), where).toMatchObject({ spent: 250, reserved: 0, left: 0 });
    }
  });
});

describe('callbacks', () => {
  it('the job that reached its budget sent exactly one', () => {
    expect(receiver.forPath('/solo')).toHaveLength(1);
  });
});
