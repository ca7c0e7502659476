// All SQL of the per-client leases (migration 1763700000014_client_leases.sql). Statements are named, so each
// process prepares them once: taking and giving back run on every stream, long poll and SMTP session.
import type { Queryable } from '../db/index.ts';

/** The counts of `held` whose holder is alive, as a jsonb object (the dead ones pruned). */
const LIVE_HELD = `(SELECT coalesce(jsonb_object_agg(h.key, h.value), '{}'::jsonb)
    FROM jsonb_each(l.held) h JOIN lease_holders x ON x.holder = h.key::uuid WHERE x.alive_until > now())`;

/** What the live holders of the row hold together. */
const LIVE_SUM = `(SELECT coalesce(sum(h.value::int), 0)
    FROM jsonb_each_text(l.held) h JOIN lease_holders x ON x.holder = h.key::uuid WHERE x.alive_until > now())`;

/**
 * Up to `count` more for `holder`, as many as the live holders of (kind, client) leave room for under `bound`.
 * The row's lock (ON CONFLICT) makes the check and the increment one step across processes, so the grant is
 * what `count` takes one after another would get. Resolves with how many were granted (0 to count).
 */
export async function takeLeases(
  db: Queryable,
  kind: string,
  client: string,
  holder: string,
  bound: number,
  count: number,
): Promise<number> {
  const { rows } = await db.query<{ granted: number }>({
    name: 'platform.leases.take',
    text: `INSERT INTO client_leases AS l (kind, client, held, granted)
      VALUES ($1, $2, jsonb_build_object($3::text, least($5::int, $4::int)), least($5::int, $4::int))
      ON CONFLICT (kind, client) DO UPDATE
        SET held = ${LIVE_HELD} || jsonb_build_object($3::text, coalesce((l.held ->> $3::text)::int, 0) + least($5::int, $4::int - ${LIVE_SUM})),
          granted = least($5::int, $4::int - ${LIVE_SUM})
        WHERE ${LIVE_SUM} < $4::int
      RETURNING granted`,
    values: [kind, client, holder, bound, count],
  });
  return rows[0]?.granted ?? 0;
}

/** One less for `holder` (nothing when it holds none: its counts were lost with a crash of the server). */
export async function giveLease(db: Queryable, kind: string, client: string, holder: string): Promise<void> {
  await db.query({
    name: 'platform.leases.give',
    text: `UPDATE client_leases SET held = CASE WHEN (held ->> $3::text)::int > 1
        THEN jsonb_set(held, ARRAY[$3::text], to_jsonb((held ->> $3::text)::int - 1)) ELSE held - $3::text END
      WHERE kind = $1 AND client = $2 AND held ? $3::text`,
    values: [kind, client, holder],
  });
}

/** The holder is alive for `seconds` more (registered on its first call). */
export async function renewHolder(db: Queryable, holder: string, seconds: number): Promise<void> {
  await db.query({
    name: 'platform.leases.renewHolder',
    text: `INSERT INTO lease_holders (holder, alive_until) VALUES ($1, now() + make_interval(secs => $2))
      ON CONFLICT (holder) DO UPDATE SET alive_until = excluded.alive_until`,
    values: [holder, seconds],
  });
}

/** A holder that stops: what it held stops counting at once. */
export async function dropHolder(db: Queryable, holder: string): Promise<void> {
  await db.query({ name: 'platform.leases.dropHolder', text: 'DELETE FROM lease_holders WHERE holder = $1', values: [holder] });
}

/**
 * Rows that no live holder holds anything in (every client that left, and those of processes that died), and
 * holders dead for an hour: without it the table would keep a row per client address ever seen.
 */
export async function sweepLeases(db: Queryable): Promise<void> {
  await db.query({
    name: 'platform.leases.sweep',
    text: `DELETE FROM client_leases l WHERE NOT EXISTS (SELECT 1 FROM jsonb_each_text(l.held) h
      JOIN lease_holders x ON x.holder = h.key::uuid WHERE x.alive_until > now() AND h.value::int > 0)`,
  });
  await db.query({
    name: 'platform.leases.sweepHolders',
    text: `DELETE FROM lease_holders WHERE alive_until < now() - interval '1 hour'`,
  });
}

/** What (kind, client) holds now, over every live holder (tests and `domainkit` diagnostics). */
export async function heldCount(db: Queryable, kind: string, client: string): Promise<number> {
  const { rows } = await db.query<{ n: string }>({
    name: 'platform.leases.held',
    text: `SELECT coalesce(sum(h.value::int), 0) AS n FROM client_leases l, jsonb_each_text(l.held) h
      JOIN lease_holders x ON x.holder = h.key::uuid WHERE l.kind = $1 AND l.client = $2 AND x.alive_until > now()`,
    values: [kind, client],
  });
  return Number(rows[0]?.n ?? 0);
}
