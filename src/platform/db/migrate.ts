// Schema migrations: plain SQL files in migrations/, applied in order by node-pg-migrate. Its advisory lock
// in "wait" mode lets any number of processes start at once: one applies, the others wait and find nothing left.
import { fileURLToPath } from 'node:url';
import { PG_MIGRATE_LOCK_ID, runner } from 'node-pg-migrate';
import type { Logger } from '../log.ts';
import { withTransaction, type Pool, type Queryable } from './pool.ts';

// src/platform/db/ and dist/platform/db/ both sit three levels below the package root.
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../../migrations', import.meta.url));

export async function migrate(databaseUrl: string, log: Logger): Promise<string[]> {
  const applied = await runner({
    databaseUrl,
    dir: MIGRATIONS_DIR,
    direction: 'up',
    migrationsTable: 'pgmigrations',
    advisoryLockMode: 'wait',
    singleTransaction: true,
    checkOrder: true,
    log: (message: string) => log.debug({ migration: message }, 'migrate'),
  });
  const names = applied.map((m) => m.name);
  log.info({ applied: names }, names.length ? `applied ${names.length} migration(s)` : 'database schema is up to date');
  return names;
}

/**
 * Runs `change` in a transaction holding the lock the migrations take, so schema changes a service makes at
 * start (after the migrations) never race each other or a migration of another process.
 */
export async function withSchemaLock<T>(pool: Pool, change: (db: Queryable) => Promise<T>): Promise<T> {
  return withTransaction(pool, async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [PG_MIGRATE_LOCK_ID]);
    return change(tx);
  });
}
