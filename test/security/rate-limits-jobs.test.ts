// Jobs API request rates across two real `domainkit jobs-api` processes over one database: one budget per
// tenant and per key whichever process answers, job creation counted apart, and the RateLimit-Policy /
// RateLimit fields (draft-ietf-httpapi-ratelimit-headers-11) on every answer, Retry-After on the 429.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKey } from '../../src/jobs/index.ts';
import { startCli, type RunningCli } from '../helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';

// Windows of an hour: nothing in a test's life can reset them, so every count below is exact.
const LIMITS = { JOBS_RATE_LIMIT_TENANT: '5/1h', JOBS_RATE_LIMIT_KEY: '3/1h', JOBS_RATE_LIMIT_CREATE: '2/1h' };
let db: TestDatabase;
let a: RunningCli;
let b: RunningCli;

beforeAll(async () => {
  db = await createTestDatabase();
  const env = { JOBS_PORT: '0', HOST: '127.0.0.1', DATABASE_URL: db.url, ...LIMITS };
  [a, b] = await Promise.all([startCli(['jobs-api'], env), startCli(['jobs-api'], env)]);
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await db?.pool.end();
});

const token = async (tenant: string, name = 'k') => (await makeKey(db.pool, tenant, name, ['jobs:create', 'jobs:read'])).token;

/** GET /v1/jobs (or another request) through process `p`, with the key. */
function call(p: RunningCli, key: string, init: { method?: string; path?: string; body?: unknown } = {}) {
  return fetch(`${p.addresses['jobs-api']}${init.path ?? '/v1/jobs'}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${key}`, ...(init.body ? { 'content-type': 'application/json' } : {}) },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
}

describe('jobs API rate limits over two processes', () => {
  it('a key has one budget over both processes: the 4th request is 429 with Retry-After and the fields', async () => {
    const key = await token('one-budget');
    const seen: { status: number; policy: string | null; limit: string | null }[] = [];
    for (const p of [a, b, a]) {
      const res = await call(p, key);
      seen.push({ status: res.status, policy: res.headers.get('ratelimit-policy'), limit: res.headers.get('ratelimit') });
    }
    expect(seen.map((s) => s.status)).toEqual([200, 200, 200]);
    expect(seen[0]!.policy).toBe('"tenant";q=5;w=3600, "key";q=3;w=3600');
    expect(seen.map((s) => s.limit?.replace(/;t=\d+/g, ''))).toEqual([
      '"tenant";r=4, "key";r=2',
      '"tenant";r=3, "key";r=1',
      '"tenant";r=2, "key";r=0',
    ]);
    const refused = await call(b, key);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const body = (await refused.json()) as { code: string; violated_policies: string[] };
    expect(body).toMatchObject({ code: 'rate_limited', status: 429, violated_policies: ['key'] });
    const retryAfter = Number(refused.headers.get('retry-after'));
    const t = Number(/"key";r=0;t=(\d+)/.exec(refused.headers.get('ratelimit') ?? '')?.[1]);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    // The draft: Retry-After no earlier than the end of the effective window of the spent policy.
    expect(retryAfter).toBeGreaterThanOrEqual(t);
    expect(refused.headers.get('ratelimit-policy')).toBe('"tenant";q=5;w=3600, "key";q=3;w=3600');
    // Still refused through the other process (and through the one that refused: its memory agrees).
    expect((await call(a, key)).status).toBe(429);
    expect((await call(b, key)).status).toBe(429);
    // Another tenant is served as before.
    expect((await call(a, await token('someone-else'))).status).toBe(200);
  });

  it('requests arriving together through both processes: never more than the budget is served, however they are batched', async () => {
    const key = await token('together');
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => call(i % 2 ? a : b, key)));
    const statuses = answers.map((r) => r.status);
    // Every request counts against both the tenant's budget (5) and the key's (3), each counter in its own
    // order of arrival: a request is served only with a place in both, so at most 3 are, and possibly fewer
    // (one with key place 2 may have tenant place 9), even none. What must hold is the ceiling and one place per
    // request; that the budget is served in full is the sequential test's above.
    const served = statuses.filter((s) => s === 200).length;
    expect(served).toBeLessThanOrEqual(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20 - served);
    const left = answers.filter((r) => r.status === 200).map((r) => Number(/"key";r=(\d+)/.exec(r.headers.get('ratelimit') ?? '')?.[1]));
    expect(new Set(left).size).toBe(served);
    for (const r of left) expect([0, 1, 2]).toContain(r);
    expect((await call(a, key)).status).toBe(429);
  });

  it('per tenant against per key: a second key of the tenant is refused when the tenant is spent', async () => {
    const [first, second] = [await token('tenant-vs-key', 'first'), await token('tenant-vs-key', 'second')];
    // First key: 3 served, the 4th refused by its key (the tenant has counted 4).
    const firsts = [];
    for (const p of [a, b, a, b]) firsts.push((await call(p, first)).status);
    expect(firsts).toEqual([200, 200, 200, 429]);
    // Second key: its own budget is fresh, but the tenant's has one request left.
    const ok = await call(a, second);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('ratelimit')?.replace(/;t=\d+/g, '')).toBe('"tenant";r=0, "key";r=2');
    const refused = await call(b, second);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { violated_policies: string[] }).violated_policies).toEqual(['tenant']);
  });

  it('creation is counted apart: the 3rd POST /v1/jobs is 429 while reads are served; the read route counts too', async () => {
    const key = await token('creations');
    const job = { domains: ['example.com'], job_types: ['ping'] };
    const first = await call(a, key, { method: 'POST', body: job });
    expect(first.status).toBe(201);
    expect(first.headers.get('ratelimit-policy')).toBe('"tenant";q=5;w=3600, "key";q=3;w=3600, "create";q=2;w=3600');
    const { job_id } = (await first.json()) as { job_id: string };
    expect((await call(b, key, { method: 'POST', body: job })).status).toBe(201);
    const third = await call(a, key, { method: 'POST', body: job });
    expect(third.status).toBe(429);
    expect(((await third.json()) as { violated_policies: string[] }).violated_policies).toEqual(['create']);
    // Three requests of the key so far (one refused): GET /v1/jobs/{id}, which checks its key in its handler,
    // is counted as every route is: the 4th request of the key is refused.
    const read = await call(b, key, { path: `/v1/jobs/${job_id}` });
    expect(read.status).toBe(429);
    expect(read.headers.get('ratelimit')).toMatch(/^"tenant";r=\d+;t=\d+, "key";r=0;t=\d+$/);
  });
});
