// A key sees only its own tenant: another tenant's job or key is "not found" everywhere, never a 403.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKey } from '../../../src/jobs/index.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { problemOf } from '../../helpers/http.ts';
import { client, startJobsApi, tokenFor, type JobsApi } from '../../helpers/jobs.ts';

let db: TestDatabase;
let api: JobsApi;
let alice: ReturnType<typeof client>;
let bob: ReturnType<typeof client>;
let aliceJob: string;
let bobJob: string;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startJobsApi(db);
  alice = client(api.url, await tokenFor(db, 'alice'));
  bob = client(api.url, await tokenFor(db, 'bob'));
  const create = async (as: typeof alice) =>
    ((await (await as('/v1/jobs', { body: { domains: ['example.com'], job_types: ['ping', 'moz'] } })).json()) as { job_id: string })
      .job_id;
  aliceJob = await create(alice);
  bobJob = await create(bob);
});
afterAll(async () => {
  await api.close();
  await db.pool.end();
});

async function expectNotFound(res: Response): Promise<void> {
  expect(res.status).toBe(404);
  expect((await problemOf(res)).code).toBe('not_found');
}

describe('tenant isolation', () => {
  it("read, results and cancel of another tenant's job are 404, exactly as for an unknown id", async () => {
    await expectNotFound(await bob(`/v1/jobs/${aliceJob}`));
    await expectNotFound(await bob(`/v1/jobs/${aliceJob}/results`));
    await expectNotFound(await bob(`/v1/jobs/${aliceJob}/results`, { headers: { accept: 'text/csv' } }));
    await expectNotFound(await bob(`/v1/jobs/${aliceJob}`, { method: 'DELETE' }));
    await expectNotFound(await bob('/v1/jobs/01234567-89ab-7def-8123-456789abcdef'));
    // The failed cancel left the job as it was.
    const own = (await (await alice(`/v1/jobs/${aliceJob}`)).json()) as { status: string };
    expect(own.status).toBe('queued');
  });

  it("never lists another tenant's jobs, and refuses its job ids as cursors", async () => {
    const list = (await (await bob('/v1/jobs?limit=100')).json()) as { jobs: { job_id: string }[] };
    expect(list.jobs.map((j) => j.job_id)).toEqual([bobJob]);
    const res = await bob(`/v1/jobs?cursor=${aliceJob}`);
    expect(res.status).toBe(400);
    expect((await problemOf(res)).code).toBe('invalid_cursor');
  });

  it("lists only its own tenant's keys and cannot revoke another tenant's key", async () => {
    const carol = await makeKey(db.pool, 'alice', 'carol', ['jobs:read']);
    const keys = (await (await bob('/v1/keys')).json()) as { keys: { id: string }[] };
    expect(keys.keys.map((k) => k.id)).not.toContain(carol.id);
    expect(keys.keys.length).toBeGreaterThan(0);
    await expectNotFound(await bob(`/v1/keys/${carol.id}`, { method: 'DELETE' }));
    expect((await client(api.url, carol.token)('/v1/jobs')).status).toBe(200);
  });

  it('a key made through the API belongs to the caller’s tenant', async () => {
    const made = (await (await bob('/v1/keys', { body: { name: 'reader', scopes: ['jobs:read'] } })).json()) as { token: string };
    const list = (await (await client(api.url, made.token)('/v1/jobs')).json()) as { jobs: { job_id: string }[] };
    expect(list.jobs.map((j) => j.job_id)).toEqual([bobJob]);
  });
});
