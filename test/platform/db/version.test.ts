// The server's version is checked when a process opens its database: the run's server (15 in CI's second run,
// the embedded 18 otherwise) passes, and a server below the minimum is refused with one line naming both.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkServerVersion, MIN_POSTGRES_MAJOR, UnsupportedServerError } from '../../../src/platform/db/index.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.pool.end());

describe('checkServerVersion', () => {
  it(`passes for the server of this run (PostgreSQL ${MIN_POSTGRES_MAJOR} or newer)`, async () => {
    const { rows } = await db.pool.query<{ server_version: string }>('SHOW server_version');
    console.log(`PostgreSQL of this run: ${rows[0]!.server_version}`);
    await expect(checkServerVersion(db.pool)).resolves.toBeUndefined();
  });

  it('refuses a server older than the minimum, naming the version found and the one needed', async () => {
    const { rows } = await db.pool.query<{ server_version: string }>('SHOW server_version');
    const error = await checkServerVersion(db.pool, 99).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(UnsupportedServerError);
    expect((error as Error).message).toBe(`PostgreSQL 99 or newer is needed; the server at DATABASE_URL runs ${rows[0]!.server_version}`);
  });
});
