// Budgets: a tenant's monthly limit per billed source, what it spent each month (`spending`, added to by every
// settle that spent anything) and the holds of calls in flight. What is left is the limit less what was spent
// this month and what live holds expect to spend. The month is PostgreSQL's (UTC), so every process agrees on it.
import { withTransaction, type Pool, type Queryable } from '../../platform/db/index.ts';

/** The first day of the current UTC calendar month, as the tables key months. */
const MONTH = `date_trunc('month', now() AT TIME ZONE 'UTC')::date`;

/** A source's budget of a tenant this month; `limit` null when the source has none (only its spending). */
export interface BudgetState {
  source: string;
  limit: number | null;
  /** YYYY-MM. */
  month: string;
  spent: number;
  /** What live holds expect calls in flight to cost. */
  reserved: number;
}

/** The tenant's limit on the source, or undefined without a budget: the one read an entry of a billed source makes. */
export async function budgetLimit(db: Queryable, tenantId: string, source: string): Promise<number | undefined> {
  const { rows } = await db.query<{ limit: string }>({
    name: 'jobs.budgets.budgetLimit',
    text: 'SELECT monthly_limit::text AS "limit" FROM budgets WHERE tenant_id = $1 AND source = $2',
    values: [tenantId, source],
  });
  return rows[0] ? Number(rows[0].limit) : undefined;
}

/** Sets the source's monthly limit (`null` removes the budget, with its holds). */
export async function setBudget(db: Queryable, tenantId: string, source: string, limit: number | null): Promise<void> {
  if (limit === null) {
    await db.query({
      name: 'jobs.budgets.setBudget.remove',
      text: 'DELETE FROM budgets WHERE tenant_id = $1 AND source = $2',
      values: [tenantId, source],
    });
    return;
  }
  await db.query({
    name: 'jobs.budgets.setBudget',
    text: `INSERT INTO budgets (tenant_id, source, monthly_limit) VALUES ($1, $2, $3::numeric)
      ON CONFLICT (tenant_id, source) DO UPDATE SET monthly_limit = EXCLUDED.monthly_limit, updated_at = now()`,
    values: [tenantId, source, String(limit)],
  });
}

/**
 * This month's state of the named sources (with a budget or not), or of every source the tenant has a budget on
 * when `sources` is null.
 */
export async function budgetStates(db: Queryable, tenantId: string, sources: readonly string[] | null): Promise<BudgetState[]> {
  const { rows } = await db.query<{ source: string; limit: string | null; month: string; spent: string; reserved: string }>({
    name: 'jobs.budgets.budgetStates',
    text: `WITH names AS (
        SELECT source FROM budgets WHERE tenant_id = $1 AND $2::text[] IS NULL
        UNION SELECT unnest($2::text[])),
      m AS (SELECT ${MONTH} AS month)
      SELECT n.source, b.monthly_limit::text AS "limit", to_char(m.month, 'YYYY-MM') AS month,
        coalesce(s.amount, 0)::text AS spent, coalesce(h.amount, 0)::text AS reserved
      FROM names n CROSS JOIN m
        LEFT JOIN budgets b ON b.tenant_id = $1 AND b.source = n.source
        LEFT JOIN spending s ON s.tenant_id = $1 AND s.source = n.source AND s.month = m.month
        LEFT JOIN LATERAL (SELECT sum(amount) AS amount FROM budget_holds
          WHERE tenant_id = $1 AND source = n.source AND month = m.month AND expires_at > now()) h ON true
      ORDER BY n.source`,
    values: [tenantId, sources],
  });
  return rows.map((r) => ({
    source: r.source,
    limit: r.limit === null ? null : Number(r.limit),
    month: r.month,
    spent: Number(r.spent),
    reserved: Number(r.reserved),
  }));
}

/**
 * What each of the sources that has a budget has left this month: the limit less what was spent and what live
 * holds expect to spend (≤ 0 when nothing is left). Sources without a budget are not in the map.
 */
export async function budgetsLeft(
  db: Queryable,
  tenantId: string,
  sources: readonly string[],
): Promise<Map<string, { limit: number; left: number; month: string }>> {
  const left = new Map<string, { limit: number; left: number; month: string }>();
  for (const s of await budgetStates(db, tenantId, sources)) {
    if (s.limit !== null) left.set(s.source, { limit: s.limit, left: s.limit - s.spent - s.reserved, month: s.month });
  }
  return left;
}

export interface HoldRequest {
  tenantId: string;
  source: string;
  /** The call's estimated cost. */
  amount: number;
  /** The queue entry making the call (its worker's heartbeat renews the hold) and its job. */
  entryId: string | null;
  jobId: string | null;
  /** How long the hold counts unless renewed (0: already lapsed, as a dead worker's hold). */
  leaseSeconds: number;
}

export type Reservation =
  | { held: true; holdId: string }
  /** It does not fit: what the budget stood at. */
  | { held: false; limit: number; spent: number; reserved: number; month: string }
  /** The tenant has no budget on the source (any more): nothing to hold. */
  | undefined;

/**
 * Holds `amount` against this month's budget if it fits (spent + live holds + amount ≤ limit). The budget row is
 * locked first, in a statement of its own, so that the sums are read after the lock is ours: two reservations
 * for one budget take turns, and each sees the other's hold.
 */
export async function reserveBudget(pool: Pool, hold: HoldRequest): Promise<Reservation> {
  return withTransaction(pool, async (tx) => {
    const { rows: budget } = await tx.query<{ limit: string }>({
      name: 'jobs.budgets.reserveBudget.lock',
      text: 'SELECT monthly_limit::text AS "limit" FROM budgets WHERE tenant_id = $1 AND source = $2 FOR UPDATE',
      values: [hold.tenantId, hold.source],
    });
    if (!budget[0]) return undefined;
    const limit = budget[0].limit;
    const { rows } = await tx.query<{ spent: string; reserved: string; holdId: string | null; month: string }>({
      name: 'jobs.budgets.reserveBudget',
      // Lapsed holds are dropped here, under the budget's lock; the sums ignore them either way.
      text: `WITH lapsed AS (DELETE FROM budget_holds WHERE tenant_id = $1 AND source = $2 AND expires_at <= now()),
        used AS (SELECT
          coalesce((SELECT amount FROM spending WHERE tenant_id = $1 AND source = $2 AND month = ${MONTH}), 0) AS spent,
          coalesce((SELECT sum(amount) FROM budget_holds
            WHERE tenant_id = $1 AND source = $2 AND month = ${MONTH} AND expires_at > now()), 0) AS reserved),
        held AS (
          INSERT INTO budget_holds (tenant_id, source, month, amount, entry_id, job_id, expires_at)
          SELECT $1, $2, ${MONTH}, $3::numeric, $4, $5, now() + make_interval(secs => $6) FROM used
          WHERE used.spent + used.reserved + $3::numeric <= $7::numeric
          RETURNING id)
        SELECT spent::text, reserved::text, (SELECT id FROM held) AS "holdId", to_char(${MONTH}, 'YYYY-MM') AS month FROM used`,
      values: [hold.tenantId, hold.source, String(hold.amount), hold.entryId, hold.jobId, hold.leaseSeconds, limit],
    });
    const r = rows[0]!;
    if (r.holdId !== null) return { held: true, holdId: r.holdId };
    return { held: false, limit: Number(limit), spent: Number(r.spent), reserved: Number(r.reserved), month: r.month };
  });
}

/**
 * In a settle's transaction: the entry's holds give way to what its calls cost, added to this month's spending
 * (budget or not).
 */
export async function settleSpending(
  tx: Queryable,
  settled: { tenantId: string; source: string; holdIds: readonly string[]; amount: number },
): Promise<void> {
  await tx.query({
    name: 'jobs.budgets.settleSpending',
    text: `WITH released AS (DELETE FROM budget_holds WHERE id = ANY ($3::uuid[]))
      INSERT INTO spending (tenant_id, source, month, amount) SELECT $1, $2, ${MONTH}, $4::numeric WHERE $4::numeric > 0
      ON CONFLICT (tenant_id, source, month) DO UPDATE SET amount = spending.amount + EXCLUDED.amount`,
    values: [settled.tenantId, settled.source, settled.holdIds, String(settled.amount)],
  });
}

/** Drops holds whose calls will not be settled (the entry's settle failed: nothing of its run was kept). */
export async function releaseHolds(db: Queryable, holdIds: readonly string[]): Promise<void> {
  if (holdIds.length === 0) return;
  await db.query({ name: 'jobs.budgets.releaseHolds', text: 'DELETE FROM budget_holds WHERE id = ANY ($1::uuid[])', values: [holdIds] });
}

/** The heartbeat: the holds of entries this process runs stay live for another lease. */
export async function renewHolds(db: Queryable, entryIds: readonly string[], leaseSeconds: number): Promise<void> {
  if (entryIds.length === 0) return;
  await db.query({
    name: 'jobs.budgets.renewHolds',
    text: 'UPDATE budget_holds SET expires_at = now() + make_interval(secs => $2) WHERE entry_id = ANY ($1::uuid[]) AND expires_at > now()',
    values: [entryIds, leaseSeconds],
  });
}
