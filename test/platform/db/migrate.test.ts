// Migrations apply once, even when several processes start at the same moment.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { migrate } from '../../../src/platform/db/index.ts';
import { createLogger } from '../../../src/platform/log.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { readdirSync } from 'node:fs';
import { MIGRATIONS_DIR } from '../../../src/platform/db/index.ts';

let db: TestDatabase;
const log = createLogger({ level: 'silent' });

beforeAll(async () => {
  db = await createTestDatabase({ empty: true });
});
afterAll(async () => {
  await db.pool.end();
});

it('applies every migration exactly once when started concurrently', async () => {
  const files = readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith('.sql'))
    .map((f) => f.replace(/\.sql$/, ''));
  expect(files.length).toBeGreaterThan(0);
  // Each runner opens its own connection, as separate processes would.
  const results = await Promise.all(Array.from({ length: 5 }, () => migrate(db.url, log)));
  expect(results.flat().sort()).toEqual(files.sort());
  const rows = await db.pool.query<{ name: string }>('SELECT name FROM pgmigrations ORDER BY id');
  expect(rows.rows.map((r) => r.name)).toEqual(files);
  expect(await migrate(db.url, log)).toEqual([]);
});

it('waits for a migration another process holds the lock for', async () => {
  // Hold node-pg-migrate's advisory lock from a separate session, as a slow migrating process would.
  const holder = new pg.Client({ connectionString: db.url });
  await holder.connect();
  await holder.query('SELECT pg_advisory_lock(7241865325823964)');
  let finished = false;
  const running = migrate(db.url, log).then((r) => {
    finished = true;
    return r;
  });
  // The migration's session is seen waiting on that lock in PostgreSQL, and so it has not finished.
  const waiting = async () =>
    (
      await db.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory' AND query LIKE '%pg_advisory_lock%'`,
      )
    ).rows[0]!.n;
  await expect.poll(waiting, { timeout: 10_000 }).toBe(1);
  expect(finished).toBe(false);
  await holder.query('SELECT pg_advisory_unlock(7241865325823964)');
  await holder.end();
  expect(await running).toEqual([]);
});
