// Each test file gets a database of its own, cloned from the migrated template: files run in parallel
// without seeing each other's rows. The databases live until the run's PostgreSQL is thrown away.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { createPool, type Pool } from '../../src/platform/db/index.ts';
import { createLogger } from '../../src/platform/log.ts';

export interface TestDatabase {
  name: string;
  url: string;
  pool: Pool;
}

export async function createTestDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
  const adminUrl = inject('pgAdminUrl');
  const name = `test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(options.empty ? `CREATE DATABASE ${name}` : `CREATE DATABASE ${name} TEMPLATE ${inject('pgTemplate')}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const pool = createPool(url.toString(), createLogger({ level: 'silent' }));
  return { name, url: url.toString(), pool };
}
