// Tasks: one row per (job, domain, source), created queued and filled once by the engine: it is also the
// result row. Its typed columns are the sources' (`columns`, from the source registry).
import { withTransaction, type Pool, type Queryable } from '../../platform/db/index.ts';
import type { CostBasis, TypedColumn } from '../sources/index.ts';
import { perColumnList, type Statement } from './task-columns.ts';

/** One task row per (domain, source), domain-major, in one statement (up to 6,000 rows). */
export async function insertTasks(tx: Queryable, jobId: string, domains: string[], sources: readonly string[]): Promise<void> {
  await tx.query(
    `INSERT INTO tasks (job_id, position, domain, source)
     SELECT $1, d.ord - 1, d.name, s.name
     FROM unnest($2::text[]) WITH ORDINALITY AS d (name, ord) CROSS JOIN unnest($3::text[]) AS s (name)`,
    [jobId, domains, sources],
  );
}

/** Every column a finished task row has; the API shows each source's own typed columns. */
export interface ResultRow extends Record<string, unknown> {
  domain: string;
  source: string;
  state: 'ok' | 'error';
  errorCode: string | null;
  errorMessage: string | null;
  fetchedAt: Date | null;
  durationMs: number | null;
  raw: unknown;
  /** What its requests cost (numeric, as text), how that is known, how many: null on rows finished before costs were kept. */
  cost: string | null;
  costBasis: CostBasis | 'cached' | null;
  calls: number | null;
  /** The job whose call fetched the result, when the row was filled from it (a fresh result reused). */
  cachedFrom: string | null;
}

/** Which finished rows to read: by source and state, after a row (keyset), at most `limit`; all of them by default. */
export interface ResultQuery {
  source?: string | undefined;
  state?: 'ok' | 'error' | undefined;
  /** Rows strictly after this one in the result order (position, then source by code point). */
  after?: ResultPosition | undefined;
  limit?: number | undefined;
}

/** Where a row stands in the one result order of every form (JSON, pages, NDJSON, CSV). */
export interface ResultPosition {
  position: number;
  source: string;
}

/** Finished rows in the result order, with their position (the keyset of the next page). */
export async function finishedTasks(
  db: Queryable,
  jobId: string,
  columns: readonly TypedColumn[],
  query: ResultQuery = {},
): Promise<(ResultRow & ResultPosition)[]> {
  const after = query.after ?? { position: -1, source: '' };
  const values = [jobId, query.state ?? null, query.source ?? null, after.position, after.source, query.limit ?? null];
  const { rows } = await db.query<ResultRow & ResultPosition>({ ...statementsFor(columns).finishedTasks, values });
  return rows;
}

export interface PendingTask {
  position: number;
  domain: string;
}

/** The tasks of a range that have no result yet, in position order. */
export async function unfinishedTasks(db: Queryable, jobId: string, source: string, from: number, to: number): Promise<PendingTask[]> {
  const { rows } = await db.query<PendingTask>({
    name: 'jobs.tasks.unfinishedTasks',
    text: `SELECT position, domain FROM tasks
      WHERE job_id = $1 AND source = $2 AND position >= $3 AND position < $4 AND state IN ('queued', 'running')
      ORDER BY position`,
    values: [jobId, source, from, to],
  });
  return rows;
}

/** A finished task as the engine writes it: typed columns by their column names. */
export interface TaskResult {
  position: number;
  state: 'ok' | 'error';
  attempts: number;
  fetched_at: string;
  duration_ms: number;
  error_code: string | null;
  error_message: string | null;
  raw: unknown;
  /** What this attempt's requests cost, added to what earlier attempts of the row spent; absent: nothing. */
  cost?: number;
  cost_basis?: CostBasis;
  calls?: number;
  [column: string]: unknown;
}

/** What an attempt of a task spent (cost.ts `Spend`, as the row's columns). */
export interface TaskSpend {
  position: number;
  cost: number;
  cost_basis: CostBasis;
  calls: number;
}

// A row's cost adds every attempt's (a batch's share included), so the rows of a job add up to what it spent.
// Its basis follows cost.ts `addSpend`: `reported` while every part that adds to the amount was reported; a part
// that adds nothing by our own rule (no request, a refusal) leaves it as it was. A result written without
// spending adds nothing, and rows from before costs were kept (NULL) start at nothing.
const NEUTRAL = (x: string) => `(coalesce(${x}.calls, 0) = 0 OR (coalesce(${x}.cost, 0) = 0 AND ${x}.cost_basis = 'computed'))`;
const ADD_SPEND = `cost = coalesce(t.cost, 0) + coalesce(r.cost, 0), calls = coalesce(t.calls, 0) + coalesce(r.calls, 0),
  cost_basis = CASE WHEN ${NEUTRAL('r')} THEN (CASE WHEN ${NEUTRAL('t')} THEN 'computed' ELSE t.cost_basis END)
    WHEN ${NEUTRAL('t')} THEN r.cost_basis WHEN t.cost_basis = r.cost_basis THEN r.cost_basis ELSE 'computed' END`;

/** Adds what attempts that will be retried spent to their (still unfinished) rows. */
export async function addSpending(tx: Queryable, jobId: string, source: string, spent: TaskSpend[]): Promise<void> {
  await tx.query({
    name: 'jobs.tasks.addSpending',
    text: `UPDATE tasks t SET ${ADD_SPEND}
      FROM jsonb_to_recordset($3::jsonb) r (position integer, cost numeric, cost_basis text, calls integer)
      WHERE t.job_id = $1 AND t.source = $2 AND t.position = r.position AND t.state IN ('queued', 'running')`,
    values: [jobId, source, JSON.stringify(spent)],
  });
}

/**
 * Fills task rows that are still unfinished. A row already filled (a task run twice after a crash) is left
 * as it is, so each (job, domain, source) keeps exactly one result.
 */
export async function writeResults(
  tx: Queryable,
  jobId: string,
  source: string,
  results: TaskResult[],
  columns: readonly TypedColumn[],
): Promise<number> {
  if (results.length === 0) return 0;
  const updated = await tx.query({ ...statementsFor(columns).writeResults, values: [jobId, source, JSON.stringify(results)] });
  return updated.rowCount ?? 0;
}

/** Error rows for every unfinished task of a range (the dead-letter path). */
export async function failRange(
  tx: Queryable,
  jobId: string,
  source: string,
  from: number,
  to: number,
  code: string,
  message: string,
): Promise<number> {
  const updated = await tx.query(
    `UPDATE tasks SET state = 'error', fetched_at = now(), duration_ms = 0, error_code = $5, error_message = $6
     WHERE job_id = $1 AND source = $2 AND position >= $3 AND position < $4 AND state IN ('queued', 'running')`,
    [jobId, source, from, to, code, message],
  );
  return updated.rowCount ?? 0;
}

/**
 * Unfinished tasks of queued and running jobs, by source: each source's queue depth in tasks (a paused job's
 * tasks wait for nobody). The server cancels the statement after `timeoutMs`, so a slow database costs a
 * scrape that long at most.
 */
export async function queueDepths(pool: Pool, timeoutMs: number): Promise<Map<string, number>> {
  return withTransaction(pool, async (tx) => {
    await tx.query(`SELECT set_config('statement_timeout', $1, true)`, [String(Math.max(1, Math.floor(timeoutMs)))]);
    const { rows } = await tx.query<{ source: string; depth: number }>(
      `SELECT t.source, count(*)::int AS depth FROM tasks t JOIN jobs j ON j.id = t.job_id
       WHERE t.state IN ('queued', 'running') AND j.status IN ('queued', 'running')
       GROUP BY t.source`,
    );
    return new Map(rows.map((r) => [r.source, r.depth]));
  });
}

// The statements that name every typed column (task-columns.ts).
const statementsFor = perColumnList((names, digest): { finishedTasks: Statement; writeResults: Statement } => ({
  finishedTasks: {
    name: `jobs.tasks.finishedTasks.${digest}`,
    // The keyset repeats `position >= $4` on its own so that the primary key's range bounds the scan; sources
    // sort by code point (COLLATE "C"), the same on every server whatever its collation. LIMIT NULL is no limit.
    text: `SELECT position, domain, source, state, error_code AS "errorCode", error_message AS "errorMessage", fetched_at AS "fetchedAt",
         duration_ms AS "durationMs", raw, cost, cost_basis AS "costBasis", calls, cached_from AS "cachedFrom"${names.map((n) => `, ${n}`).join('')}
       FROM tasks WHERE job_id = $1 AND state IN ('ok', 'error') AND ($2::text IS NULL OR state = $2) AND ($3::text IS NULL OR source = $3)
         AND position >= $4 AND (position, source COLLATE "C") > ($4::integer, $5::text COLLATE "C")
       ORDER BY position, source COLLATE "C" LIMIT $6`,
  },
  writeResults: {
    name: `jobs.tasks.writeResults.${digest}`,
    text: `UPDATE tasks t SET state = r.state, attempts = r.attempts, fetched_at = r.fetched_at, duration_ms = r.duration_ms,
          error_code = r.error_code, error_message = r.error_message, raw = r.raw, ${ADD_SPEND}${names.map((n) => `, ${n} = r.${n}`).join('')}
        FROM jsonb_populate_recordset(NULL::tasks, $3::jsonb) r
        WHERE t.job_id = $1 AND t.source = $2 AND t.position = r.position AND t.state IN ('queued', 'running')`,
  },
}));
