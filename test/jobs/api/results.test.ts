// GET /v1/jobs/{id}/results beyond the whole answer: pages by cursor, filters by source and status, NDJSON, and
// a client that leaves in the middle of a stream. The paging job is run to completion by the engine (worker
// role in this process) against the fake providers; the large job for the stream is written through the store.
import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startAhrefsFake } from '../../../src/dev/fakes/ahrefs.ts';
import { startSeokicksFake } from '../../../src/dev/fakes/seokicks.ts';
import type { Fake } from '../../../src/dev/fakes/server.ts';
import { createLogger } from '../../../src/platform/log.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { problemOf } from '../../helpers/http.ts';
import { client, startJobsApi, tokenFor, type JobsApi } from '../../helpers/jobs.ts';
import { fillResults, referringPayload } from '../../helpers/results.ts';

let db: TestDatabase;
let api: JobsApi;
let fakes: Fake[];
let call: ReturnType<typeof client>;
const logLines: Record<string, unknown>[] = [];

const SOURCES = ['seokicks', 'ahrefs_backlinks', 'ahrefs_traffic'];
// 40 domains: the fakes refuse auth-fail.* (401) and know nothing of nodata.*, so some rows end as errors.
const DOMAINS = Array.from({ length: 40 }, (_, i) =>
  i % 9 === 4 ? `auth-fail.d${i}.example` : i % 7 === 3 ? `nodata.d${i}.example` : `d${i}.example`,
);
let jobId: string;

interface Row {
  domain: string;
  source: string;
  status: 'ok' | 'error';
  [k: string]: unknown;
}
interface Page {
  job_id: string;
  status: string;
  results: Row[];
  next_cursor: string | null;
}

beforeAll(async () => {
  db = await createTestDatabase();
  const seokicks = await startSeokicksFake({ apiKey: 'sk' });
  const ahrefs = await startAhrefsFake({ apiKey: 'ah' });
  fakes = [seokicks, ahrefs];
  const log = createLogger(
    { level: 'info' },
    new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) logLines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    }),
  );
  api = await startJobsApi(db, {
    worker: true,
    log,
    env: {
      ALLOW_PRIVATE_NETWORK: 'true',
      SEOKICKS_API_KEY: 'sk',
      SEOKICKS_BASE_URL: seokicks.url,
      AHREFS_API_KEY: 'ah',
      AHREFS_BASE_URL: `${ahrefs.url}/v3`,
    },
  });
  call = client(api.url, await tokenFor(db, 'acme'));
  const created = await call('/v1/jobs', { body: { domains: DOMAINS, job_types: SOURCES } });
  jobId = ((await created.json()) as { job_id: string }).job_id;
  await vi.waitFor(
    async () => {
      const { status } = (await (await call(`/v1/jobs/${jobId}`)).json()) as { status: string };
      if (status !== 'completed') throw new Error(`job ${status}`);
    },
    { timeout: 60_000, interval: 200 },
  );
}, 90_000);
afterAll(async () => {
  await api?.close();
  await Promise.all((fakes ?? []).map((f) => f.close()));
  await db?.pool.end();
});

const key = (r: Row) => `${r.domain}/${r.source}`;

async function whole(query = ''): Promise<Row[]> {
  const res = await call(`/v1/jobs/${jobId}/results${query}`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { results: Row[]; next_cursor?: unknown };
  expect(body).not.toHaveProperty('next_cursor');
  return body.results;
}

/** Follows next_cursor from the first page to the last; every page is at most `limit` rows. */
async function walk(limit: number, filters = ''): Promise<{ rows: Row[]; pages: number }> {
  const rows: Row[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await call(`/v1/jobs/${jobId}/results?limit=${limit}${filters}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(res.status, await res.clone().text()).toBe(200);
    const page = (await res.json()) as Page;
    expect(page).toMatchObject({ job_id: jobId, status: 'completed' });
    expect(page.results.length).toBeLessThanOrEqual(limit);
    if (page.next_cursor !== null) expect(page.results).toHaveLength(limit);
    rows.push(...page.results);
    cursor = page.next_cursor;
    pages++;
  } while (cursor !== null && pages < 1000);
  return { rows, pages };
}

describe('the job run to completion', () => {
  it('has ok and error rows from every source', async () => {
    const rows = await whole();
    expect(rows).toHaveLength(DOMAINS.length * SOURCES.length);
    const errors = rows.filter((r) => r.status === 'error');
    expect(errors.length).toBeGreaterThan(10);
    expect(new Set(errors.map((r) => r.source))).toEqual(new Set(SOURCES));
    expect(rows.map((r) => r.domain).filter((d, i, all) => all.indexOf(d) === i)).toEqual(DOMAINS);
  });
});

describe('pages by cursor', () => {
  it.each([1, 7, 60, 119, 120, 1000])('limit=%i walks every row exactly once, in the order of the whole answer', async (limit) => {
    const all = await whole();
    const { rows, pages } = await walk(limit);
    expect(rows).toEqual(all);
    expect(new Set(rows.map(key)).size).toBe(all.length);
    expect(pages).toBe(Math.max(1, Math.ceil(all.length / limit)));
  });

  it.each([
    ['&source=ahrefs_traffic', (r: Row) => r.source === 'ahrefs_traffic'],
    ['&status=error', (r: Row) => r.status === 'error'],
    ['&status=ok&source=seokicks', (r: Row) => r.status === 'ok' && r.source === 'seokicks'],
  ])('with filters %s: every matching row once, and no other', async (filters, matches) => {
    const expected = (await whole()).filter(matches);
    expect(expected.length).toBeGreaterThan(0);
    for (const limit of [1, 4, 1000]) {
      const { rows } = await walk(limit, filters);
      expect(rows.map(key)).toEqual(expected.map(key));
      expect(rows).toEqual(expected);
    }
  });

  it('a cursor alone gives the next 100 rows with the filters it was made with; other filters are refused', async () => {
    const all = await whole();
    const first = (await (await call(`/v1/jobs/${jobId}/results?limit=3&source=seokicks`)).json()) as Page;
    const rest = (await (await call(`/v1/jobs/${jobId}/results?cursor=${first.next_cursor}`)).json()) as Page;
    const seokicks = all.filter((r) => r.source === 'seokicks');
    expect(rest.results).toEqual(seokicks.slice(3, 103));
    expect(rest.next_cursor).toBeNull();
    const same = await call(`/v1/jobs/${jobId}/results?cursor=${first.next_cursor}&source=seokicks&limit=2`);
    expect(((await same.json()) as Page).results).toEqual(seokicks.slice(3, 5));

    const other = await call(`/v1/jobs/${jobId}/results?cursor=${first.next_cursor}&source=ahrefs_traffic&limit=2`);
    expect(other.status).toBe(400);
    expect((await problemOf(other)).code).toBe('invalid_cursor');
    const otherStatus = await call(`/v1/jobs/${jobId}/results?cursor=${first.next_cursor}&status=ok`);
    expect((await problemOf(otherStatus)).code).toBe('invalid_cursor');
  });

  it('a cursor of another job, or one the API did not make, is 400 invalid_cursor', async () => {
    const other = (await (await call('/v1/jobs', { body: { domains: ['x.example', 'y.example'], job_types: ['seokicks'] } })).json()) as {
      job_id: string;
    };
    const page = (await (await call(`/v1/jobs/${jobId}/results?limit=1`)).json()) as Page;
    const decoded = Buffer.from(page.next_cursor!, 'base64url').toString();
    const forged = (text: string) => Buffer.from(text).toString('base64url');
    for (const [path, why] of [
      [`/v1/jobs/${other.job_id}/results?limit=1&cursor=${page.next_cursor}`, 'another job'],
      [`/v1/jobs/${jobId}/results?limit=1&cursor=garbage`, 'garbage'],
      [`/v1/jobs/${jobId}/results?limit=1&cursor=${page.next_cursor}x`, 'a character added'],
      [`/v1/jobs/${jobId}/results?limit=1&cursor=${forged(decoded.replace(/\.[a-z_]+$/, '.nosuchsource'))}`, 'an unknown source'],
      [`/v1/jobs/${jobId}/results?limit=1&cursor=${forged(decoded.replace(/^r1/, 'r9'))}`, 'another version'],
      [`/v1/jobs/${jobId}/results?cursor=`, 'empty'],
    ] as const) {
      const res = await call(path);
      expect(res.status, why).toBe(400);
      expect((await problemOf(res)).code, why).toBe('invalid_cursor');
    }
  });

  it('refuses a limit out of range, a source the job does not have, an unknown status, and paging CSV or NDJSON', async () => {
    for (const [query, path] of [
      ['?limit=0', '/limit'],
      ['?limit=1001', '/limit'],
      ['?limit=ten', '/limit'],
      ['?source=moz', '/source'],
      ['?source=nosuch', '/source'],
      ['?status=pending', '/status'],
    ] as const) {
      const res = await call(`/v1/jobs/${jobId}/results${query}`);
      expect(res.status, query).toBe(400);
      const problem = await problemOf(res);
      expect(problem.code, query).toBe('validation_failed');
      if (path) expect(problem.errors, query).toEqual([expect.objectContaining({ location: 'query', path })]);
    }
    for (const accept of ['text/csv', 'application/x-ndjson']) {
      const res = await call(`/v1/jobs/${jobId}/results?limit=5`, { headers: { accept } });
      expect((await problemOf(res)).code, accept).toBe('validation_failed');
    }
    // A parameter it does not know is ignored, as before paging existed (a cache-buster keeps working).
    const busted = await call(`/v1/jobs/${jobId}/results?_=${Date.now()}`);
    expect(busted.status).toBe(200);
    expect(await busted.json()).toEqual(await (await call(`/v1/jobs/${jobId}/results`)).json());
  });
});

describe('filters without limit', () => {
  it('answer every matching row in the whole form, and in CSV', async () => {
    const all = await whole();
    expect(await whole('?status=error')).toEqual(all.filter((r) => r.status === 'error'));
    expect(await whole('?source=ahrefs_backlinks')).toEqual(all.filter((r) => r.source === 'ahrefs_backlinks'));
    expect(await whole('?source=seokicks&status=ok')).toEqual(all.filter((r) => r.source === 'seokicks' && r.status === 'ok'));

    const csv = await call(`/v1/jobs/${jobId}/results?status=error`, { headers: { accept: 'text/csv' } });
    const lines = (await csv.text()).trimEnd().split('\r\n');
    const errors = all.filter((r) => r.status === 'error');
    expect(lines).toHaveLength(errors.length + 1);
    expect(lines.slice(1).map((l) => l.split(',').slice(0, 3).join(','))).toEqual(errors.map((r) => `${r.domain},${r.source},error`));
  });
});

describe('NDJSON (Accept: application/x-ndjson)', () => {
  it('streams one row per line, byte for byte the rows of the JSON answer, in its order; filters apply', async () => {
    for (const filters of ['', '?status=error', '?source=ahrefs_traffic&status=ok']) {
      const json = await call(`/v1/jobs/${jobId}/results${filters}`);
      const text = await json.text();
      // The rows of the JSON answer as the server wrote them: the text between "results":[ and the closing ]}.
      const rowsText = text.slice(text.indexOf('"results":[') + '"results":['.length, -2);
      const ndjson = await call(`/v1/jobs/${jobId}/results${filters}`, { headers: { accept: 'application/x-ndjson' } });
      expect(ndjson.status).toBe(200);
      expect(ndjson.headers.get('content-type')).toBe('application/x-ndjson');
      const body = await ndjson.text();
      expect(body.endsWith('\n')).toBe(true);
      const lines = body.slice(0, -1).split('\n');
      expect(lines.join(',')).toBe(rowsText);
      expect(lines.map((l) => JSON.parse(l) as Row)).toEqual((JSON.parse(text) as { results: Row[] }).results);
    }
  });

  it('a job without matching rows streams an empty body; errors stay problems', async () => {
    // The fake refuses auth-fail.* (401): whether the worker has fetched it yet or not, no row of it is ok.
    const queued = (await (await call('/v1/jobs', { body: { domains: ['auth-fail.q.example'], job_types: ['seokicks'] } })).json()) as {
      job_id: string;
    };
    const empty = await call(`/v1/jobs/${queued.job_id}/results?status=ok`, { headers: { accept: 'application/x-ndjson' } });
    expect(empty.status).toBe(200);
    expect(await empty.text()).toBe('');
    const missing = await call('/v1/jobs/00000000-0000-7000-8000-000000000000/results', { headers: { accept: 'application/x-ndjson' } });
    expect((await problemOf(missing)).code).toBe('not_found');
  });

  it('stops reading rows when the client goes away mid-stream', { timeout: 60_000 }, async () => {
    // 4,000 rows of about 7 KB: far more than socket buffers hold. Sources whose worker calls stay local.
    const domains = Array.from({ length: 1000 }, (_, i) => `big${i}.example`);
    const sources = ['seokicks', 'moz', 'ahrefs_backlinks', 'ahrefs_traffic'];
    const big = (await (await call('/v1/jobs', { body: { domains, job_types: sources } })).json()) as { job_id: string };
    await call(`/v1/jobs/${big.job_id}`, { method: 'DELETE' }); // paused: the worker leaves the rest of its tasks alone
    await fillResults(db.pool, big.job_id, { raw: (d) => referringPayload(d, 100) });

    // A client that reads the first bytes, then closes its connection.
    const token = await tokenFor(db, 'acme');
    const received = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${api.url}/v1/jobs/${big.job_id}/results`, {
        headers: { authorization: `Bearer ${token}`, accept: 'application/x-ndjson' },
      });
      req.on('response', (res) => {
        res.once('data', (chunk: Buffer) => {
          req.destroy();
          resolve(chunk.length);
        });
      });
      req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
      req.end();
    });
    expect(received).toBeGreaterThan(0);
    await expect
      .poll(() => logLines.find((l) => l.msg === 'results stream closed before its end' && l.job_id === big.job_id), { timeout: 20_000 })
      .toBeDefined();
    const closed = logLines.find((l) => l.msg === 'results stream closed before its end' && l.job_id === big.job_id)!;
    // What was handed to the response before the close: some pages' worth, not the 4,000 rows.
    expect(closed.rows_sent).toBeLessThan(4000);
    // The rows not sent were never read: the API's pool is idle again and answers the next request.
    const after = await call(`/v1/jobs/${big.job_id}/results?limit=1&source=moz`);
    expect(((await after.json()) as Page).results).toHaveLength(1);
  });
});
