// The job resource over HTTP: creation (rows and queue entries), reads, keyset listing, results, soft-cancel.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INITIAL_ENTRIES } from '../../../src/jobs/index.ts';
import { queueEntries } from '../../../src/jobs/queues.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { problemOf } from '../../helpers/http.ts';
import { client, startJobsApi, tokenFor, type JobsApi } from '../../helpers/jobs.ts';

let db: TestDatabase;
let api: JobsApi;
let call: ReturnType<typeof client>;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startJobsApi(db);
  call = client(api.url, await tokenFor(db, 'acme'));
});
afterAll(async () => {
  await api.close();
  await db.pool.end();
});

interface Job {
  job_id: string;
  status: string;
  created_at: string;
  domains?: string[];
  progress: { total: number; succeeded: number; failed: number; pending: number };
  [k: string]: unknown;
}

async function create(domains: string[], jobTypes: string[]): Promise<Job> {
  const res = await call('/v1/jobs', { body: { domains, job_types: jobTypes } });
  expect(res.status).toBe(201);
  return (await res.json()) as Job;
}

/** The job's entries in a source's queue, as the queue shows them (src/jobs/queues.ts), by their first position. */
const entriesOf = (source: string, jobId: string) => queueEntries(api.queue, source, jobId);

describe('POST /v1/jobs', () => {
  it('answers 201 with Location and the job, and writes one task row per (domain, source) and their queue entries', async () => {
    const domains = Array.from({ length: 25 }, (_, i) => `d${i}.example.com`);
    const res = await call('/v1/jobs', { body: { domains, job_types: ['moz', 'ping'] } });
    expect(res.status).toBe(201);
    const job = (await res.json()) as Job;
    expect(res.headers.get('location')).toBe(`/v1/jobs/${job.job_id}`);
    expect(job).toMatchObject({
      status: 'queued',
      started_at: null,
      finished_at: null,
      job_types: ['moz', 'ping'],
      domain_count: 25,
      domains,
      progress: { total: 50, succeeded: 0, failed: 0, pending: 50 },
    });
    expect(job.job_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(job.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const { rows } = await db.pool.query('SELECT position, domain, source, state FROM tasks WHERE job_id = $1 ORDER BY position, source', [
      job.job_id,
    ]);
    expect(rows).toHaveLength(50);
    expect(rows[0]).toEqual({ position: 0, domain: 'd0.example.com', source: 'moz', state: 'queued' });
    expect(rows[49]).toEqual({ position: 24, domain: 'd24.example.com', source: 'ping', state: 'queued' });

    // The first entries cut the positions into contiguous ranges on batch boundaries (Moz: 10 a call).
    const tenant = (await db.pool.query('SELECT tenant_id FROM jobs WHERE id = $1', [job.job_id])).rows[0].tenant_id;
    const moz = await entriesOf('moz', job.job_id);
    expect(moz.map((e) => [e.from, e.to])).toEqual([
      [0, 10],
      [10, 20],
      [20, 25],
    ]);
    const ping = await entriesOf('ping', job.job_id);
    expect(ping).toHaveLength(INITIAL_ENTRIES);
    expect(ping.every((e, i) => e.from === (ping[i - 1]?.to ?? 0) && e.tenantId === tenant)).toBe(true);
    expect(ping.at(-1)!.to).toBe(25);
  });

  it('a 1,000 × 6 job makes 6,000 task rows and a few queue entries per source', async () => {
    const sources = ['seokicks', 'moz', 'ahrefs_backlinks', 'ahrefs_traffic', 'wayback', 'ping'];
    const job = await create(
      Array.from({ length: 1000 }, (_, i) => `site-${i}.example.net`),
      sources,
    );
    expect(job.progress.total).toBe(6000);
    const count = await db.pool.query('SELECT count(*)::int AS n FROM tasks WHERE job_id = $1', [job.job_id]);
    expect(count.rows[0].n).toBe(6000);
    for (const source of sources) {
      const entries = await entriesOf(source, job.job_id);
      expect(entries).toHaveLength(INITIAL_ENTRIES);
      expect(entries.at(-1)!.to).toBe(1000);
    }
  });
});

describe('GET /v1/jobs/{id}', () => {
  it('returns the job object with domains and progress counted from finished task rows', async () => {
    const job = await create(['a.example', 'b.example'], ['ping', 'wayback']);
    await db.pool.query(`UPDATE tasks SET state = 'ok' WHERE job_id = $1 AND position = 0`, [job.job_id]);
    await db.pool.query(`UPDATE tasks SET state = 'error' WHERE job_id = $1 AND position = 1 AND source = 'ping'`, [job.job_id]);
    await db.pool.query(`UPDATE tasks SET state = 'running' WHERE job_id = $1 AND position = 1 AND source = 'wayback'`, [job.job_id]);
    const read = (await (await call(`/v1/jobs/${job.job_id}`)).json()) as Job;
    expect(read.progress).toEqual({ total: 4, succeeded: 2, failed: 1, pending: 1 });
    expect(read.domains).toEqual(['a.example', 'b.example']);
    expect(Object.keys(read).sort()).toEqual(
      [
        'cost',
        'created_at',
        'domain_count',
        'domains',
        'finished_at',
        'job_id',
        'job_types',
        'progress',
        'started_at',
        'status',
        'webhook_url',
      ].sort(),
    );
  });
});

describe('GET /v1/jobs (keyset pagination)', () => {
  it('walks 47 jobs created in the same millisecond: every job exactly once, (created_at, id) descending', async () => {
    const own = client(api.url, await tokenFor(db, 'pager'));
    const ids: string[] = [];
    for (let i = 0; i < 47; i++) {
      const res = await own('/v1/jobs', { body: { domains: [`p${i}.example`], job_types: ['ping'] } });
      ids.push(((await res.json()) as Job).job_id);
    }
    // Ties on created_at for all but two, which sort before and after the tied block.
    await db.pool.query(`UPDATE jobs SET created_at = '2026-01-01T00:00:00.123Z' WHERE id = ANY ($1)`, [ids]);
    await db.pool.query(`UPDATE jobs SET created_at = '2026-02-01T00:00:00Z' WHERE id = $1`, [ids[5]]);
    await db.pool.query(`UPDATE jobs SET created_at = '2025-12-01T00:00:00Z' WHERE id = $1`, [ids[40]]);
    const tied = ids
      .filter((id) => id !== ids[5] && id !== ids[40])
      .sort()
      .reverse();
    const expected = [ids[5], ...tied, ids[40]];

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await own(`/v1/jobs?limit=10${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      const page = (await res.json()) as { jobs: Job[]; next_cursor: string | null };
      expect(page.jobs.length).toBeLessThanOrEqual(10);
      seen.push(...page.jobs.map((j) => j.job_id));
      if (page.next_cursor) expect(page.next_cursor).toBe(page.jobs.at(-1)!.job_id);
      cursor = page.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(5);
    expect(seen).toEqual(expected);
    expect(new Set(seen).size).toBe(47);
  });

  it('defaults to 20 per page; list items have no domains; the last page has next_cursor null', async () => {
    const own = client(api.url, await tokenFor(db, 'twenty-one'));
    for (let i = 0; i < 21; i++) await own('/v1/jobs', { body: { domains: [`t${i}.example`], job_types: ['ping'] } });
    const first = (await (await own('/v1/jobs')).json()) as { jobs: Job[]; next_cursor: string };
    expect(first.jobs).toHaveLength(20);
    expect(first.jobs[0]).not.toHaveProperty('domains');
    const second = (await (await own(`/v1/jobs?cursor=${first.next_cursor}`)).json()) as { jobs: Job[]; next_cursor: string | null };
    expect(second.jobs).toHaveLength(1);
    expect(second.next_cursor).toBeNull();
    const exact = (await (await own('/v1/jobs?limit=21')).json()) as { next_cursor: string | null };
    expect(exact.next_cursor).toBeNull();
  });
});

describe('GET /v1/jobs/{id}/results', () => {
  it('lists finished rows only, by domain (request order) then source, with each source’s typed columns and raw', async () => {
    const job = await create(['zeta.example', 'alpha.example'], ['wayback', 'ping', 'moz']);
    const empty = (await (await call(`/v1/jobs/${job.job_id}/results`)).json()) as { results: unknown[] };
    expect(empty).toEqual({ job_id: job.job_id, status: 'queued', results: [] });

    await db.pool.query(
      `UPDATE tasks SET state = 'ok', fetched_at = '2026-11-21T10:00:00Z', duration_ms = 120, reachable = true, status_code = 200,
         response_ms = 87, raw = '{"status": 200}' WHERE job_id = $1 AND source = 'ping'`,
      [job.job_id],
    );
    await db.pool.query(
      `UPDATE tasks SET state = 'ok', fetched_at = '2026-11-21T10:00:01Z', duration_ms = 900, snapshot_count = 42,
         first_snapshot_at = '2001-03-04T05:06:07Z', last_snapshot_at = NULL, raw = '{"pages": 2}'
       WHERE job_id = $1 AND source = 'wayback' AND position = 0`,
      [job.job_id],
    );
    await db.pool.query(
      `UPDATE tasks SET state = 'error', fetched_at = '2026-11-21T10:00:02Z', duration_ms = 5, error_code = 'source_not_configured',
         error_message = 'MOZ_TOKEN is not set' WHERE job_id = $1 AND source = 'moz' AND position = 1`,
      [job.job_id],
    );
    const res = await call(`/v1/jobs/${job.job_id}/results`);
    const body = (await res.json()) as { results: Record<string, unknown>[] };
    expect(body.results.map((r) => `${r.domain}/${r.source}`)).toEqual([
      'zeta.example/ping',
      'zeta.example/wayback',
      'alpha.example/moz',
      'alpha.example/ping',
    ]);
    expect(body.results[0]).toEqual({
      domain: 'zeta.example',
      source: 'ping',
      status: 'ok',
      error: null,
      fetched_at: '2026-11-21T10:00:00.000Z',
      duration_ms: 120,
      cost: { amount: 0, unit: null, basis: 'computed', calls: 0 },
      cached_from: null,
      reachable: true,
      status_code: 200,
      response_ms: 87,
      raw: { status: 200 },
    });
    expect(body.results[1]).toMatchObject({ snapshot_count: 42, first_snapshot_at: '2001-03-04T05:06:07.000Z', last_snapshot_at: null });
    expect(body.results[2]).toEqual({
      domain: 'alpha.example',
      source: 'moz',
      status: 'error',
      error: { code: 'source_not_configured', message: 'MOZ_TOKEN is not set' },
      fetched_at: '2026-11-21T10:00:02.000Z',
      duration_ms: 5,
      cost: { amount: 0, unit: 'moz_rows', basis: 'computed', calls: 0 },
      cached_from: null,
      domain_authority: null,
      page_authority: null,
      spam_score: null,
      linking_domains: null,
      inbound_links: null,
      raw: null,
    });

    const csv = await call(`/v1/jobs/${job.job_id}/results`, { headers: { accept: 'text/csv' } });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const lines = (await csv.text()).trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'domain,source,status,error_code,error_message,fetched_at,duration_ms,domain_authority,page_authority,spam_score,linking_domains,inbound_links,snapshot_count,first_snapshot_at,last_snapshot_at,reachable,status_code,response_ms,cost,cost_unit,cost_basis,calls,cached_from',
    );
    expect(lines).toHaveLength(5);
    expect(lines[1]).toBe('zeta.example,ping,ok,,,2026-11-21T10:00:00.000Z,120,,,,,,,,,true,200,87,0,,computed,0,');
    expect(lines[3]).toBe(
      'alpha.example,moz,error,source_not_configured,MOZ_TOKEN is not set,2026-11-21T10:00:02.000Z,5,,,,,,,,,,,,0,moz_rows,computed,0,',
    );

    // JSON stays the default for clients that prefer it or accept anything.
    for (const accept of ['application/json', '*/*', 'text/html', 'application/json, text/csv;q=0.5']) {
      const r = await call(`/v1/jobs/${job.job_id}/results`, { headers: { accept } });
      expect(r.headers.get('content-type'), accept).toMatch(/^application\/json/);
      await r.arrayBuffer();
    }
  });
});

describe('DELETE /v1/jobs/{id} (soft-cancel)', () => {
  it('queued → paused with the job object; paused again → 200 unchanged', async () => {
    const job = await create(['c.example'], ['ping']);
    const first = await call(`/v1/jobs/${job.job_id}`, { method: 'DELETE' });
    expect(first.status).toBe(200);
    const paused = (await first.json()) as Job;
    expect(paused).toMatchObject({ job_id: job.job_id, status: 'paused', domains: ['c.example'] });
    const again = await call(`/v1/jobs/${job.job_id}`, { method: 'DELETE' });
    expect(again.status).toBe(200);
    expect(((await again.json()) as Job).status).toBe('paused');
  });

  it('running → paused; completed or failed → 409 conflict, unchanged', async () => {
    const running = await create(['r.example'], ['ping']);
    await db.pool.query(`UPDATE jobs SET status = 'running', started_at = now() WHERE id = $1`, [running.job_id]);
    expect(((await (await call(`/v1/jobs/${running.job_id}`, { method: 'DELETE' })).json()) as Job).status).toBe('paused');
    for (const status of ['completed', 'failed']) {
      const job = await create(['f.example'], ['ping']);
      await db.pool.query(`UPDATE jobs SET status = $2, finished_at = now() WHERE id = $1`, [job.job_id, status]);
      const res = await call(`/v1/jobs/${job.job_id}`, { method: 'DELETE' });
      expect(res.status).toBe(409);
      const problem = await problemOf(res);
      expect(problem.code).toBe('conflict');
      expect(problem.job_status).toBe(status);
      expect(((await (await call(`/v1/jobs/${job.job_id}`)).json()) as Job).status).toBe(status);
    }
  });
});
