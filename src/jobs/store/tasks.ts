// Tasks: one row per (job, domain, source), created queued and filled once by the engine: it is also the
// result row. Its typed columns are the sources' (`columns`, from the source registry).
import { createHash } from 'node:crypto';
import { withTransaction, type Pool, type Queryable } from '../../platform/db/index.ts';
import type { TypedColumn } from '../sources/index.ts';

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
}

export async function finishedTasks(db: Queryable, jobId: string, columns: readonly TypedColumn[]): Promise<ResultRow[]> {
  const { rows } = await db.query<ResultRow>({ ...statementsFor(columns).finishedTasks, values: [jobId] });
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
  [column: string]: unknown;
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

interface Statement {
  name: string;
  text: string;
}

// The statements that name every typed column are made once per list of columns. Their names carry a digest of
// the list: a prepared statement's name must always stand for the same text on a connection.
const statements = new WeakMap<readonly TypedColumn[], { finishedTasks: Statement; writeResults: Statement }>();

function statementsFor(columns: readonly TypedColumn[]): { finishedTasks: Statement; writeResults: Statement } {
  let made = statements.get(columns);
  if (made) return made;
  const names = columns.map((c) => `"${c.name}"`);
  const digest = createHash('sha256').update(names.join(',')).digest('hex').slice(0, 8);
  made = {
    finishedTasks: {
      name: `jobs.tasks.finishedTasks.${digest}`,
      text: `SELECT domain, source, state, error_code AS "errorCode", error_message AS "errorMessage", fetched_at AS "fetchedAt",
         duration_ms AS "durationMs", raw${names.map((n) => `, ${n}`).join('')}
       FROM tasks WHERE job_id = $1 AND state IN ('ok', 'error')
       ORDER BY position, source COLLATE "C"`,
    },
    writeResults: {
      name: `jobs.tasks.writeResults.${digest}`,
      text: `UPDATE tasks t SET state = r.state, attempts = r.attempts, fetched_at = r.fetched_at, duration_ms = r.duration_ms,
          error_code = r.error_code, error_message = r.error_message, raw = r.raw${names.map((n) => `, ${n} = r.${n}`).join('')}
        FROM jsonb_populate_recordset(NULL::tasks, $3::jsonb) r
        WHERE t.job_id = $1 AND t.source = $2 AND t.position = r.position AND t.state IN ('queued', 'running')`,
    },
  };
  statements.set(columns, made);
  return made;
}
