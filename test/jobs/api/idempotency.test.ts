// Idempotency-Key on POST /v1/jobs: a retried request answers the job the first one made (the same 201 and
// body), concurrent requests with one key make one job, another body with the key is 422, a key is the tenant's
// own and lives 24 hours.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { client, tokenFor, useJobsApi } from '../../helpers/jobs.ts';

const t = useJobsApi();

const BODY = { domains: ['one.example', 'two.example'], job_types: ['ping', 'wayback'] };

async function jobsOf(tenant: string): Promise<number> {
  const { rows } = await t.db.pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM jobs j JOIN tenants t ON t.id = j.tenant_id WHERE t.name = $1',
    [tenant],
  );
  return rows[0]!.n;
}

describe('POST /v1/jobs with an Idempotency-Key', () => {
  it('answers a retry with the first job: the same status, body and webhook secret, marked as replayed', async () => {
    const call = client(t.api.url, await tokenFor(t.db, 'idem-retry'));
    const key = randomUUID();
    const body = { ...BODY, webhook_url: 'https://hooks.example/done' };
    const first = await call('/v1/jobs', { body, headers: { 'idempotency-key': key } });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const created = (await first.json()) as { job_id: string; webhook_secret?: string };
    expect(created.webhook_secret).toMatch(/^[0-9a-f]{64}$/);
    // Key order differs: the same request all the same.
    const again = await call('/v1/jobs', {
      body: { webhook_url: body.webhook_url, job_types: body.job_types, domains: body.domains },
      headers: { 'idempotency-key': key },
    });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(await again.json()).toEqual(created);
    expect(await jobsOf('idem-retry')).toBe(1);
    // Without the key, the same body is another job, as it always was.
    expect((await call('/v1/jobs', { body })).status).toBe(201);
    expect(await jobsOf('idem-retry')).toBe(2);
  });

  it('makes one job for ten concurrent requests with the same key, and all ten answer it', async () => {
    const call = client(t.api.url, await tokenFor(t.db, 'idem-race'));
    for (let round = 0; round < 5; round++) {
      const key = randomUUID();
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => call('/v1/jobs', { body: BODY, headers: { 'idempotency-key': key } })),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(10).fill(201));
      const ids = new Set(await Promise.all(answers.map(async (a) => ((await a.json()) as { job_id: string }).job_id)));
      expect(ids.size).toBe(1);
      expect(answers.filter((a) => a.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    }
    expect(await jobsOf('idem-race')).toBe(5);
  });

  it('refuses the same key with another body (422 idempotency_key_reused), and makes nothing', async () => {
    const call = client(t.api.url, await tokenFor(t.db, 'idem-other'));
    const key = randomUUID();
    expect((await call('/v1/jobs', { body: BODY, headers: { 'idempotency-key': key } })).status).toBe(201);
    const other = await call('/v1/jobs', { body: { ...BODY, domains: ['three.example'] }, headers: { 'idempotency-key': key } });
    expect(other.status).toBe(422);
    expect(other.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = (await other.json()) as { code: string; detail: string };
    expect(problem.code).toBe('idempotency_key_reused');
    expect(problem.detail).toContain(key);
    expect(await jobsOf('idem-other')).toBe(1);
  });

  it("keeps each tenant's keys apart, and frees a key after 24 hours", async () => {
    const a = client(t.api.url, await tokenFor(t.db, 'idem-a'));
    const b = client(t.api.url, await tokenFor(t.db, 'idem-b'));
    const key = 'order-42';
    const fromA = (await (await a('/v1/jobs', { body: BODY, headers: { 'idempotency-key': key } })).json()) as { job_id: string };
    const fromB = (await (await b('/v1/jobs', { body: BODY, headers: { 'idempotency-key': key } })).json()) as { job_id: string };
    expect(fromB.job_id).not.toBe(fromA.job_id);
    await t.db.pool.query(
      `UPDATE job_idempotency_keys SET created_at = now() - interval '24 hours 1 second'
       WHERE key = $1 AND tenant_id = (SELECT id FROM tenants WHERE name = 'idem-a')`,
      [key],
    );
    // Past its life the key takes any body, and makes a new job.
    const later = await a('/v1/jobs', { body: { ...BODY, domains: ['later.example'] }, headers: { 'idempotency-key': key } });
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(((await later.json()) as { job_id: string }).job_id).not.toBe(fromA.job_id);
    expect(await jobsOf('idem-a')).toBe(2);
  });

  it('refuses a key that is empty, too long or not printable ASCII, naming the header', async () => {
    const call = client(t.api.url, await tokenFor(t.db, 'idem-bad'));
    for (const key of ['', 'x'.repeat(256), 'clé', 'two words']) {
      const res = await call('/v1/jobs', { body: BODY, headers: { 'idempotency-key': key } });
      expect(res.status, key).toBe(400);
      const problem = (await res.json()) as { code: string; errors: { location: string; path: string }[] };
      expect(problem.code).toBe('validation_failed');
      expect(problem.errors[0]).toMatchObject({ location: 'headers' });
      expect(problem.errors[0]!.path).toContain('idempotency-key');
    }
    expect(await jobsOf('idem-bad')).toBe(0);
  });
});
