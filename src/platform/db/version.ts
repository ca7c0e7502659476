// The oldest PostgreSQL we run on. The suite runs against 15 (Debian's, in CI) and against the embedded 18; an
// older server is refused at start with one line, rather than failing later on a statement it does not know.
import type { Queryable } from './pool.ts';

export const MIN_POSTGRES_MAJOR = 15;

/** The server is older than the program supports; `message` is one line for the operator. */
export class UnsupportedServerError extends Error {
  constructor(found: string, minimum: number) {
    super(`PostgreSQL ${minimum} or newer is needed; the server at DATABASE_URL runs ${found}`);
    this.name = 'UnsupportedServerError';
  }
}

/** Throws UnsupportedServerError when the server's major version is below `minimum`. */
export async function checkServerVersion(db: Queryable, minimum = MIN_POSTGRES_MAJOR): Promise<void> {
  const { rows } = await db.query<{ num: string; version: string }>(
    `SELECT current_setting('server_version_num') AS num, current_setting('server_version') AS version`,
  );
  const row = rows[0]!;
  if (Math.floor(Number(row.num) / 10_000) < minimum) throw new UnsupportedServerError(row.version, minimum);
}
