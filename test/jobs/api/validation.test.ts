// Every request rule of the jobs API (docs/api/jobs-reference.md; docs/decisions.md, "Jobs API") → 400
// problem+json with its code, naming what is wrong; and what normalisation keeps.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { problemOf } from '../../helpers/http.ts';
import { client, startJobsApi, tokenFor, type JobsApi } from '../../helpers/jobs.ts';

let db: TestDatabase;
let api: JobsApi;
let call: ReturnType<typeof client>;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startJobsApi(db, { env: { JOBS_MAX_DOMAINS: '5' } });
  call = client(api.url, await tokenFor(db, 'acme'));
});
afterAll(async () => {
  await api.close();
  await db.pool.end();
});

const ok = { domains: ['example.com'], job_types: ['ping'] };

async function expectInvalid(res: Response, path: string, message: RegExp, code = 'validation_failed'): Promise<void> {
  const problem = await problemOf(res);
  expect(res.status, JSON.stringify(problem)).toBe(400);
  expect(problem.code).toBe(code);
  if (code === 'validation_failed') {
    const errors = problem.errors as { path: string; message: string }[];
    const issue = errors.find((e) => e.path === path);
    expect(issue, `no issue at ${path}: ${JSON.stringify(errors)}`).toBeDefined();
    expect(issue!.message).toMatch(message);
  }
}

describe('POST /v1/jobs: domains', () => {
  it.each([
    ['missing', { job_types: ['ping'] }, '/domains', /is required/],
    ['not an array', { domains: 'example.com', job_types: ['ping'] }, '/domains', /must be array/],
    ['empty', { domains: [], job_types: ['ping'] }, '/domains', /fewer than 1/],
    [
      'over JOBS_MAX_DOMAINS (5 here)',
      { domains: ['a.com', 'b.com', 'c.com', 'd.com', 'e.com', 'f.com'], job_types: ['ping'] },
      '/domains',
      /more than 5/,
    ],
    ['a non-string entry', { domains: ['a.com', 7], job_types: ['ping'] }, '/domains/1', /must be string/],
  ])('%s → 400', async (_what, body, path, message) => {
    await expectInvalid(await call('/v1/jobs', { body }), path, message);
  });

  it.each([
    ['an IP literal', '192.0.2.1', /is an IP address/],
    ['an IPv6 literal', '[2001:db8::1]', /is an IP address/],
    ['a URL', 'https://example.com', /is a URL/],
    ['a path', 'example.com/about', /contains a path/],
    ['a port', 'example.com:443', /contains a port/],
    ['one label', 'intranet', /at least two labels/],
    ['an invalid label', 'ex_ample.com', /character not allowed/],
    ['a label with a leading hyphen', '-x.example.com', /invalid label/],
    ['over 253 characters', `${Array(70).fill('abc').join('.')}.com`, /longer than 253/],
    ['an empty string', '  ', /is empty/],
  ])('refuses %s, naming its index', async (_what, bad, message) => {
    const res = await call('/v1/jobs', { body: { domains: ['fine.example', 'also.example', bad], job_types: ['ping'] } });
    await expectInvalid(res, '/domains/2', message);
    const problem = (await call('/v1/jobs', { body: { domains: [bad], job_types: ['ping'] } }).then((r) => r.json())) as { detail: string };
    expect(problem.detail).toContain('/domains/0');
  });

  it('reports every bad entry at once', async () => {
    const res = await call('/v1/jobs', { body: { domains: ['1.2.3.4', 'good.com', 'http://x.com'], job_types: ['ping'] } });
    const problem = await problemOf(res);
    expect((problem.errors as { path: string }[]).map((e) => e.path)).toEqual(['/domains/0', '/domains/2']);
  });

  it('normalises (trim, case, trailing dot, IDN) and drops duplicates keeping first-seen order', async () => {
    const res = await call('/v1/jobs', {
      body: { domains: [' Example.COM. ', 'bücher.de', 'example.com', 'XN--BCHER-KVA.DE', 'other.org'], job_types: ['ping', 'wayback'] },
    });
    expect(res.status).toBe(201);
    const job = (await res.json()) as { domains: string[]; domain_count: number; progress: { total: number } };
    expect(job.domains).toEqual(['example.com', 'xn--bcher-kva.de', 'other.org']);
    expect(job.domain_count).toBe(3);
    expect(job.progress.total).toBe(6);
  });
});

describe('POST /v1/jobs: job_types, webhook_url, body', () => {
  it.each([
    ['missing', { domains: ['a.com'] }, '/job_types', /is required/],
    ['empty', { domains: ['a.com'], job_types: [] }, '/job_types', /fewer than 1/],
    [
      'unknown, listing the allowed values',
      { domains: ['a.com'], job_types: ['ping', 'pagerank'] },
      '/job_types/1',
      /seokicks.*moz.*ahrefs_backlinks.*ahrefs_traffic.*wayback.*ping/,
    ],
    ['repeated', { domains: ['a.com'], job_types: ['ping', 'ping'] }, '/job_types', /duplicate/],
    ['not strings', { domains: ['a.com'], job_types: [1] }, '/job_types/0', /must be one of/],
  ])('job_types %s → 400', async (_what, body, path, message) => {
    await expectInvalid(await call('/v1/jobs', { body }), path, message);
  });

  it.each([
    ['not a URL', 'not a url', /not an absolute URL/],
    ['relative', '/hooks/done', /not an absolute URL/],
    ['another scheme', 'ftp://example.com/hook', /http or https/],
    ['too long', `https://example.com/${'a'.repeat(2048)}`, /more than 2048/],
    ['a loopback address', 'http://127.0.0.1:9000/hook', /private or loopback/],
    ['a private address', 'http://[fd00::1]/hook', /private or loopback/],
    ['localhost', 'http://localhost/hook', /private or loopback/],
    ['a number', 42, /must be string/],
  ])('webhook_url %s → 400', async (_what, url, message) => {
    await expectInvalid(await call('/v1/jobs', { body: { ...ok, webhook_url: url } }), '/webhook_url', message);
  });

  it('an accepted webhook_url gets a 64-hex secret once; none without one', async () => {
    const withHook = (await (
      await call('/v1/jobs', { body: { ...ok, webhook_url: 'https://hooks.example.com/done?x=1' } })
    ).json()) as Record<string, unknown>;
    expect(withHook.webhook_secret).toMatch(/^[0-9a-f]{64}$/);
    expect(withHook.webhook_url).toBe('https://hooks.example.com/done?x=1');
    const read = (await (await call(`/v1/jobs/${withHook.job_id}`)).json()) as Record<string, unknown>;
    expect(read.webhook_secret).toBeUndefined();
    for (const body of [ok, { ...ok, webhook_url: null }]) {
      const job = (await (await call('/v1/jobs', { body })).json()) as Record<string, unknown>;
      expect(job).not.toHaveProperty('webhook_secret');
      expect(job.webhook_url).toBeNull();
    }
  });

  it('unknown fields → 400 naming them', async () => {
    await expectInvalid(await call('/v1/jobs', { body: { ...ok, priority: 'high' } }), '/priority', /not a known field/);
  });

  it('malformed JSON → 400 invalid_json; not JSON → 415; a body that is not an object → 400', async () => {
    await expectInvalid(await call('/v1/jobs', { body: '{"domains": [' }), '', /./, 'invalid_json');
    const text = await call('/v1/jobs', { body: 'domains=a.com', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(text.status).toBe(415);
    expect((await problemOf(text)).code).toBe('unsupported_media_type');
    await expectInvalid(await call('/v1/jobs', { body: '[1,2]' }), '', /must be object/);
  });

  it('a body over the size limit → 413', async () => {
    const res = await call('/v1/jobs', { body: { domains: ['a'.repeat(2 * 1024 * 1024)], job_types: ['ping'] } });
    expect(res.status).toBe(413);
    expect((await problemOf(res)).code).toBe('payload_too_large');
  });
});

describe('GET /v1/jobs query', () => {
  it.each([
    ['limit=0', '/limit', /must be >= 1/],
    ['limit=101', '/limit', /must be <= 100/],
    ['limit=ten', '/limit', /must be integer/],
    ['limit=1.5', '/limit', /must be integer/],
    ['sort=asc', '/sort', /not a known field/],
  ])('%s → 400 validation_failed', async (query, path, message) => {
    await expectInvalid(await call(`/v1/jobs?${query}`), path, message);
  });

  it.each(['cursor=abc', 'cursor=01234567-89ab-7def-8123-456789abcdef', 'cursor='])('%s → 400 invalid_cursor', async (query) => {
    await expectInvalid(await call(`/v1/jobs?${query}`), '', /./, 'invalid_cursor');
  });
});

describe('POST /v1/keys body', () => {
  it.each([
    ['no name', { scopes: ['jobs:read'] }, '/name', /is required/],
    ['an empty name', { name: '', scopes: ['jobs:read'] }, '/name', /fewer than 1/],
    ['a long name', { name: 'n'.repeat(101), scopes: ['jobs:read'] }, '/name', /more than 100/],
    ['no scopes', { name: 'k' }, '/scopes', /is required/],
    ['empty scopes', { name: 'k', scopes: [] }, '/scopes', /fewer than 1/],
    ['an unknown scope', { name: 'k', scopes: ['jobs:delete'] }, '/scopes/0', /jobs:create, jobs:read, keys:admin, keys:read/],
    ['a repeated scope', { name: 'k', scopes: ['jobs:read', 'jobs:read'] }, '/scopes', /duplicate/],
    ['an unknown field', { name: 'k', scopes: ['jobs:read'], tenant: 'other' }, '/tenant', /not a known field/],
  ])('%s → 400', async (_what, body, path, message) => {
    await expectInvalid(await call('/v1/keys', { body }), path, message);
  });
});

describe('ids in paths', () => {
  it.each(['/v1/jobs/not-a-uuid', '/v1/jobs/not-a-uuid/results', '/v1/jobs/%00'])('GET %s → 404', async (path) => {
    const res = await call(path);
    expect(res.status).toBe(404);
    expect((await problemOf(res)).code).toBe('not_found');
  });

  it('DELETE with ids that are not UUIDs → 404', async () => {
    for (const path of ['/v1/jobs/123', '/v1/keys/123']) {
      const res = await call(path, { method: 'DELETE' });
      expect(res.status).toBe(404);
      expect((await problemOf(res)).code).toBe('not_found');
    }
  });
});
