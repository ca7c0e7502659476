// Jobs: the job rows, read with their progress, and the transitions of their status. Every read of a job for
// the API names its tenant: another tenant's job is simply not found.
import type { Queryable } from '../../platform/db/index.ts';
import { allows, isActive, type EndStatus, type JobStatus } from '../job-status.ts';
import type { Scope } from '../keys.ts';
import type { ActiveKey } from './keys.ts';

interface NewJob {
  id: string;
  tenantId: string;
  domains: string[];
  jobTypes: readonly string[];
  webhookUrl: string | null;
  webhookSecret: string | null;
}

export interface JobRow {
  id: string;
  status: JobStatus;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  jobTypes: string[];
  domainCount: number;
  webhookUrl: string | null;
  total: number;
  succeeded: number;
  failed: number;
  /** What its finished rows cost, by source (numeric, as text); absent on a job just made, which has none. */
  cost?: Record<string, string> | null;
  /** Only on single reads. */
  domains?: string[];
}

// Progress and cost are counted from the task rows themselves (no counters to drift), in one pass over the
// finished rows; the partial index holds only those, so a queued job costs nothing to count.
const JOB_SELECT = `SELECT j.id, j.status, j.created_at AS "createdAt", j.started_at AS "startedAt",
  j.finished_at AS "finishedAt", j.job_types AS "jobTypes", cardinality(j.domains) AS "domainCount",
  j.webhook_url AS "webhookUrl", cardinality(j.domains) * cardinality(j.job_types) AS total,
  p.succeeded, p.failed, p.cost`;
const PROGRESS = `CROSS JOIN LATERAL (
  SELECT coalesce(sum(s.ok), 0)::int AS succeeded, coalesce(sum(s.error), 0)::int AS failed,
    jsonb_object_agg(s.source, s.cost::text) FILTER (WHERE s.cost IS NOT NULL) AS cost
  FROM (SELECT t.source, count(*) FILTER (WHERE t.state = 'ok') AS ok, count(*) FILTER (WHERE t.state = 'error') AS error,
      sum(t.cost) AS cost
    FROM tasks t WHERE t.job_id = j.id AND t.state IN ('ok', 'error') GROUP BY t.source) s) p`;

export async function insertJob(tx: Queryable, job: NewJob): Promise<Date> {
  const { rows } = await tx.query<{ createdAt: Date }>(
    `INSERT INTO jobs (id, tenant_id, domains, job_types, webhook_url, webhook_secret) VALUES ($1, $2, $3, $4, $5, $6)
     RETURNING created_at AS "createdAt"`,
    [job.id, job.tenantId, job.domains, job.jobTypes, job.webhookUrl, job.webhookSecret],
  );
  return rows[0]!.createdAt;
}

export async function jobById(db: Queryable, tenantId: string, id: string): Promise<(JobRow & { domains: string[] }) | undefined> {
  const { rows } = await db.query<JobRow & { domains: string[] }>({
    name: 'jobs.jobs.jobById',
    text: `${JOB_SELECT}, j.domains FROM jobs j ${PROGRESS} WHERE j.tenant_id = $1 AND j.id = $2`,
    values: [tenantId, id],
  });
  return rows[0];
}

/** The status and sources of one of the tenant's jobs, or undefined. */
export async function jobState(
  db: Queryable,
  tenantId: string,
  id: string,
): Promise<{ status: JobStatus; jobTypes: string[] } | undefined> {
  const { rows } = await db.query<{ status: JobStatus; jobTypes: string[] }>({
    name: 'jobs.jobs.jobState',
    text: 'SELECT status, job_types AS "jobTypes" FROM jobs WHERE id = $1 AND tenant_id = $2',
    values: [id, tenantId],
  });
  return rows[0];
}

/**
 * The key of a token hash and, when the key is active, its tenant's job `id`: the job read's two lookups in
 * one round trip (the key is checked by the caller exactly as on every other route).
 */
export async function keyAndJob(db: Queryable, hash: Buffer, id: string): Promise<{ key?: ActiveKey; job?: JobRow }> {
  const { rows } = await db.query<
    JobRow & { keyId: string; tenantId: string; scopes: Scope[]; tokenHash: Buffer; lastUsedAt: Date | null }
  >({
    name: 'jobs.jobs.keyAndJob',
    text: `SELECT k.id AS "keyId", k.tenant_id AS "tenantId", k.scopes, k.token_hash AS "tokenHash", k.last_used_at AS "lastUsedAt", x.*
      FROM api_keys k
      LEFT JOIN LATERAL (${JOB_SELECT}, j.domains FROM jobs j ${PROGRESS} WHERE j.tenant_id = k.tenant_id AND j.id = $2) x ON true
      WHERE k.token_hash = $1 AND k.revoked_at IS NULL`,
    values: [hash, id],
  });
  const row = rows[0];
  if (!row) return {};
  const { keyId, tenantId, scopes, tokenHash, lastUsedAt, ...job } = row;
  return { key: { id: keyId, tenantId, scopes, tokenHash, lastUsedAt }, job: job.id ? job : undefined };
}

type JobPage = { ok: true; jobs: JobRow[]; more: boolean } | { ok: false };

/** One page of the tenant's jobs, newest first; `ok: false` when the cursor is not one of its jobs. */
export async function listJobs(db: Queryable, tenantId: string, limit: number, cursor?: string): Promise<JobPage> {
  if (cursor === undefined) {
    const { rows } = await db.query<JobRow>({
      name: 'jobs.jobs.listJobs.first',
      text: `${JOB_SELECT} FROM jobs j ${PROGRESS} WHERE j.tenant_id = $1 ORDER BY j.created_at DESC, j.id DESC LIMIT $2`,
      values: [tenantId, limit + 1],
    });
    return { ok: true, jobs: rows.slice(0, limit), more: rows.length > limit };
  }
  // The cursor row is read first, in the tenant: a cursor that is not one of its jobs is refused.
  const { rows } = await db.query<JobRow>({
    name: 'jobs.jobs.listJobs.after',
    text: `WITH c AS (SELECT created_at, id FROM jobs WHERE id = $2 AND tenant_id = $1)
      SELECT page.* FROM c LEFT JOIN LATERAL (
        ${JOB_SELECT} FROM jobs j ${PROGRESS}
        WHERE j.tenant_id = $1 AND (j.created_at, j.id) < (c.created_at, c.id)
        ORDER BY j.created_at DESC, j.id DESC LIMIT $3) page ON true`,
    values: [tenantId, cursor, limit + 1],
  });
  if (rows.length === 0) return { ok: false };
  // A found cursor with nothing after it yields one all-null row.
  const jobs = rows.filter((r) => r.id !== null);
  return { ok: true, jobs: jobs.slice(0, limit), more: jobs.length > limit };
}

type PauseOutcome = { outcome: 'paused' | 'unchanged' | 'finished'; job: JobRow } | { outcome: 'not_found' };

/** Soft-cancel: a queued or running job becomes paused; a paused one stays; an ended one cannot. */
export async function pauseJob(tx: Queryable, tenantId: string, id: string): Promise<PauseOutcome> {
  const { rows } = await tx.query<{ status: JobStatus }>('SELECT status FROM jobs WHERE id = $1 AND tenant_id = $2 FOR UPDATE', [
    id,
    tenantId,
  ]);
  const current = rows[0];
  if (!current) return { outcome: 'not_found' };
  let outcome: 'paused' | 'unchanged' | 'finished' = 'unchanged';
  if (isActive(current.status)) {
    await tx.query(`UPDATE jobs SET status = 'paused', paused_at = now() WHERE id = $1`, [id]);
    outcome = 'paused';
  } else if (!allows('pause', current.status)) {
    outcome = 'finished';
  }
  return { outcome, job: (await jobById(tx, tenantId, id))! };
}

interface EntryJob {
  status: JobStatus;
  tenantId: string;
  /** The job's run (resume and retry start a new one): an entry of an older run does nothing. */
  run: number;
}

/** Marks a job running when its first task (of run `run`) starts; returns its status (after that), tenant and run. */
export async function startJob(db: Queryable, jobId: string, run: number): Promise<EntryJob | undefined> {
  const { rows } = await db.query<EntryJob>({
    name: 'jobs.jobs.startJob',
    text: `WITH started AS (
        UPDATE jobs SET status = 'running', started_at = now() WHERE id = $1 AND status = 'queued' AND run = $2
        RETURNING status, tenant_id, run)
      SELECT status, tenant_id AS "tenantId", run FROM started
      UNION ALL SELECT status, tenant_id, run FROM jobs WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM started)`,
    values: [jobId, run],
  });
  return rows[0];
}

/** Read before each upstream call, so a pause (or a newer run) stops new calls at once. */
export async function jobStatusById(db: Queryable, jobId: string): Promise<{ status: JobStatus; run: number } | undefined> {
  const { rows } = await db.query<{ status: JobStatus; run: number }>({
    name: 'jobs.jobs.jobStatusById',
    text: 'SELECT status, run FROM jobs WHERE id = $1',
    values: [jobId],
  });
  return rows[0];
}

export interface FinishedJob {
  status: EndStatus;
  finishedAt: Date;
  webhookUrl: string | null;
}

/**
 * Ends a running (or queued) job whose tasks all have results: completed when one succeeded, else failed.
 * The job row is locked first, so of two transactions writing a job's last results the second sees the
 * first's rows and exactly one of them ends the job. Paused jobs are never ended.
 */
export async function finishIfDone(tx: Queryable, jobId: string): Promise<FinishedJob | undefined> {
  const { rows } = await tx.query<{ status: JobStatus }>({
    name: 'jobs.jobs.finishIfDone.lock',
    text: 'SELECT status FROM jobs WHERE id = $1 FOR UPDATE',
    values: [jobId],
  });
  const status = rows[0]?.status;
  if (status === undefined || !isActive(status)) return undefined;
  const { rows: finished } = await tx.query<FinishedJob>({
    name: 'jobs.jobs.finishIfDone.finish',
    text: `UPDATE jobs SET finished_at = now(), started_at = coalesce(started_at, now()),
        status = CASE WHEN EXISTS (SELECT 1 FROM tasks WHERE job_id = $1 AND state = 'ok') THEN 'completed' ELSE 'failed' END
      WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM tasks WHERE job_id = $1 AND state IN ('queued', 'running'))
      RETURNING status, finished_at AS "finishedAt", webhook_url AS "webhookUrl"`,
    values: [jobId],
  });
  return finished[0];
}

/** Signing secrets of jobs, by job id (the jobs service's webhook secret references). */
export async function webhookSecrets(db: Queryable, jobIds: string[]): Promise<Map<string, string>> {
  const { rows } = await db.query<{ id: string; secret: string }>(
    'SELECT id, webhook_secret AS secret FROM jobs WHERE id = ANY ($1::uuid[]) AND webhook_secret IS NOT NULL',
    [jobIds],
  );
  return new Map(rows.map((r) => [r.id, r.secret]));
}
