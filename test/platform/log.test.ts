// Credentials never reach a log line: not from request headers, not from objects a handler logs.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../../src/platform/log.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { bareApp, serve, type Served } from '../helpers/http.ts';

const SECRET = 'dm_jobs_THISISASECRETTOKENVALUE0123456789';
let lines: string[] = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, done) {
    lines.push(...chunk.toString().split('\n').filter(Boolean));
    done();
  },
});
const log = createLogger({ level: 'trace' }, sink);
let db: TestDatabase;
let served: Served;

beforeAll(async () => {
  db = await createTestDatabase();
  const app = await bareApp({
    log,
    pool: db.pool,
    routes: async (r) => {
      r.get('/echo', async (request) => {
        // A careless handler logging the whole request and a settings object.
        request.log.info({ req: { headers: request.headers } }, 'handler saw');
        request.log.info({ config: { apiKey: SECRET, databaseUrl: `postgres://u:${SECRET}@h/db` } }, 'settings');
        throw new Error('failing on purpose');
      });
    },
  });
  served = await serve(app);
});
afterAll(async () => {
  await served.close();
  await db.pool.end();
});

it('redacts Authorization, X-API-Key, cookies and secret fields', async () => {
  lines = [];
  for (const headers of [{ authorization: `Bearer ${SECRET}` }, { 'x-api-key': SECRET }, { cookie: `s=${SECRET}` }]) {
    expect((await fetch(`${served.url}/echo`, { headers })).status).toBe(500);
  }
  const text = lines.join('\n');
  expect(lines.length).toBeGreaterThan(6);
  expect(text).toContain('[Redacted]');
  expect(text).toContain('handler saw');
  expect(text).not.toContain(SECRET);
  expect(text).not.toContain('THISISASECRET');
});
