// Cost recorded: real jobs over every source, run by a worker process against the fake providers, which bill as
// the real ones do and count what they billed. Each row's cost, each job's and the tenant's usage must add up
// to the fakes' counters exactly; another tenant's spending stays its own.
import { beforeAll, describe, expect, it } from 'vitest';
import type { LoggedRequest, Usage } from '../../../src/dev/fakes/server.ts';
import { useEngine } from '../../helpers/engine.ts';
import { client, tokenFor } from '../../helpers/jobs.ts';
import { create, ended, resultsOf, type Call } from '../../helpers/transitions.ts';

type Row = { domain: string; source: string; status: string; cost: { amount: number; unit: string | null; basis: string; calls: number } };
type SourceUsage = { source: string; unit: string | null; amount: number; calls: number; rows: number };

const SOURCES = ['seokicks', 'moz', 'ahrefs_backlinks', 'ahrefs_traffic', 'wayback', 'ping'];
const UNITS: Record<string, string | null> = {
  seokicks: 'seokicks_credits',
  moz: 'moz_rows',
  ahrefs_backlinks: 'ahrefs_units',
  ahrefs_traffic: 'ahrefs_units',
  wayback: null,
  ping: null,
};

const t = useEngine({
  fakes: { seokicks: {}, moz: {}, ahrefs: {}, wayback: {} },
  env: { TEST_RETRY_DELAYS_MS: '100,100,100' },
});
let acme: Call;
let other: Call;
beforeAll(async () => {
  acme = t.call;
  other = client(t.api.url, await tokenFor(t.db, 'other'));
});

/** What the fakes billed for each source: the Ahrefs fake answers both Ahrefs sources, told apart by path. */
function billed(): Record<string, Usage> {
  const ahrefs = (part: string) => t.fakes.ahrefs.usage((r: LoggedRequest) => r.path.includes(part));
  return {
    seokicks: t.fakes.seokicks.usage(),
    moz: t.fakes.moz.usage(),
    ahrefs_backlinks: ahrefs('/batch-analysis/'),
    ahrefs_traffic: ahrefs('/site-explorer/'),
    wayback: t.fakes.wayback.usage(),
  };
}

async function runJob(call: Call, domains: string[], jobTypes = SOURCES): Promise<{ id: string; rows: Row[] }> {
  const id = await create(call, { domains, job_types: jobTypes });
  await ended(call, id, 40_000);
  return { id, rows: await resultsOf<Row>(call, id) };
}

function sums(rows: Row[]): Record<string, { amount: number; calls: number; rows: number }> {
  const out: Record<string, { amount: number; calls: number; rows: number }> = {};
  for (const row of rows) {
    out[row.source] ??= { amount: 0, calls: 0, rows: 0 };
    const s = out[row.source]!;
    s.amount += row.cost.amount;
    s.calls += row.cost.calls;
    s.rows += 1;
  }
  return out;
}

const usageOf = async (call: Call, query = '') => {
  const res = await call(`/v1/usage${query}`);
  expect(res.status).toBe(200);
  return (await res.json()) as { from: string; to: string; sources: SourceUsage[]; days?: { date: string; sources: SourceUsage[] }[] };
};
const bySource = (list: SourceUsage[]) => Object.fromEntries(list.map(({ source, ...rest }) => [source, rest]));

// 14 domains: Moz calls a batch of 10 and one of 4. units-7 is billed 7 units a request by Ahrefs, nounits 50
// without the headers, cached is served from Ahrefs' cache (0 consumed, though it should cost 50); flaky fails once everywhere (the failed attempt counts as a call); quota is refused
// everywhere (Moz refuses its whole batch); credits gets SEOkicks' "no credits left" 200.
const DOMAINS = [
  ...Array.from({ length: 8 }, (_, i) => `c${i}.example`),
  'units-7.example',
  'nounits.example',
  'cached.example',
  'flaky.example',
  'credits.example',
  'quota.example',
];
let job: { id: string; rows: Row[] };
const window = { from: '', to: '' };

describe('cost recorded over every source', () => {
  it('each row says what its requests cost; the rows add up to what each fake billed', { timeout: 60_000 }, async () => {
    window.from = new Date(Date.now() - 60_000).toISOString();
    job = await runJob(acme, DOMAINS);
    expect(job.rows).toHaveLength(DOMAINS.length * SOURCES.length);
    const row = (domain: string, source: string) => job.rows.find((r) => r.domain === domain && r.source === source)!.cost;

    const totals = sums(job.rows);
    for (const [source, fake] of Object.entries(billed())) {
      expect({ source, amount: totals[source]!.amount, calls: totals[source]!.calls }).toEqual({
        source,
        amount: fake.units,
        calls: fake.calls,
      });
    }
    expect(billed().ahrefs_backlinks!.units).toBeGreaterThan(0);
    for (const r of job.rows) expect(r.cost.unit).toBe(UNITS[r.source]);

    // Ahrefs: what its header says, or the price when it says nothing; three requests for traffic.
    expect(row('c0.example', 'ahrefs_backlinks')).toEqual({ amount: 50, unit: 'ahrefs_units', basis: 'reported', calls: 1 });
    expect(row('units-7.example', 'ahrefs_backlinks')).toMatchObject({ amount: 7, basis: 'reported' });
    expect(row('units-7.example', 'ahrefs_traffic')).toEqual({ amount: 21, unit: 'ahrefs_units', basis: 'reported', calls: 3 });
    expect(row('nounits.example', 'ahrefs_backlinks')).toMatchObject({ amount: 50, basis: 'computed', calls: 1 });
    expect(row('cached.example', 'ahrefs_backlinks')).toEqual({ amount: 0, unit: 'ahrefs_units', basis: 'reported', calls: 1 });
    // The failed first attempt is a call that cost nothing; the retry's reported units stay reported.
    expect(row('flaky.example', 'ahrefs_traffic')).toEqual({ amount: 150, unit: 'ahrefs_units', basis: 'reported', calls: 4 });
    expect(row('flaky.example', 'seokicks')).toMatchObject({ amount: 1, calls: 2 });
    // Refusals cost nothing, and neither does SEOkicks' "no credits left".
    expect(row('quota.example', 'ahrefs_backlinks')).toEqual({ amount: 0, unit: 'ahrefs_units', basis: 'computed', calls: 1 });
    expect(row('credits.example', 'seokicks')).toMatchObject({ amount: 0, calls: 1 });
    expect(row('c0.example', 'seokicks')).toEqual({ amount: 1, unit: 'seokicks_credits', basis: 'computed', calls: 1 });
  });

  it("a Moz call is shared among its batch's rows, which add up to it exactly", () => {
    const calls = t.fakes.moz.requests.map((r) => ({ targets: (JSON.parse(r.body) as { targets: string[] }).targets, units: r.units }));
    expect(calls.some((c) => c.targets.length > 1 && c.units === c.targets.length)).toBe(true);
    for (const r of job.rows.filter((x) => x.source === 'moz')) {
      const its = calls.filter((c) => c.targets.includes(r.domain));
      // A billed call bills a row per target, one to each row; the call itself counts on the batch's first row.
      expect({ domain: r.domain, amount: r.cost.amount, calls: r.cost.calls }).toEqual({
        domain: r.domain,
        amount: its.filter((c) => c.units > 0).length,
        calls: its.filter((c) => c.targets[0] === r.domain).length,
      });
    }
  });

  it('free sources cost 0 in no unit, and their requests are counted', () => {
    for (const r of job.rows.filter((x) => x.source === 'wayback' || x.source === 'ping')) {
      expect(r.cost).toMatchObject({ amount: 0, unit: null, basis: 'computed' });
    }
    expect(sums(job.rows).wayback!.calls).toBe(t.fakes.wayback.requests.length);
    // ping tries https (nothing listens) then http: two requests a domain.
    expect(job.rows.filter((r) => r.source === 'ping').every((r) => r.cost.calls === 2)).toBe(true);
  });

  it("the job's cost is the sum of its rows, per source, in each source's unit", async () => {
    const read = (await (await acme(`/v1/jobs/${job.id}`)).json()) as { cost: Record<string, { amount: number; unit: string | null }> };
    const totals = sums(job.rows);
    expect(Object.keys(read.cost)).toEqual(SOURCES);
    for (const source of SOURCES) expect(read.cost[source]).toEqual({ amount: totals[source]!.amount, unit: UNITS[source] });
    const listed = (await (await acme('/v1/jobs')).json()) as { jobs: { job_id: string; cost: unknown }[] };
    expect(listed.jobs.find((j) => j.job_id === job.id)!.cost).toEqual(read.cost);
  });

  it('CSV adds the cost after every other column', async () => {
    const csv = await (await acme(`/v1/jobs/${job.id}/results`, { headers: { accept: 'text/csv' } })).text();
    const [header, ...lines] = csv.trim().split('\r\n');
    expect(header!.split(',').slice(0, 7)).toEqual([
      'domain',
      'source',
      'status',
      'error_code',
      'error_message',
      'fetched_at',
      'duration_ms',
    ]);
    expect(header!.split(',').slice(-5)).toEqual(['cost', 'cost_unit', 'cost_basis', 'calls', 'cached_from']);
    const units7 = lines.find((l) => l.startsWith('units-7.example,ahrefs_traffic,'))!;
    expect(units7.split(',').slice(-5)).toEqual(['21', 'ahrefs_units', 'reported', '3', '']);
    expect(
      lines
        .find((l) => l.startsWith('c0.example,ping,'))!
        .split(',')
        .slice(-5),
    ).toEqual(['0', '', 'computed', '2', '']);
  });

  it("usage over the period is the fakes' bill; another tenant's jobs are not in it", { timeout: 60_000 }, async () => {
    const before = billed();
    const theirs = await runJob(other, ['t0.example', 't1.example'], ['seokicks', 'ahrefs_backlinks']);
    window.to = new Date(Date.now() + 60_000).toISOString();
    const query = `?from=${encodeURIComponent(window.from)}&to=${encodeURIComponent(window.to)}`;

    const mine = await usageOf(acme, query);
    expect(mine.sources.map((s) => s.source)).toEqual(SOURCES);
    const totals = sums(job.rows);
    for (const [source, fake] of Object.entries(before)) {
      expect(bySource(mine.sources)[source]).toEqual({ unit: UNITS[source], amount: fake.units, calls: fake.calls, rows: DOMAINS.length });
    }
    expect(bySource(mine.sources).ping).toEqual({ unit: null, amount: 0, calls: totals.ping!.calls, rows: DOMAINS.length });

    const after = billed();
    const yours = await usageOf(other, query);
    expect(bySource(yours.sources)).toEqual({
      seokicks: { unit: 'seokicks_credits', amount: after.seokicks!.units - before.seokicks!.units, calls: 2, rows: 2 },
      ahrefs_backlinks: { unit: 'ahrefs_units', amount: after.ahrefs_backlinks!.units - before.ahrefs_backlinks!.units, calls: 2, rows: 2 },
    });
    expect(sums(theirs.rows).seokicks!.amount).toBe(2);
  });

  it('by day, within the period; an earlier period has nothing', async () => {
    const query = `?from=${encodeURIComponent(window.from)}&to=${encodeURIComponent(window.to)}&granularity=day`;
    const daily = await usageOf(acme, query);
    const summed: Record<string, number> = {};
    for (const day of daily.days!) for (const s of day.sources) summed[s.source] = (summed[s.source] ?? 0) + s.amount;
    expect(summed).toEqual(Object.fromEntries(daily.sources.map((s) => [s.source, s.amount])));
    expect(daily.days!.length).toBeGreaterThan(0);
    for (const { date } of daily.days!) expect(date >= window.from.slice(0, 10) && date <= window.to.slice(0, 10)).toBe(true);

    expect((await usageOf(acme, '?from=2020-01-01&to=2020-02-01')).sources).toEqual([]);
    expect(
      (await usageOf(acme, `?from=${encodeURIComponent(window.to)}&to=${encodeURIComponent(new Date(Date.now() + 120_000).toISOString())}`))
        .sources,
    ).toEqual([]);
  });

  it('without from, the calendar month up to now', async () => {
    const now = new Date();
    const usage = await usageOf(acme);
    expect(usage.from).toBe(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString());
    expect(Date.parse(usage.to)).toBeGreaterThanOrEqual(now.getTime());
    expect((await usageOf(acme, '?to=2026-03-01')).from).toBe('2026-02-01T00:00:00.000Z');
  });
});

describe('the period asked', () => {
  const refused = async (query: string, path: string) => {
    const res = await acme(`/v1/usage${query}`);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { code: string; errors: { location: string; path: string }[] };
    expect(body.code).toBe('validation_failed');
    expect(body.errors[0]).toMatchObject({ location: 'query', path });
  };

  it('is refused with the parameter to blame', async () => {
    await refused('?from=last%20week', '/from');
    await refused('?from=2026-01-01T10:00:00', '/from');
    await refused('?to=2026-02-30', '/to');
    await refused('?from=2026-03-01&to=2026-02-01', '/to');
    await refused(`?from=${encodeURIComponent(new Date(Date.now() + 86_400_000).toISOString())}`, '/from');
    await refused('?from=2024-01-01&to=2026-01-01', '/from');
    await refused('?granularity=hour', '/granularity');
    await refused('?since=2026-01-01', '/since');
  });

  it('needs jobs:read', async () => {
    const res = await client(t.api.url, await tokenFor(t.db, 'acme', ['jobs:create']))('/v1/usage');
    expect(res.status).toBe(403);
    expect(((await res.json()) as { code: string }).code).toBe('missing_scope');
  });
});
