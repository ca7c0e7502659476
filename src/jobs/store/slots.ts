// Source slots: leases that cap each source's in-flight work across every worker process. A dead worker's
// slots free themselves when their lease runs out.
import type { Queryable } from '../../platform/db/index.ts';

/** Makes sure slot rows 0 … limit-1 of a source exist (a raised limit adds rows; a lowered one ignores the rest). */
export async function ensureSlots(db: Queryable, source: string, limit: number): Promise<void> {
  await db.query(`INSERT INTO source_slots (source, slot) SELECT $1, g FROM generate_series(0, $2 - 1) AS g ON CONFLICT DO NOTHING`, [
    source,
    limit,
  ]);
}

/** Leases up to `count` free slots of a source (free: never held, released, or lease run out). */
export async function acquireSlots(
  db: Queryable,
  source: string,
  limit: number,
  count: number,
  holder: string,
  leaseSeconds: number,
): Promise<number[]> {
  const { rows } = await db.query<{ slot: number }>({
    name: 'jobs.slots.acquireSlots',
    text: `UPDATE source_slots s SET holder = $4, lease_until = now() + make_interval(secs => $5)
      FROM (SELECT slot FROM source_slots
            WHERE source = $1 AND slot < $2 AND (holder IS NULL OR lease_until < now())
            ORDER BY slot LIMIT $3 FOR UPDATE SKIP LOCKED) free
      WHERE s.source = $1 AND s.slot = free.slot
      RETURNING s.slot`,
    values: [source, limit, count, holder, leaseSeconds],
  });
  return rows.map((r) => r.slot);
}

export async function releaseSlots(db: Queryable, source: string, slots: number[], holder: string): Promise<void> {
  if (slots.length === 0) return;
  await db.query({
    name: 'jobs.slots.releaseSlots',
    text: `UPDATE source_slots SET holder = NULL, lease_until = NULL WHERE source = $1 AND slot = ANY ($2) AND holder = $3`,
    values: [source, slots, holder],
  });
}

/** Extends every lease a worker holds; returns how many it still holds. */
export async function renewSlots(db: Queryable, holder: string, leaseSeconds: number): Promise<number> {
  const result = await db.query(`UPDATE source_slots SET lease_until = now() + make_interval(secs => $2) WHERE holder = $1`, [
    holder,
    leaseSeconds,
  ]);
  return result.rowCount ?? 0;
}

export async function releaseAllSlots(db: Queryable, holder: string): Promise<void> {
  await db.query('UPDATE source_slots SET holder = NULL, lease_until = NULL WHERE holder = $1', [holder]);
}
