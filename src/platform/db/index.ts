// The database of a process: DATABASE_URL when set, otherwise the embedded PostgreSQL under DATA_DIR.
import type { Logger } from '../log.ts';
import { acquireEmbedded, type EmbeddedServer } from './embedded.ts';
import { createPool, type Pool } from './pool.ts';
import { checkServerVersion } from './version.ts';

export { createPool, withTransaction, type Pool, type Queryable } from './pool.ts';
export { migrate, MIGRATIONS_DIR, withSchemaLock } from './migrate.ts';
export { acquireEmbedded, type EmbeddedServer } from './embedded.ts';
export { createListener, type Listener } from './listen.ts';
export { checkServerVersion, MIN_POSTGRES_MAJOR, UnsupportedServerError } from './version.ts';

export interface Database {
  url: string;
  pool: Pool;
  /** The embedded server, when this process uses one. */
  embedded: EmbeddedServer | undefined;
  /** Ends the pool, then stops the embedded server if this process owns it. */
  close(): Promise<void>;
}

/** DATABASE_URL and DATA_DIR, as the settings give them. */
export interface DatabaseSettings {
  databaseUrl: string | undefined;
  dataDir: string;
}

export async function openDatabase(config: DatabaseSettings, log: Logger): Promise<Database> {
  const embedded = config.databaseUrl ? undefined : await acquireEmbedded({ dataDir: config.dataDir, log });
  const url = config.databaseUrl ?? embedded!.url();
  const pool = createPool(url, log);
  try {
    await checkServerVersion(pool);
  } catch (err) {
    await pool.end();
    await embedded?.release();
    throw err;
  }
  let closing: Promise<void> | undefined;
  return {
    url,
    pool,
    embedded,
    close: () =>
      (closing ??= (async () => {
        await pool.end();
        await embedded?.release();
      })()),
  };
}
