// Usage: what a tenant's rows cost over a period, summed from the task rows themselves (never kept counters),
// so it always agrees with the rows and the jobs they belong to.
import type { Queryable } from '../../platform/db/index.ts';

export interface UsageRow {
  /** The UTC day (YYYY-MM-DD) when asked by day, else null. */
  day: string | null;
  source: string;
  /** numeric, as text. */
  amount: string;
  calls: number;
  rows: number;
}

/**
 * The tenant's finished rows whose time falls in [from, to), by source (and by UTC day when `byDay`). A row's
 * time is when it was fetched, or when its job ended for a row a hard cancel ended unfetched. A row is fetched
 * after its job was made and (by that rule) no later than its job ended, so only jobs made before `to` and not
 * ended before `from` are read. Rows finished before costs were recorded (NULL cost) are not counted, nor rows filled from an earlier result
 * (cached_from: fetched by another job, which counts them; they cost nothing).
 */
export async function usageBySource(db: Queryable, tenantId: string, from: Date, to: Date, byDay: boolean): Promise<UsageRow[]> {
  const { rows } = await db.query<{ day: string | null; source: string; amount: string; calls: string; rows: string }>({
    name: 'jobs.usage.usageBySource',
    text: `SELECT CASE WHEN $4::boolean THEN to_char(w.at AT TIME ZONE 'UTC', 'YYYY-MM-DD') END AS day, t.source,
        sum(t.cost)::text AS amount, sum(t.calls)::bigint AS calls, count(*) AS rows
      FROM jobs j JOIN tasks t ON t.job_id = j.id CROSS JOIN LATERAL (SELECT coalesce(t.fetched_at, j.finished_at) AS at) w
      WHERE j.tenant_id = $1 AND j.created_at < $3 AND (j.finished_at IS NULL OR j.finished_at >= $2)
        AND t.state IN ('ok', 'error') AND t.cost IS NOT NULL AND t.cached_from IS NULL AND w.at >= $2 AND w.at < $3
      GROUP BY 1, 2 ORDER BY 1, 2`,
    values: [tenantId, from, to, byDay],
  });
  return rows.map((r) => ({ ...r, calls: Number(r.calls), rows: Number(r.rows) }));
}
