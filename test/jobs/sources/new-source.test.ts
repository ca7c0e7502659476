// A source is its descriptor: one made here, in the test alone, is read from the settings, accepted by the API,
// run by the engine, and shown in results and CSV, by the same startRoles wiring as `domainkit`, with no
// other change (its typed columns reach the tasks table at start).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LookupFunction } from 'node:net';
import { ConfigError, loadConfig } from '../../../src/config.ts';
import { JOB_SOURCES, sourceRegistry, type SourceDescriptor } from '../../../src/jobs/index.ts';
import { createLogger } from '../../../src/platform/log.ts';
import { startRoles, type Running } from '../../../src/roles.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { client, tokenFor } from '../../helpers/jobs.ts';

const SEEN_AT = '2026-01-02T03:04:05.000Z';

const echo: SourceDescriptor<{ baseUrl: string }> = {
  name: 'echo_rank',
  provider: 'echo',
  batchSize: 2,
  columns: [
    { name: 'echo_rank', type: 'integer' },
    { name: 'echo_seen_at', type: 'timestamptz' },
  ],
  defaults: { concurrency: 3, rate: 0 },
  billing: { unit: null, price: { units: 0, per: 'request' }, requests: { count: 1, per: 'call' } },
  readSettings: (read) => ({ baseUrl: read.url('ECHO_BASE_URL', 'https://echo.invalid') }),
  createAdapter: (settings) => ({
    async fetch(domains, context) {
      await context.permit();
      return domains.map((domain) => ({
        ok: true,
        columns: { echo_rank: domain.length, echo_seen_at: SEEN_AT },
        raw: { base: settings.baseUrl, batch: domains },
      }));
    },
  }),
};
const sources = [...JOB_SOURCES, echo];

// No name resolves: ping's rows are quick findings of `reachable: false`.
const lookup = ((name: string, _options: unknown, callback: (err: Error) => void) =>
  process.nextTick(() =>
    callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' })),
  )) as unknown as LookupFunction;

const env = {
  HOST: '127.0.0.1',
  JOBS_PORT: '0',
  LOG_LEVEL: 'silent',
  JOBS_ECHO_RANK_CONCURRENCY: '4',
  JOBS_ECHO_RANK_RATE: '50',
  ECHO_BASE_URL: 'https://echo.example',
};

describe('the settings of a new source', () => {
  it('are JOBS_<NAME>_CONCURRENCY, JOBS_<NAME>_RATE and its own, with its defaults', () => {
    const config = loadConfig(env, sources);
    expect(config.jobs.sources.echo_rank).toEqual({ concurrency: 4, rate: 50 });
    expect(config.jobs.sourceSettings.echo_rank).toEqual({ baseUrl: 'https://echo.example' });
    const defaults = loadConfig({}, sources);
    expect(defaults.jobs.sources.echo_rank).toEqual({ concurrency: 3, rate: 0 });
    expect(defaults.jobs.sourceSettings.echo_rank).toEqual({ baseUrl: 'https://echo.invalid' });
    expect(() => loadConfig({ JOBS_ECHO_RANK_RATE: 'fast' }, sources)).toThrow(ConfigError);
    expect(() => loadConfig({ JOBS_ECHO_RANK_RATE: 'fast' }, sources)).toThrow(/JOBS_ECHO_RANK_RATE/);
    expect(() => loadConfig({ ECHO_BASE_URL: 'ftp://x' }, sources)).toThrow(/ECHO_BASE_URL/);
  });

  it('must have been read for every source the roles run', async () => {
    await expect(startRoles(loadConfig(env), createLogger({ level: 'silent' }), ['jobs-api'], { sources })).rejects.toThrow(/echo_rank/);
  });
});

describe('a typed column the table already has with another type', () => {
  it('stops the start, naming the column', async () => {
    const db = await createTestDatabase();
    try {
      await db.pool.query('ALTER TABLE tasks ADD COLUMN echo_rank text');
      const config = loadConfig({ ...env, DATABASE_URL: db.url }, sources);
      await expect(startRoles(config, createLogger({ level: 'silent' }), ['jobs-api'], { sources })).rejects.toThrow(
        'tasks.echo_rank is text, but a source declares it integer',
      );
    } finally {
      await db.pool.end();
    }
  });
});

describe('the registry', () => {
  it('refuses descriptors that contradict each other or the table', () => {
    expect(() => sourceRegistry([echo, echo])).toThrow(/two sources are named echo_rank/);
    expect(() => sourceRegistry([{ ...echo, name: 'Echo-Rank' }])).toThrow(/not \[a-z\]/);
    expect(() => sourceRegistry([{ ...echo, columns: [{ name: 'raw', type: 'integer' }] }])).toThrow(/cannot name a typed column/);
    expect(() => sourceRegistry([...JOB_SOURCES, { ...echo, columns: [{ name: 'backlinks', type: 'boolean' }] }])).toThrow(
      /backlinks is bigint in one source and boolean in echo_rank/,
    );
  });
});

describe('a job of the new source, through the API and a worker', () => {
  let db: TestDatabase;
  let running: Running;
  let call: ReturnType<typeof client>;

  beforeAll(async () => {
    db = await createTestDatabase();
    const config = loadConfig({ ...env, DATABASE_URL: db.url }, sources);
    running = await startRoles(config, createLogger({ level: 'silent' }), ['jobs-api', 'worker'], { sources, lookup });
    call = client(running.addresses['jobs-api']!, await tokenFor(db, 'acme'));
  });
  afterAll(async () => {
    await running?.stop();
    await db?.pool.end();
  });

  it('has its typed columns in the tasks table, added once at start', async () => {
    const columns = async () =>
      (
        await db.pool.query(
          `SELECT column_name AS name, data_type AS type FROM information_schema.columns
           WHERE table_name = 'tasks' AND column_name LIKE 'echo%' ORDER BY 1`,
        )
      ).rows;
    expect(await columns()).toEqual([
      { name: 'echo_rank', type: 'integer' },
      { name: 'echo_seen_at', type: 'timestamp with time zone' },
    ]);
    // Another process starting with the same sources finds them and changes nothing.
    const again = await startRoles(loadConfig({ ...env, DATABASE_URL: db.url }, sources), createLogger({ level: 'silent' }), ['jobs-api'], {
      sources,
    });
    await again.stop();
    expect(await columns()).toHaveLength(2);
  });

  it('is documented, accepted, run in batches of its size, and its typed columns are in results and CSV', { timeout: 30_000 }, async () => {
    const doc = (await (await call('/openapi.json')).json()) as {
      components: { schemas: Record<string, { properties: Record<string, { enum?: string[] }> }> };
    };
    expect(doc.components.schemas.Result!.properties.source!.enum).toEqual([...JOB_SOURCES.map((s) => s.name), 'echo_rank']);
    expect(Object.keys(doc.components.schemas.Result!.properties)).toEqual(expect.arrayContaining(['echo_rank', 'echo_seen_at']));

    const created = await call('/v1/jobs', {
      body: { domains: ['a.example', 'bb.example', 'ccc.example'], job_types: ['echo_rank', 'ping'] },
    });
    expect(created.status).toBe(201);
    const { job_id: id } = (await created.json()) as { job_id: string };
    await expect
      .poll(async () => ((await (await call(`/v1/jobs/${id}`)).json()) as { status: string }).status, { timeout: 20_000 })
      .toBe('completed');

    const { results } = (await (await call(`/v1/jobs/${id}/results`)).json()) as { results: Record<string, unknown>[] };
    const echoRows = results.filter((r) => r.source === 'echo_rank');
    expect(echoRows.map((r) => [r.domain, r.status, r.echo_rank, r.echo_seen_at])).toEqual([
      ['a.example', 'ok', 9, SEEN_AT],
      ['bb.example', 'ok', 10, SEEN_AT],
      ['ccc.example', 'ok', 11, SEEN_AT],
    ]);
    expect(echoRows.map((r) => (r.raw as { batch: string[] }).batch)).toEqual([
      ['a.example', 'bb.example'],
      ['a.example', 'bb.example'],
      ['ccc.example'],
    ]);
    expect(echoRows[0]!.raw).toMatchObject({ base: 'https://echo.example' });
    expect(echoRows[0]).not.toHaveProperty('reachable');
    const pingRow = results.find((r) => r.source === 'ping')!;
    expect(pingRow).toMatchObject({ status: 'ok', reachable: false });
    expect(pingRow).not.toHaveProperty('echo_rank');

    const csv = await (await call(`/v1/jobs/${id}/results`, { headers: { accept: 'text/csv' } })).text();
    const [header, first] = csv.split('\r\n');
    expect(header).toBe(
      'domain,source,status,error_code,error_message,fetched_at,duration_ms,reachable,status_code,response_ms,echo_rank,echo_seen_at,cost,cost_unit,cost_basis,calls,cached_from',
    );
    expect(first).toMatch(new RegExp(`^a\\.example,echo_rank,ok,,,[^,]+,\\d+,,,,9,${SEEN_AT.replace(/\./g, '\\.')},0,,computed,0,$`));
  });
});
