// Generated requests against every endpoint of the jobs API: whatever arrives, the answer is never a 5xx,
// and every refusal is a problem+json. 1,300 requests per run, from fast-check's arbitraries.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_SOURCES } from '../../../src/jobs/index.ts';
import { SCOPES } from '../../../src/jobs/keys.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { startJobsApi, tokenFor, type JobsApi } from '../../helpers/jobs.ts';

const SOURCE_NAMES = JOB_SOURCES.map((s) => s.name);

let db: TestDatabase;
let api: JobsApi;
let token: string;
let jobId: string;
const statuses = new Map<number, number>();

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startJobsApi(db);
  token = await tokenFor(db, 'fuzz');
  const res = await send('POST', '/v1/jobs', JSON.stringify({ domains: ['example.com'], job_types: ['ping'] }));
  jobId = ((await res.json()) as { job_id: string }).job_id;
});
afterAll(async () => {
  console.log(
    `fuzz: ${[...statuses.values()].reduce((a, b) => a + b, 0)} requests, statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
  );
  await api.close();
  await db.pool.end();
});

async function send(method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${api.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body,
  });
}

/** The property every generated request must hold. */
async function answersWell(res: Response): Promise<void> {
  statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  const text = await res.text();
  expect(res.status, text).toBeLessThan(500);
  if (res.status >= 400) {
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = JSON.parse(text) as { status: number; code: string };
    expect(problem.status).toBe(res.status);
    expect(problem.code).toMatch(/^[a-z_]+$/);
  }
}

const hostish = fc.oneof(
  fc.domain(),
  fc.webUrl(),
  fc.ipV4(),
  fc.ipV6(),
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('xn--', 'xn--zz.com', '.', '..', 'a..b', 'ä.ß.例え', '\u0000.com', 'a'.repeat(300), '1.2.3', '[::1]:80'),
);
const jobBody = fc.record(
  {
    domains: fc.oneof(fc.array(hostish, { maxLength: 12 }), fc.anything()),
    job_types: fc.oneof(
      fc.uniqueArray(fc.constantFrom(...SOURCE_NAMES)),
      fc.array(fc.oneof(fc.constantFrom(...SOURCE_NAMES), fc.string())),
    ),
    webhook_url: fc.oneof(fc.webUrl({ withQueryParameters: true, withFragments: true }), fc.string(), fc.constant(null), fc.integer()),
    extra: fc.anything(),
  },
  { requiredKeys: [] },
);
const keyBody = fc.record(
  {
    name: fc.oneof(fc.string({ maxLength: 120 }), fc.anything()),
    scopes: fc.oneof(fc.subarray([...SCOPES]), fc.array(fc.string()), fc.anything()),
  },
  { requiredKeys: [] },
);
const run = (numRuns: number) => ({ numRuns, endOnFailure: true });

describe('fuzz: no request gets a 5xx', () => {
  it('POST /v1/jobs with 400 shaped bodies and 200 arbitrary JSON values', async () => {
    await fc.assert(
      fc.asyncProperty(jobBody, async (body) => answersWell(await send('POST', '/v1/jobs', JSON.stringify(body)))),
      run(400),
    );
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (body) => answersWell(await send('POST', '/v1/jobs', JSON.stringify(body)))),
      run(200),
    );
  });

  it('POST /v1/jobs and /v1/keys with 100 raw bodies that are mostly not JSON', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 200 }), fc.constantFrom('/v1/jobs', '/v1/keys'), async (raw, path) =>
        answersWell(await send('POST', path, raw)),
      ),
      run(100),
    );
  });

  it('POST /v1/keys with 150 generated bodies', async () => {
    await fc.assert(
      fc.asyncProperty(keyBody, async (body) => answersWell(await send('POST', '/v1/keys', JSON.stringify(body)))),
      run(150),
    );
  });

  it('GET /v1/jobs with 250 generated query strings', async () => {
    const query = fc.oneof(
      fc.dictionary(
        fc.constantFrom('limit', 'cursor', 'x', 'limit[]'),
        fc.oneof(fc.string(), fc.integer().map(String), fc.uuid().map(String)),
      ),
      fc.dictionary(fc.string(), fc.string()),
    );
    await fc.assert(
      fc.asyncProperty(query, async (q) => answersWell(await send('GET', `/v1/jobs?${new URLSearchParams(q)}`))),
      run(200),
    );
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary' }), async (q) => answersWell(await send('GET', `/v1/jobs?${encodeURI(q)}`))),
      run(50),
    );
  });

  it('200 generated path ids and Accept headers on read, results, cancel and key revocation', async () => {
    const id = fc.oneof(fc.string({ minLength: 1 }), fc.uuid().map(String), fc.constant('%00'), fc.constant('..%2F..'));
    const route = fc.constantFrom(
      (s: string) => ['GET', `/v1/jobs/${s}`],
      (s: string) => ['GET', `/v1/jobs/${s}/results`],
      (s: string) => ['DELETE', `/v1/jobs/${s}`],
      (s: string) => ['DELETE', `/v1/keys/${s}`],
    );
    await fc.assert(
      fc.asyncProperty(id, route, fc.string(), async (s, make, accept) => {
        const [method, path] = make(encodeURIComponent(s));
        return answersWell(await send(method!, path!, undefined, { accept: accept.replace(/[^\t\x20-\x7e]/g, '') }));
      }),
      run(200),
    );
  });

  it('results of a real job under 50 generated Accept headers; the service still answers afterwards', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string(), async (accept) =>
        answersWell(await send('GET', `/v1/jobs/${jobId}/results`, undefined, { accept: accept.replace(/[^\t\x20-\x7e]/g, '') })),
      ),
      run(50),
    );
    expect((await fetch(`${api.url}/readyz`)).status).toBe(200);
    expect([...statuses.values()].reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1300);
  });
});
