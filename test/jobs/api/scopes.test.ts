// Every endpoint × every scope set → the documented 2xx, 401 or 403 (docs/api/README.md, "Credentials").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKey } from '../../../src/jobs/index.ts';
import { SCOPES, type Scope } from '../../../src/jobs/keys.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { problemOf } from '../../helpers/http.ts';
import { client, startJobsApi, tokenFor, type JobsApi } from '../../helpers/jobs.ts';

let db: TestDatabase;
let api: JobsApi;
let jobId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startJobsApi(db);
  const admin = client(api.url, await tokenFor(db, 'matrix'));
  jobId = ((await (await admin('/v1/jobs', { body: { domains: ['example.com'], job_types: ['ping'] } })).json()) as { job_id: string })
    .job_id;
});
afterAll(async () => {
  await api.close();
  await db.pool.end();
});

/** A new queued job of the tenant, paused if asked. */
async function freshJob(paused = false): Promise<string> {
  const admin = client(api.url, await tokenFor(db, 'matrix'));
  const { job_id: id } = (await (await admin('/v1/jobs', { body: { domains: ['example.net'], job_types: ['ping'] } })).json()) as {
    job_id: string;
  };
  if (paused) expect((await admin(`/v1/jobs/${id}`, { method: 'DELETE' })).status).toBe(200);
  return id;
}

/** Makes the endpoint's request with these credential headers. */
type Call = (credentials: Record<string, string>) => Promise<Response>;
interface Endpoint {
  name: string;
  scope: Scope;
  ok: number;
  call: () => Promise<Call>;
}

const body = (value: unknown) => ({ 'content-type': 'application/json', body: JSON.stringify(value) });
const request = (method: string, path: string, extra: { 'content-type'?: string; body?: string } = {}): Call => {
  const { body: payload, ...headers } = extra;
  return (credentials) => fetch(`${api.url}${path}`, { method, headers: { ...credentials, ...headers }, body: payload });
};

const ENDPOINTS: Endpoint[] = [
  {
    name: 'POST /v1/jobs',
    scope: 'jobs:create',
    ok: 201,
    call: async () => request('POST', '/v1/jobs', body({ domains: ['example.org'], job_types: ['moz'] })),
  },
  { name: 'GET /v1/jobs', scope: 'jobs:read', ok: 200, call: async () => request('GET', '/v1/jobs') },
  { name: 'GET /v1/jobs/{id}', scope: 'jobs:read', ok: 200, call: async () => request('GET', `/v1/jobs/${jobId}`) },
  { name: 'GET /v1/jobs/{id}/results', scope: 'jobs:read', ok: 200, call: async () => request('GET', `/v1/jobs/${jobId}/results`) },
  { name: 'GET /v1/usage', scope: 'jobs:read', ok: 200, call: async () => request('GET', '/v1/usage') },
  {
    name: 'PUT /v1/budgets',
    scope: 'keys:admin',
    ok: 200,
    call: async () => request('PUT', '/v1/budgets', body({ source: 'moz', monthly_limit: 1000 })),
  },
  { name: 'GET /v1/budgets', scope: 'jobs:read', ok: 200, call: async () => request('GET', '/v1/budgets') },
  { name: 'DELETE /v1/jobs/{id}', scope: 'jobs:create', ok: 200, call: async () => request('DELETE', `/v1/jobs/${jobId}`) },
  // The transitions act on a job of their own each time, in the state where they apply.
  {
    name: 'POST /v1/jobs/{id}/resume',
    scope: 'jobs:create',
    ok: 200,
    call: async () => request('POST', `/v1/jobs/${await freshJob(true)}/resume`),
  },
  {
    name: 'POST /v1/jobs/{id}/cancel',
    scope: 'jobs:create',
    ok: 200,
    call: async () => request('POST', `/v1/jobs/${await freshJob()}/cancel`),
  },
  // No worker runs here, so no job ever ends: past the scope, retry answers the state's 409.
  {
    name: 'POST /v1/jobs/{id}/retry',
    scope: 'jobs:create',
    ok: 409,
    call: async () => request('POST', `/v1/jobs/${await freshJob()}/retry`),
  },
  {
    name: 'POST /v1/keys',
    scope: 'keys:admin',
    ok: 201,
    call: async () => request('POST', '/v1/keys', body({ name: 'k', scopes: ['jobs:read'] })),
  },
  { name: 'GET /v1/keys', scope: 'keys:read', ok: 200, call: async () => request('GET', '/v1/keys') },
  {
    name: 'DELETE /v1/keys/{id}',
    scope: 'keys:admin',
    ok: 204,
    // Each case revokes a key of its own, so the tenant's admin keys are never the target.
    call: async () => request('DELETE', `/v1/keys/${(await makeKey(db.pool, 'matrix', 'victim', ['jobs:read'])).id}`),
  },
];

/** All 15 non-empty subsets of the four scopes. */
const SCOPE_SETS: Scope[][] = [];
for (let mask = 1; mask < 1 << SCOPES.length; mask++) SCOPE_SETS.push(SCOPES.filter((_, i) => mask & (1 << i)));

describe('scope matrix', () => {
  it.each(ENDPOINTS)('$name answers by scope: $ok with $scope, 403 missing_scope without', async (endpoint) => {
    const seen: string[] = [];
    for (const scopes of SCOPE_SETS) {
      const token = await tokenFor(db, 'matrix', scopes);
      const res = await (await endpoint.call())({ authorization: `Bearer ${token}` });
      const expected = scopes.includes(endpoint.scope) ? endpoint.ok : 403;
      seen.push(`${scopes.join('+')}: ${res.status}`);
      expect(res.status, `${endpoint.name} with ${scopes.join(',')}`).toBe(expected);
      if (expected === 403) {
        const problem = await problemOf(res);
        expect(problem.code).toBe('missing_scope');
        expect(problem.required_scope).toBe(endpoint.scope);
      } else {
        await res.arrayBuffer();
      }
    }
    expect(seen).toHaveLength(15);
  });

  it('the OpenAPI document names the same scope for every endpoint, and has no endpoint the matrix lacks', async () => {
    const doc = (await (await fetch(`${api.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>>;
    };
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => op.security?.length)
        .map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, security: op.security })),
    );
    expect(documented.map((d) => d.name).sort()).toEqual(ENDPOINTS.map((e) => e.name).sort());
    for (const { name, security } of documented) {
      const { scope } = ENDPOINTS.find((e) => e.name === name)!;
      expect(security, name).toEqual([{ bearer: [scope] }, { apiKey: [scope] }]);
    }
  });
});

describe('credentials', () => {
  let revoked: string;
  beforeAll(async () => {
    const key = await makeKey(db.pool, 'matrix', 'revoked', [...SCOPES]);
    await db.pool.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [key.id]);
    revoked = key.token;
  });

  const BAD: [string, () => Record<string, string>][] = [
    ['no credentials', () => ({})],
    ['an unknown well-formed token', () => ({ authorization: `Bearer dm_jobs_${'A'.repeat(43)}` })],
    ['a malformed token', () => ({ authorization: 'Bearer not-a-key' })],
    ['a Basic scheme', () => ({ authorization: 'Basic dXNlcjpwYXNz' })],
    ['an empty X-API-Key', () => ({ 'x-api-key': '' })],
    ['a revoked key', () => ({ authorization: `Bearer ${revoked}` })],
    ['a revoked key as X-API-Key', () => ({ 'x-api-key': revoked })],
  ];

  it.each(ENDPOINTS)('$name answers 401 unauthorized with a Bearer challenge to every bad credential', async (endpoint) => {
    const call = await endpoint.call();
    for (const [what, headers] of BAD) {
      const res = await call(headers());
      expect(res.status, `${endpoint.name} with ${what}`).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect((await problemOf(res)).code).toBe('unauthorized');
    }
  });

  it('accepts the key as X-API-Key as well as Bearer, and refuses two different keys at once', async () => {
    const token = await tokenFor(db, 'matrix', ['jobs:read']);
    const other = await tokenFor(db, 'matrix', ['jobs:read']);
    expect((await fetch(`${api.url}/v1/jobs`, { headers: { 'x-api-key': token } })).status).toBe(200);
    expect((await fetch(`${api.url}/v1/jobs`, { headers: { authorization: `bearer ${token}` } })).status).toBe(200);
    expect((await fetch(`${api.url}/v1/jobs`, { headers: { authorization: `Bearer ${token}`, 'x-api-key': token } })).status).toBe(200);
    const both = await fetch(`${api.url}/v1/jobs`, { headers: { authorization: `Bearer ${token}`, 'x-api-key': other } });
    expect(both.status).toBe(401);
    expect((await problemOf(both)).detail).toMatch(/different keys/);
  });

  it('authenticates before reading the body: a bad body without a key is 401, not 400 or 415', async () => {
    for (const [type, payload] of [
      ['application/json', '{not json'],
      ['text/plain', 'hello'],
    ]) {
      const res = await fetch(`${api.url}/v1/jobs`, { method: 'POST', headers: { 'content-type': type! }, body: payload });
      expect(res.status).toBe(401);
      await res.arrayBuffer();
    }
  });

  it('a key without a scope cannot exist: the database refuses it', async () => {
    const tenant = (await db.pool.query<{ id: string }>('SELECT id FROM tenants WHERE name = $1', ['matrix'])).rows[0]!.id;
    await expect(
      db.pool.query(
        `INSERT INTO api_keys (id, tenant_id, name, scopes, token_hash, token_prefix) VALUES (gen_random_uuid(), $1, 'none', '{}', 'x', 'dm_jobs_')`,
        [tenant],
      ),
    ).rejects.toThrow(/check constraint/);
  });
});
