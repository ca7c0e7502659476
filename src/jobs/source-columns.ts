// The typed columns of the tasks table follow the source descriptors: a role that runs the jobs service gives
// the table the columns it lacks when it starts, after the migrations, so a new source needs no migration of
// its own (docs/decisions.md, "Jobs engine").
import { withSchemaLock, type Pool } from '../platform/db/index.ts';
import type { Logger } from '../platform/log.ts';
import type { SourceRegistry } from './sources/index.ts';
import { addTypedColumns, missingTypedColumns } from './store/index.ts';

/** Adds what is missing under the migrations' lock; a start that finds every column takes no lock. */
export async function ensureSourceColumns(pool: Pool, sources: SourceRegistry, log: Logger): Promise<void> {
  if ((await missingTypedColumns(pool, sources.columns)).length === 0) return;
  const added = await withSchemaLock(pool, async (db) => {
    const missing = await missingTypedColumns(db, sources.columns);
    await addTypedColumns(db, missing);
    return missing;
  });
  if (added.length > 0) log.info({ columns: added.map((c) => c.name) }, 'added typed columns to tasks');
}
