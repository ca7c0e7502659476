// The connection pool every part of the program shares, and the transaction helper.
import pg from 'pg';
import type { Logger } from '../log.ts';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
/** What a store function runs its SQL on: the pool, or the client of a caller's open transaction. */
export type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

// Return int8 (counts, sums) as numbers: every one we produce fits in 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export function createPool(url: string, log: Logger, max = 10): Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    application_name: 'domainkit',
  });
  // An idle client can lose its connection (database restart); without a listener that would crash us.
  pool.on('error', (err) => log.warn({ err: { message: err.message } }, 'idle database connection lost'));
  return pool;
}

/** Runs `fn` in one transaction; commits on success, rolls back on any error and rethrows it. */
export async function withTransaction<T>(pool: Pool, fn: (tx: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // A checked-out client whose connection drops between two queries (a database restart) emits 'error'; the
  // pool listens only to idle clients, so without this the process would crash. The broken client is then
  // destroyed rather than handed back.
  let broken: Error | undefined;
  const onError = (err: Error) => (broken = err);
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch((rollbackErr: Error) => (broken ??= rollbackErr));
    throw err;
  } finally {
    client.off('error', onError);
    client.release(broken ?? false);
  }
}
