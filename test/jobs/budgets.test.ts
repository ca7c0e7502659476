// Budgets without a worker: PUT/GET /v1/budgets (validation, scopes, tenants), `domainkit jobs budgets`, and the
// store's holds as the engine makes them: atomic under concurrency, and lapsing when their worker is gone.
import { describe, expect, it } from 'vitest';
import { budgetsLeft, reserveBudget, settleSpending, tenantIdByName } from '../../src/jobs/store/index.ts';
import { runCli } from '../helpers/cli.ts';
import { problemOf } from '../helpers/http.ts';
import { client, tokenFor, useJobsApi } from '../helpers/jobs.ts';

const t = useJobsApi();

type Budget = {
  source: string;
  unit: string;
  monthly_limit: number | null;
  month: string;
  spent: number;
  reserved: number;
  left: number | null;
};

const thisMonth = () => new Date().toISOString().slice(0, 7);
const tenantId = async (name: string) => (await tenantIdByName(t.db.pool, name))!;

async function put(call: ReturnType<typeof client>, body: unknown): Promise<Response> {
  return call('/v1/budgets', { method: 'PUT', body });
}
async function list(call: ReturnType<typeof client>): Promise<Budget[]> {
  const res = await call('/v1/budgets');
  expect(res.status).toBe(200);
  return ((await res.json()) as { budgets: Budget[] }).budgets;
}

describe('PUT and GET /v1/budgets', () => {
  it('sets, changes and removes a budget, answering it as it stands this month', async () => {
    const acme = client(t.api.url, await tokenFor(t.db, 'acme'));
    const set = await put(acme, { source: 'ahrefs_backlinks', monthly_limit: 100_000 });
    expect(set.status).toBe(200);
    const budget = { source: 'ahrefs_backlinks', unit: 'ahrefs_units', monthly_limit: 100_000, month: thisMonth(), spent: 0, reserved: 0 };
    expect(await set.json()).toEqual({ ...budget, left: 100_000 });
    expect(await (await put(acme, { source: 'moz', monthly_limit: 500 })).json()).toMatchObject({ unit: 'moz_rows', left: 500 });
    // In source order (the registry's), whatever order they were set in.
    expect((await list(acme)).map((b) => b.source)).toEqual(['moz', 'ahrefs_backlinks']);

    expect(await (await put(acme, { source: 'ahrefs_backlinks', monthly_limit: 2_500.5 })).json()).toMatchObject({
      monthly_limit: 2_500.5,
      left: 2_500.5,
    });
    const removed = await put(acme, { source: 'moz', monthly_limit: null });
    expect(removed.status).toBe(200);
    expect(await removed.json()).toEqual({
      source: 'moz',
      unit: 'moz_rows',
      monthly_limit: null,
      month: thisMonth(),
      spent: 0,
      reserved: 0,
      left: null,
    });
    expect((await list(acme)).map((b) => b.source)).toEqual(['ahrefs_backlinks']);
    // Removing what is not there is the same answer.
    expect((await put(acme, { source: 'moz', monthly_limit: null })).status).toBe(200);
  });

  it('counts what was spent this month before the budget was set, and what live holds expect', async () => {
    const call = client(t.api.url, await tokenFor(t.db, 'spender'));
    const id = await tenantId('spender');
    await settleSpending(t.db.pool, { tenantId: id, source: 'seokicks', holdIds: [], amount: 40 });
    const set = (await (await put(call, { source: 'seokicks', monthly_limit: 100 })).json()) as Budget;
    expect(set).toMatchObject({ spent: 40, reserved: 0, left: 60 });
    const held = await reserveBudget(t.db.pool, {
      tenantId: id,
      source: 'seokicks',
      amount: 25,
      entryId: null,
      jobId: null,
      leaseSeconds: 60,
    });
    expect(held).toMatchObject({ held: true });
    expect(await list(call)).toEqual([{ ...set, reserved: 25, left: 35 }]);
    expect(await budgetsLeft(t.db.pool, id, ['seokicks', 'moz', 'ping'])).toEqual(
      new Map([['seokicks', { limit: 100, left: 35, month: thisMonth() }]]),
    );
    // The settle replaces the hold with what the call cost.
    await settleSpending(t.db.pool, { tenantId: id, source: 'seokicks', holdIds: held?.held ? [held.holdId] : [], amount: 10 });
    expect(await list(call)).toEqual([{ ...set, spent: 50, reserved: 0, left: 50 }]);
  });

  it('refuses a source nobody pays for, naming it, and bodies that break the schema', async () => {
    const call = client(t.api.url, await tokenFor(t.db, 'acme'));
    for (const source of ['ping', 'wayback']) {
      const res = await put(call, { source, monthly_limit: 10 });
      expect(res.status).toBe(400);
      const problem = (await problemOf(res)) as unknown as { code: string; errors: { location: string; path: string; message: string }[] };
      expect(problem.code).toBe('validation_failed');
      expect(problem.errors).toEqual([{ location: 'body', path: '/source', message: expect.stringContaining(`${source} costs nothing`) }]);
    }
    for (const [body, path] of [
      [{ source: 'majestic', monthly_limit: 10 }, '/source'],
      [{ source: 'moz', monthly_limit: -1 }, '/monthly_limit'],
      [{ source: 'moz', monthly_limit: '10' }, '/monthly_limit'],
      [{ source: 'moz', monthly_limit: 1e16 }, '/monthly_limit'],
      [{ source: 'moz' }, '/monthly_limit'],
      [{ source: 'moz', monthly_limit: 10, month: '2026-01' }, '/month'],
    ] as const) {
      const res = await put(call, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const problem = (await problemOf(res)) as unknown as { code: string; errors: { path: string }[] };
      expect(problem.code).toBe('validation_failed');
      expect(
        problem.errors.map((e) => e.path),
        JSON.stringify(body),
      ).toContain(path);
    }
    expect((await list(call)).map((b) => b.source)).not.toContain('ping');
  });

  it('PUT needs keys:admin and GET jobs:read; each tenant sees its own budgets only', async () => {
    const reader = client(t.api.url, await tokenFor(t.db, 'scoped', ['jobs:read', 'jobs:create']));
    const admin = client(t.api.url, await tokenFor(t.db, 'scoped', ['keys:admin']));
    const refused = await put(reader, { source: 'moz', monthly_limit: 1 });
    expect(refused.status).toBe(403);
    expect(await problemOf(refused)).toMatchObject({ code: 'missing_scope', required_scope: 'keys:admin' });
    expect((await put(admin, { source: 'moz', monthly_limit: 1 })).status).toBe(200);
    const unread = await admin('/v1/budgets');
    expect(unread.status).toBe(403);
    expect(await problemOf(unread)).toMatchObject({ code: 'missing_scope', required_scope: 'jobs:read' });
    expect((await list(reader)).map((b) => [b.source, b.monthly_limit])).toEqual([['moz', 1]]);
    expect(await list(client(t.api.url, await tokenFor(t.db, 'stranger')))).toEqual([]);
  });
});

describe('holds', () => {
  it('concurrent reservations never take more than the limit together', async () => {
    const call = client(t.api.url, await tokenFor(t.db, 'racer'));
    const id = await tenantId('racer');
    expect((await put(call, { source: 'ahrefs_traffic', monthly_limit: 1_000 })).status).toBe(200);
    const tries = await Promise.all(
      Array.from({ length: 40 }, () =>
        reserveBudget(t.db.pool, { tenantId: id, source: 'ahrefs_traffic', amount: 150, entryId: null, jobId: null, leaseSeconds: 60 }),
      ),
    );
    // 1,000 takes six holds of 150; the seventh would make 1,050.
    expect(tries.filter((r) => r?.held).length).toBe(6);
    const refusal = tries.find((r) => r && !r.held);
    expect(refusal).toEqual({ held: false, limit: 1_000, spent: 0, reserved: 900, month: thisMonth() });
    expect(await list(call)).toEqual([expect.objectContaining({ reserved: 900, left: 100 })]);
  });

  it('a hold whose lease ran out (its worker died) no longer counts, and another call takes what it held', async () => {
    const call = client(t.api.url, await tokenFor(t.db, 'crash'));
    const id = await tenantId('crash');
    expect((await put(call, { source: 'moz', monthly_limit: 100 })).status).toBe(200);
    const hold = (amount: number, leaseSeconds: number) =>
      reserveBudget(t.db.pool, { tenantId: id, source: 'moz', amount, entryId: null, jobId: null, leaseSeconds });

    // Already lapsed: as a worker that died at once.
    expect(await hold(100, 0)).toMatchObject({ held: true });
    expect(await list(call)).toEqual([expect.objectContaining({ reserved: 0, left: 100 })]);
    // A live hold of everything leaves nothing, until its lease runs out with nobody to renew it.
    expect(await hold(100, 1)).toMatchObject({ held: true });
    expect(await hold(10, 60)).toMatchObject({ held: false, reserved: 100 });
    await expect.poll(async () => (await list(call))[0]!.reserved, { timeout: 10_000, interval: 200 }).toBe(0);
    expect(await hold(100, 60)).toMatchObject({ held: true });
  });

  it('a tenant without a budget on the source has nothing to hold', async () => {
    await tokenFor(t.db, 'free');
    expect(
      await reserveBudget(t.db.pool, {
        tenantId: await tenantId('free'),
        source: 'moz',
        amount: 10,
        entryId: null,
        jobId: null,
        leaseSeconds: 60,
      }),
    ).toBeUndefined();
  });
});

describe('domainkit jobs budgets', () => {
  it('sets, lists and removes budgets of a tenant by name', { timeout: 60_000 }, async () => {
    await tokenFor(t.db, 'cli');
    const env = { DATABASE_URL: t.db.url };
    const set = await runCli(['jobs', 'budgets', 'set', '--tenant', 'cli', '--source', 'moz', '--limit', '300', '--json'], env);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({
      source: 'moz',
      unit: 'moz_rows',
      monthly_limit: 300,
      month: thisMonth(),
      spent: 0,
      reserved: 0,
      left: 300,
    });
    const text = await runCli(['jobs', 'budgets', 'set', '--tenant', 'cli', '--source', 'ahrefs_traffic', '--limit', '9000'], env);
    expect(text.stdout.trim()).toBe(`ahrefs_traffic ${thisMonth()}: limit 9000 ahrefs_units, spent 0, reserved 0, left 9000`);

    const listed = await runCli(['jobs', 'budgets', 'list', '--tenant', 'cli', '--json'], env);
    expect(JSON.parse(listed.stdout).budgets.map((b: Budget) => [b.source, b.monthly_limit])).toEqual([
      ['moz', 300],
      ['ahrefs_traffic', 9000],
    ]);
    // The API answers the same.
    expect((await list(client(t.api.url, await tokenFor(t.db, 'cli')))).map((b) => b.monthly_limit)).toEqual([300, 9000]);

    expect((await runCli(['jobs', 'budgets', 'set', '--tenant', 'cli', '--source', 'moz', '--limit', 'none'], env)).stdout).toContain(
      'moz',
    );
    expect((await runCli(['jobs', 'budgets', 'list', '--tenant', 'cli'], env)).stdout.trim().split('\n')).toHaveLength(1);

    for (const [args, message] of [
      [['--tenant', 'nobody', '--source', 'moz', '--limit', '1'], 'no tenant named "nobody"'],
      [['--tenant', 'cli', '--source', 'ping', '--limit', '1'], 'ping costs nothing'],
      [['--tenant', 'cli', '--source', 'moz', '--limit', 'lots'], '--limit takes an amount'],
    ] as const) {
      const failed = await runCli(['jobs', 'budgets', 'set', ...args], env);
      expect(failed.code, args.join(' ')).toBe(1);
      expect(failed.stderr).toContain(message);
    }
  });
});
