// The transitions clients ask for (resume, retry, hard cancel: src/jobs/job-status.ts): each runs in one
// transaction that first locks the job row, so two requests, or a request and the engine ending the job, take
// turns and see each other's outcome.
import type { Queryable } from '../../platform/db/index.ts';
import type { JobStatus } from '../job-status.ts';

/** NOTIFY channel on which a hard cancel names its job: every worker aborts that job's upstream calls at once. */
export const JOB_CANCELLED_CHANNEL = 'domainkit_job_cancelled';

/** The error code of the rows a hard cancel ends. */
export const CANCELLED = 'cancelled';
const CANCELLED_MESSAGE = 'the job was cancelled before this task finished';

export interface LockedJob {
  status: JobStatus;
  /** The job's run: 0 for the first, one more for each resume and retry (queue entries carry theirs). */
  run: number;
  tenantId: string;
}

/** Positions [from, to) of one source's tasks to run again: its queue entries' range. */
export interface Span {
  source: string;
  from: number;
  to: number;
}

/** The tenant's job, locked until the transaction ends; undefined when it has no such job. */
export async function lockJob(tx: Queryable, tenantId: string, id: string): Promise<LockedJob | undefined> {
  const { rows } = await tx.query<LockedJob>({
    name: 'jobs.transitions.lockJob',
    text: 'SELECT status, run, tenant_id AS "tenantId" FROM jobs WHERE id = $1 AND tenant_id = $2 FOR UPDATE',
    values: [id, tenantId],
  });
  return rows[0];
}

/**
 * Resume: a paused job goes back to running when a task of it had started, else to queued, in a new run; the
 * spans of its unfinished tasks are what the new run's entries cover.
 */
export async function markResumed(tx: Queryable, id: string): Promise<{ run: number; spans: Span[] }> {
  const { rows } = await tx.query<{ run: number }>({
    name: 'jobs.transitions.markResumed',
    text: `UPDATE jobs SET status = CASE WHEN started_at IS NULL THEN 'queued' ELSE 'running' END, paused_at = NULL, run = run + 1
      WHERE id = $1 RETURNING run`,
    values: [id],
  });
  const { rows: spans } = await tx.query<Span>({
    name: 'jobs.transitions.markResumed.spans',
    text: `SELECT source, min(position) AS "from", max(position) + 1 AS "to" FROM tasks
      WHERE job_id = $1 AND state IN ('queued', 'running') GROUP BY source`,
    values: [id],
  });
  return { run: rows[0]!.run, spans };
}

/**
 * Retry: the job's error rows whose code is one of `codes` (every error row when null) are queued again, and
 * the job runs again in a new run; undefined, and nothing changed, when there is no such row.
 */
export async function markRetried(
  tx: Queryable,
  id: string,
  codes: readonly string[] | null,
): Promise<{ run: number; spans: Span[] } | undefined> {
  const { rows: spans } = await tx.query<Span>({
    name: 'jobs.transitions.markRetried.tasks',
    text: `WITH reset AS (
        UPDATE tasks SET state = 'queued', error_code = NULL, error_message = NULL, raw = NULL, fetched_at = NULL, duration_ms = NULL
        WHERE job_id = $1 AND state = 'error' AND ($2::text[] IS NULL OR error_code = ANY ($2::text[]))
        RETURNING source, position)
      SELECT source, min(position) AS "from", max(position) + 1 AS "to" FROM reset GROUP BY source`,
    values: [id, codes],
  });
  if (spans.length === 0) return undefined;
  const { rows } = await tx.query<{ run: number }>({
    name: 'jobs.transitions.markRetried.job',
    text: `UPDATE jobs SET status = 'running', finished_at = NULL, run = run + 1 WHERE id = $1 RETURNING run`,
    values: [id],
  });
  return { run: rows[0]!.run, spans };
}

/**
 * Hard cancel: the job's unfinished rows become `cancelled` error rows, the job ends `cancelled`, and every
 * worker hears of it (NOTIFY, delivered at commit). A row an entry is settling right now (locked) is skipped
 * rather than waited for: that entry writes its result, or, if it rolls back, its next run finds the job
 * cancelled and ends the row (`cancelRange`). Waiting instead could deadlock, since a settling entry locks its
 * rows first and the job row last.
 */
export async function markCancelled(tx: Queryable, id: string): Promise<{ finishedAt: Date; webhookUrl: string | null }> {
  await tx.query({
    name: 'jobs.transitions.markCancelled.tasks',
    text: `UPDATE tasks t SET state = 'error', error_code = $2, error_message = $3, fetched_at = NULL, duration_ms = NULL
      FROM (SELECT position, source FROM tasks WHERE job_id = $1 AND state IN ('queued', 'running') FOR UPDATE SKIP LOCKED) u
      WHERE t.job_id = $1 AND t.position = u.position AND t.source = u.source`,
    values: [id, CANCELLED, CANCELLED_MESSAGE],
  });
  const { rows } = await tx.query<{ finishedAt: Date; webhookUrl: string | null }>({
    name: 'jobs.transitions.markCancelled.job',
    text: `UPDATE jobs SET status = 'cancelled', finished_at = now(), paused_at = NULL WHERE id = $1
      RETURNING finished_at AS "finishedAt", webhook_url AS "webhookUrl"`,
    values: [id],
  });
  await tx.query({ name: 'jobs.transitions.markCancelled.notify', text: 'SELECT pg_notify($1, $2)', values: [JOB_CANCELLED_CHANNEL, id] });
  return rows[0]!;
}

/** The unfinished rows of a range of a cancelled job end as `cancelled` (see `markCancelled`). */
export async function cancelRange(tx: Queryable, jobId: string, source: string, from: number, to: number): Promise<number> {
  const updated = await tx.query({
    name: 'jobs.transitions.cancelRange',
    text: `UPDATE tasks SET state = 'error', error_code = $5, error_message = $6, fetched_at = NULL, duration_ms = NULL
      WHERE job_id = $1 AND source = $2 AND position >= $3 AND position < $4 AND state IN ('queued', 'running')`,
    values: [jobId, source, from, to, CANCELLED, CANCELLED_MESSAGE],
  });
  return updated.rowCount ?? 0;
}

/** Of these jobs, the ones cancelled: a worker's catch-up for notifications it may have missed. */
export async function cancelledAmong(db: Queryable, ids: string[]): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>({
    name: 'jobs.transitions.cancelledAmong',
    text: `SELECT id FROM jobs WHERE id = ANY ($1::uuid[]) AND status = 'cancelled'`,
    values: [ids],
  });
  return rows.map((r) => r.id);
}
