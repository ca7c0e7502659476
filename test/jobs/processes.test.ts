// The jobs service across real processes over one PostgreSQL: the key command, revocation seen by every
// API process at once, no token in any log, and a crash in the middle of a job's creation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueEntries } from '../../src/jobs/queues.ts';
import { createLogger } from '../../src/platform/log.ts';
import { startQueue, stopQueue } from '../../src/platform/queue.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { runCli, startCli, type RunningCli } from '../helpers/cli.ts';

const PORTS = { JOBS_PORT: '0', HOST: '127.0.0.1' };
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.pool.end();
});

async function createKey(
  tenant: string,
  scopes = 'keys:admin,keys:read,jobs:create,jobs:read',
): Promise<{ id: string; token: string; tenant: string }> {
  const made = await runCli(['jobs', 'keys', 'create', '--tenant', tenant, '--name', 'root', '--scopes', scopes, '--json'], {
    DATABASE_URL: db.url,
  });
  expect(made.code, made.stderr).toBe(0);
  return JSON.parse(made.stdout) as { id: string; token: string; tenant: string };
}

describe('domainkit jobs keys create', () => {
  it('makes the tenant and a key, printing the token once (--json: {id, token, tenant})', async () => {
    const first = await createKey('cli-tenant');
    expect(Object.keys(first).sort()).toEqual(['id', 'tenant', 'token']);
    expect(first.token).toMatch(/^dm_jobs_[0-9A-Za-z]{43}$/);
    expect(first.tenant).toBe('cli-tenant');
    const text = await runCli(['jobs', 'keys', 'create', '--tenant', 'cli-tenant', '--name', 'second', '--scopes', 'jobs:read'], {
      DATABASE_URL: db.url,
    });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/token \(shown once, keep it now\): dm_jobs_[0-9A-Za-z]{43}/);
    const { rows } = await db.pool.query(
      `SELECT count(DISTINCT k.tenant_id)::int AS tenants, count(*)::int AS keys FROM api_keys k JOIN tenants t ON t.id = k.tenant_id WHERE t.name = 'cli-tenant'`,
    );
    expect(rows[0]).toEqual({ tenants: 1, keys: 2 });
  });

  it.each([
    [['--scopes', 'jobs:read,jobs:delete'], /unknown scope jobs:delete; known: jobs:create, jobs:read, keys:admin, keys:read/],
    [['--scopes', ','], /--scopes needs at least one/],
  ])('refuses %j', async (args, message) => {
    const res = await runCli(['jobs', 'keys', 'create', '--tenant', 't', '--name', 'n', ...args], { DATABASE_URL: db.url });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(message);
  });
});

describe('two jobs-api processes on one database', () => {
  let a: RunningCli;
  let b: RunningCli;
  beforeAll(async () => {
    [a, b] = await Promise.all([
      startCli(['jobs-api'], { ...PORTS, DATABASE_URL: db.url }),
      startCli(['jobs-api'], { ...PORTS, DATABASE_URL: db.url }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a.stop(), b.stop()]);
  });

  it('a key revoked through one process is refused by the other on the very next request; no log holds a token', async () => {
    const admin = await createKey('two-procs');
    const base = (p: RunningCli) => p.addresses['jobs-api'];
    const made = await fetch(`${base(a)}/v1/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'short-lived', scopes: ['jobs:read'] }),
    });
    const key = (await made.json()) as { id: string; token: string };
    for (const p of [a, b]) expect((await fetch(`${base(p)}/v1/jobs`, { headers: { 'x-api-key': key.token } })).status).toBe(200);

    const revoked = await fetch(`${base(a)}/v1/keys/${key.id}`, { method: 'DELETE', headers: { 'x-api-key': admin.token } });
    expect(revoked.status).toBe(204);
    const after = await fetch(`${base(b)}/v1/jobs`, { headers: { 'x-api-key': key.token } });
    expect(after.status).toBe(401);

    for (const p of [a, b]) {
      const log = p.output();
      expect(log).toContain('"msg":"request"');
      for (const token of [admin.token, key.token]) expect(log).not.toContain(token.slice(8));
    }
  });
});

describe('a crash in the middle of creating a job', () => {
  it('leaves no job, no task row and no queue entry behind; the same request then succeeds whole', async () => {
    const { token } = await createKey('crash');
    // Holds the creating transaction open after its task rows are written, so the process can be killed there.
    await db.pool.query(`
      CREATE FUNCTION hold_slow_job() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM inserted WHERE domain = 'slow.example') THEN PERFORM pg_sleep(2); END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER hold_slow_job AFTER INSERT ON tasks REFERENCING NEW TABLE AS inserted
        FOR EACH STATEMENT EXECUTE FUNCTION hold_slow_job();`);
    const api = await startCli(['jobs-api'], { ...PORTS, DATABASE_URL: db.url });
    const domains = ['slow.example', ...Array.from({ length: 99 }, (_, i) => `n${i}.example`)];
    const body = JSON.stringify({ domains, job_types: ['ping', 'moz', 'wayback'] });
    const post = (base: string) =>
      fetch(`${base}/v1/jobs`, { method: 'POST', headers: { 'x-api-key': token, 'content-type': 'application/json' }, body });
    const pending = post(api.addresses['jobs-api']!).catch((err: unknown) => err);
    const holding = async () =>
      (
        await db.pool.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE 'INSERT INTO tasks%' AND wait_event = 'PgSleep'`,
        )
      ).rows[0].n;
    await expect.poll(holding, { timeout: 10_000 }).toBe(1);
    await api.stop('SIGKILL');
    expect(await pending).toBeInstanceOf(Error);
    // The orphaned transaction ends (rolled back) once its backend finds the client gone.
    await expect.poll(holding, { timeout: 10_000 }).toBe(0);
    await expect
      .poll(
        async () =>
          (await db.pool.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE state LIKE 'idle in transaction%'`)).rows[0].n,
      )
      .toBe(0);

    // The queue entries are pg-boss's rows: read through its API (src/jobs/queues.ts), by the tenant they are
    // grouped under, since the job they would belong to was never committed.
    const queue = await startQueue(db.url, createLogger({ level: 'silent' }), { work: false });
    const tenantId = (await db.pool.query<{ id: string }>(`SELECT id FROM tenants WHERE name = 'crash'`)).rows[0]!.id;
    const counts = async () => {
      const { rows } = await db.pool.query<{ jobs: number; tasks: number }>(`SELECT
          (SELECT count(*)::int FROM jobs j JOIN tenants t ON t.id = j.tenant_id WHERE t.name = 'crash') AS jobs,
          (SELECT count(*)::int FROM tasks WHERE domain = 'slow.example') AS tasks`);
      let entries = 0;
      for (const source of ['ping', 'moz', 'wayback'] as const) {
        entries += (await queueEntries(queue, source)).filter((e) => e.tenantId === tenantId).length;
      }
      return { ...rows[0]!, entries };
    };
    try {
      expect(await counts()).toEqual({ jobs: 0, tasks: 0, entries: 0 });

      await db.pool.query('DROP TRIGGER hold_slow_job ON tasks');
      const again = await startCli(['jobs-api'], { ...PORTS, DATABASE_URL: db.url });
      try {
        const res = await post(again.addresses['jobs-api']!);
        expect(res.status).toBe(201);
        // 100 domains: eight first entries for each of the three sources.
        expect(await counts()).toEqual({ jobs: 1, tasks: 3, entries: 24 });
        // Ended now, or the worker of the next test would run it first: its Moz rows waited out Moz's real rate
        // (one call per 10 s) before that test's own, and its Wayback rows called the real Wayback Machine.
        const { job_id: id } = (await res.json()) as { job_id: string };
        const cancelled = await fetch(`${again.addresses['jobs-api']!}/v1/jobs/${id}/cancel`, {
          method: 'POST',
          headers: { 'x-api-key': token },
        });
        expect(cancelled.status).toBe(200);
      } finally {
        await again.stop();
      }
    } finally {
      await stopQueue(queue);
    }
  });
});

describe('domainkit worker', () => {
  it('runs the jobs the jobs-api role creates, in a process of its own', { timeout: 60_000 }, async () => {
    const { token } = await createKey('worker-role');
    const [jobsApi, worker] = await Promise.all([
      startCli(['jobs-api'], { ...PORTS, DATABASE_URL: db.url }),
      startCli(['worker'], { DATABASE_URL: db.url }),
    ]);
    try {
      const base = jobsApi.addresses['jobs-api']!;
      const headers = { 'x-api-key': token, 'content-type': 'application/json' };
      // A name that never resolves (RFC 6761), and a provider this build has no adapter for yet.
      const body = JSON.stringify({ domains: ['nothing-here.invalid'], job_types: ['ping', 'moz'] });
      const { job_id: id } = (await (await fetch(`${base}/v1/jobs`, { method: 'POST', headers, body })).json()) as { job_id: string };
      await expect
        .poll(async () => ((await (await fetch(`${base}/v1/jobs/${id}`, { headers })).json()) as { status: string }).status, {
          timeout: 30_000,
        })
        .toBe('completed');
      const { results } = (await (await fetch(`${base}/v1/jobs/${id}/results`, { headers })).json()) as {
        results: { source: string; status: string; error: { code: string } | null; raw: { error?: string } }[];
      };
      expect(results.map((r) => [r.source, r.status])).toEqual([
        ['moz', 'error'],
        ['ping', 'ok'],
      ]);
      expect(results[0]!.error?.code).toBe('source_not_configured');
      expect(results[1]).toMatchObject({ reachable: false, status_code: null });
      expect(results[1]!.raw.error).toBe('dns');
    } finally {
      await Promise.all([jobsApi.stop(), worker.stop()]);
    }
  });
});
