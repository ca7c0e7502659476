// All SQL of the jobs service. Every read of a job names its tenant: another tenant's job is simply not found.
// Queries on the request path are named, so each connection prepares them once: planning the progress
// aggregate on every read cost more than running it (bench:jobs-api, GET 1,900 → 6,300 requests/s).
import type { JobSource } from '../config.ts';
import { withTransaction, type Pool, type Queryable } from '../platform/db/index.ts';
import type { Scope } from './keys.ts';

export type JobStatus = 'queued' | 'running' | 'paused' | 'completed' | 'failed';

// ---------------------------------------------------------------------------------------------- tenants, keys

export interface KeyRow {
  id: string;
  tenantId: string;
  name: string;
  scopes: Scope[];
  tokenPrefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** The key a request authenticates with: only active keys are found. */
export interface ActiveKey {
  id: string;
  tenantId: string;
  scopes: Scope[];
  tokenHash: Buffer;
  lastUsedAt: Date | null;
}

const KEY_COLUMNS = `id, tenant_id AS "tenantId", name, scopes, token_prefix AS "tokenPrefix", created_at AS "createdAt",
  last_used_at AS "lastUsedAt", revoked_at AS "revokedAt"`;

/** The tenant's id, creating the tenant when the name is new. */
export async function ensureTenant(db: Queryable, id: string, name: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `WITH made AS (INSERT INTO tenants (id, name) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING id)
     SELECT id FROM made UNION ALL SELECT id FROM tenants WHERE name = $2 LIMIT 1`,
    [id, name],
  );
  return rows[0]!.id;
}

export interface NewKey {
  id: string;
  tenantId: string;
  name: string;
  scopes: readonly Scope[];
  tokenHash: Buffer;
  tokenPrefix: string;
}

export async function insertKey(db: Queryable, key: NewKey): Promise<KeyRow> {
  const { rows } = await db.query<KeyRow>(
    `INSERT INTO api_keys (id, tenant_id, name, scopes, token_hash, token_prefix) VALUES ($1, $2, $3, $4, $5, $6)
     RETURNING ${KEY_COLUMNS}`,
    [key.id, key.tenantId, key.name, key.scopes, key.tokenHash, key.tokenPrefix],
  );
  return rows[0]!;
}

export async function activeKeyByHash(db: Queryable, hash: Buffer): Promise<ActiveKey | undefined> {
  const { rows } = await db.query<ActiveKey>({
    name: 'jobs.active-key',
    text: `SELECT id, tenant_id AS "tenantId", scopes, token_hash AS "tokenHash", last_used_at AS "lastUsedAt"
      FROM api_keys WHERE token_hash = $1 AND revoked_at IS NULL`,
    values: [hash],
  });
  return rows[0];
}

/** Records use at most once a minute per key, so authentication does not write on every request. */
export async function touchKey(db: Queryable, id: string): Promise<void> {
  await db.query({
    name: 'jobs.touch-key',
    text: `UPDATE api_keys SET last_used_at = now()
      WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
    values: [id],
  });
}

/** Keys of a tenant, or only one of them (`onlyId`), oldest first. */
export async function listKeys(db: Queryable, tenantId: string, onlyId?: string): Promise<KeyRow[]> {
  const { rows } = await db.query<KeyRow>(
    `SELECT ${KEY_COLUMNS} FROM api_keys WHERE tenant_id = $1 AND ($2::uuid IS NULL OR id = $2) ORDER BY created_at, id`,
    [tenantId, onlyId ?? null],
  );
  return rows;
}

export type RevokeOutcome = 'revoked' | 'already_revoked' | 'not_found' | 'last_admin';

/** Revokes a key of the tenant, unless it is the tenant's last active `keys:admin` key. Run in a transaction. */
export async function revokeKey(tx: Queryable, tenantId: string, keyId: string): Promise<RevokeOutcome> {
  // Serialises revocations within a tenant: two admins revoking each other at once cannot both succeed.
  await tx.query('SELECT 1 FROM tenants WHERE id = $1 FOR UPDATE', [tenantId]);
  const { rows } = await tx.query<{ scopes: Scope[]; revoked: boolean }>(
    'SELECT scopes, revoked_at IS NOT NULL AS revoked FROM api_keys WHERE id = $1 AND tenant_id = $2',
    [keyId, tenantId],
  );
  const key = rows[0];
  if (!key) return 'not_found';
  if (key.revoked) return 'already_revoked';
  if (key.scopes.includes('keys:admin')) {
    const others = await tx.query(
      `SELECT 1 FROM api_keys WHERE tenant_id = $1 AND id <> $2 AND revoked_at IS NULL AND 'keys:admin' = ANY (scopes) LIMIT 1`,
      [tenantId, keyId],
    );
    if (others.rowCount === 0) return 'last_admin';
  }
  await tx.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [keyId]);
  return 'revoked';
}

// ---------------------------------------------------------------------------------------------------- jobs

export interface NewJob {
  id: string;
  tenantId: string;
  domains: string[];
  jobTypes: JobSource[];
  webhookUrl: string | null;
  webhookSecret: string | null;
}

export interface JobRow {
  id: string;
  status: JobStatus;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  jobTypes: JobSource[];
  domainCount: number;
  webhookUrl: string | null;
  total: number;
  succeeded: number;
  failed: number;
  /** Only on single reads. */
  domains?: string[];
}

// Progress is counted from the task rows themselves (no counters to drift); the partial index holds only
// finished rows, so a queued job costs nothing to count.
const JOB_SELECT = `SELECT j.id, j.status, j.created_at AS "createdAt", j.started_at AS "startedAt",
  j.finished_at AS "finishedAt", j.job_types AS "jobTypes", cardinality(j.domains) AS "domainCount",
  j.webhook_url AS "webhookUrl", cardinality(j.domains) * cardinality(j.job_types) AS total,
  p.succeeded, p.failed`;
const PROGRESS = `CROSS JOIN LATERAL (
  SELECT count(*) FILTER (WHERE t.state = 'ok')::int AS succeeded, count(*) FILTER (WHERE t.state = 'error')::int AS failed
  FROM tasks t WHERE t.job_id = j.id AND t.state IN ('ok', 'error')) p`;

export async function insertJob(tx: Queryable, job: NewJob): Promise<Date> {
  const { rows } = await tx.query<{ createdAt: Date }>(
    `INSERT INTO jobs (id, tenant_id, domains, job_types, webhook_url, webhook_secret) VALUES ($1, $2, $3, $4, $5, $6)
     RETURNING created_at AS "createdAt"`,
    [job.id, job.tenantId, job.domains, job.jobTypes, job.webhookUrl, job.webhookSecret],
  );
  return rows[0]!.createdAt;
}

/** One task row per (domain, source), domain-major, in one statement (up to 6,000 rows). */
export async function insertTasks(tx: Queryable, jobId: string, domains: string[], sources: readonly JobSource[]): Promise<void> {
  await tx.query(
    `INSERT INTO tasks (job_id, position, domain, source)
     SELECT $1, d.ord - 1, d.name, s.name
     FROM unnest($2::text[]) WITH ORDINALITY AS d (name, ord) CROSS JOIN unnest($3::text[]) AS s (name)`,
    [jobId, domains, sources],
  );
}

export async function jobById(db: Queryable, tenantId: string, id: string): Promise<JobRow | undefined> {
  const { rows } = await db.query<JobRow>({
    name: 'jobs.job-by-id',
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
): Promise<{ status: JobStatus; jobTypes: JobSource[] } | undefined> {
  const { rows } = await db.query<{ status: JobStatus; jobTypes: JobSource[] }>({
    name: 'jobs.job-state',
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
    name: 'jobs.key-and-job',
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

export type JobPage = { ok: true; jobs: JobRow[]; more: boolean } | { ok: false };

/** One page of the tenant's jobs, newest first; `ok: false` when the cursor is not one of its jobs. */
export async function listJobs(db: Queryable, tenantId: string, limit: number, cursor?: string): Promise<JobPage> {
  if (cursor === undefined) {
    const { rows } = await db.query<JobRow>({
      name: 'jobs.list-first',
      text: `${JOB_SELECT} FROM jobs j ${PROGRESS} WHERE j.tenant_id = $1 ORDER BY j.created_at DESC, j.id DESC LIMIT $2`,
      values: [tenantId, limit + 1],
    });
    return { ok: true, jobs: rows.slice(0, limit), more: rows.length > limit };
  }
  // The cursor row is read first, in the tenant: a cursor that is not one of its jobs is refused.
  const { rows } = await db.query<JobRow>({
    name: 'jobs.list-after',
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

export type PauseOutcome =
  | { outcome: 'paused' | 'unchanged'; job: JobRow }
  | { outcome: 'finished'; job: JobRow }
  | { outcome: 'not_found' };

/** Soft-cancel: a queued or running job becomes paused; a paused one stays; a finished one cannot. */
export async function pauseJob(tx: Queryable, tenantId: string, id: string): Promise<PauseOutcome> {
  const { rows } = await tx.query<{ status: JobStatus }>('SELECT status FROM jobs WHERE id = $1 AND tenant_id = $2 FOR UPDATE', [
    id,
    tenantId,
  ]);
  const current = rows[0];
  if (!current) return { outcome: 'not_found' };
  let outcome: 'paused' | 'unchanged' | 'finished' = 'unchanged';
  if (current.status === 'queued' || current.status === 'running') {
    await tx.query(`UPDATE jobs SET status = 'paused', paused_at = now() WHERE id = $1`, [id]);
    outcome = 'paused';
  } else if (current.status === 'completed' || current.status === 'failed') {
    outcome = 'finished';
  }
  return { outcome, job: (await jobById(tx, tenantId, id))! };
}

// ------------------------------------------------------------------------------------------------- results

/** Every column a finished task row has; the API shows each source's own typed columns. */
export interface ResultRow extends Record<string, unknown> {
  domain: string;
  source: JobSource;
  state: 'ok' | 'error';
  errorCode: string | null;
  errorMessage: string | null;
  fetchedAt: Date | null;
  durationMs: number | null;
  raw: unknown;
}

export async function finishedTasks(db: Queryable, jobId: string): Promise<ResultRow[]> {
  const { rows } = await db.query<ResultRow>({
    name: 'jobs.finished-tasks',
    text: `SELECT domain, source, state, error_code AS "errorCode", error_message AS "errorMessage", fetched_at AS "fetchedAt",
       duration_ms AS "durationMs", raw, linkpop, domainpop, ip_pop, classc_pop, domain_authority, page_authority,
       spam_score, linking_domains, inbound_links, domain_rating, backlinks, ref_domains, dofollow_pct, organic_traffic,
       traffic_value, snapshot_count, first_snapshot_at, last_snapshot_at, reachable, status_code, response_ms
     FROM tasks WHERE job_id = $1 AND state IN ('ok', 'error')
     ORDER BY position, source COLLATE "C"`,
    values: [jobId],
  });
  return rows;
}

// -------------------------------------------------------------------------------------------------- engine

/** Makes sure slot rows 0 … limit-1 of a source exist (a raised limit adds rows; a lowered one ignores the rest). */
export async function ensureSlots(db: Queryable, source: JobSource, limit: number): Promise<void> {
  await db.query(`INSERT INTO source_slots (source, slot) SELECT $1, g FROM generate_series(0, $2 - 1) AS g ON CONFLICT DO NOTHING`, [
    source,
    limit,
  ]);
}

/** Leases up to `count` free slots of a source (free: never held, released, or lease run out). */
export async function acquireSlots(
  db: Queryable,
  source: JobSource,
  limit: number,
  count: number,
  holder: string,
  leaseSeconds: number,
): Promise<number[]> {
  const { rows } = await db.query<{ slot: number }>({
    name: 'engine.acquire-slots',
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

export async function releaseSlots(db: Queryable, source: JobSource, slots: number[], holder: string): Promise<void> {
  if (slots.length === 0) return;
  await db.query({
    name: 'engine.release-slots',
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

export interface EntryJob {
  status: JobStatus;
  tenantId: string;
}

/** Marks a job running when its first task starts; returns its status (after that) and tenant. */
export async function startJob(db: Queryable, jobId: string): Promise<EntryJob | undefined> {
  const { rows } = await db.query<EntryJob>({
    name: 'engine.start-job',
    text: `WITH started AS (
        UPDATE jobs SET status = 'running', started_at = now() WHERE id = $1 AND status = 'queued'
        RETURNING status, tenant_id)
      SELECT status, tenant_id AS "tenantId" FROM started
      UNION ALL SELECT status, tenant_id FROM jobs WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM started)`,
    values: [jobId],
  });
  return rows[0];
}

/** Read before each upstream call, so a pause stops new calls at once. */
export async function jobStatusById(db: Queryable, jobId: string): Promise<JobStatus | undefined> {
  const { rows } = await db.query<{ status: JobStatus }>({
    name: 'engine.job-status',
    text: 'SELECT status FROM jobs WHERE id = $1',
    values: [jobId],
  });
  return rows[0]?.status;
}

export interface PendingTask {
  position: number;
  domain: string;
}

/** The tasks of a range that have no result yet, in position order. */
export async function unfinishedTasks(db: Queryable, jobId: string, source: JobSource, from: number, to: number): Promise<PendingTask[]> {
  const { rows } = await db.query<PendingTask>({
    name: 'engine.unfinished-tasks',
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
export async function writeResults(tx: Queryable, jobId: string, source: JobSource, results: TaskResult[]): Promise<number> {
  if (results.length === 0) return 0;
  const updated = await tx.query({
    name: 'engine.write-results',
    text: `UPDATE tasks t SET state = r.state, attempts = r.attempts, fetched_at = r.fetched_at, duration_ms = r.duration_ms,
        error_code = r.error_code, error_message = r.error_message, raw = r.raw,
        linkpop = r.linkpop, domainpop = r.domainpop, ip_pop = r.ip_pop, classc_pop = r.classc_pop,
        domain_authority = r.domain_authority, page_authority = r.page_authority, spam_score = r.spam_score,
        linking_domains = r.linking_domains, inbound_links = r.inbound_links, domain_rating = r.domain_rating,
        backlinks = r.backlinks, ref_domains = r.ref_domains, dofollow_pct = r.dofollow_pct,
        organic_traffic = r.organic_traffic, traffic_value = r.traffic_value, snapshot_count = r.snapshot_count,
        first_snapshot_at = r.first_snapshot_at, last_snapshot_at = r.last_snapshot_at, reachable = r.reachable,
        status_code = r.status_code, response_ms = r.response_ms
      FROM jsonb_populate_recordset(NULL::tasks, $3::jsonb) r
      WHERE t.job_id = $1 AND t.source = $2 AND t.position = r.position AND t.state IN ('queued', 'running')`,
    values: [jobId, source, JSON.stringify(results)],
  });
  return updated.rowCount ?? 0;
}

/** Error rows for every unfinished task of a range (the dead-letter path). */
export async function failRange(
  tx: Queryable,
  jobId: string,
  source: JobSource,
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

export interface FinishedJob {
  status: 'completed' | 'failed';
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
    name: 'engine.lock-job',
    text: 'SELECT status FROM jobs WHERE id = $1 FOR UPDATE',
    values: [jobId],
  });
  const status = rows[0]?.status;
  if (status !== 'queued' && status !== 'running') return undefined;
  const { rows: finished } = await tx.query<FinishedJob>({
    name: 'engine.finish-job',
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

export async function releaseAllSlots(db: Queryable, holder: string): Promise<void> {
  await db.query('UPDATE source_slots SET holder = NULL, lease_until = NULL WHERE holder = $1', [holder]);
}

// ---------------------------------------------------------------------------------------------- metrics

/**
 * Unfinished tasks of queued and running jobs, by source: each source's queue depth in tasks (a paused job's
 * tasks wait for nobody). The server cancels the statement after `timeoutMs`, so a slow database costs a
 * scrape that long at most.
 */
export async function queueDepths(pool: Pool, timeoutMs: number): Promise<Map<JobSource, number>> {
  return withTransaction(pool, async (tx) => {
    await tx.query(`SELECT set_config('statement_timeout', $1, true)`, [String(Math.max(1, Math.floor(timeoutMs)))]);
    const { rows } = await tx.query<{ source: JobSource; depth: number }>(
      `SELECT t.source, count(*)::int AS depth FROM tasks t JOIN jobs j ON j.id = t.job_id
       WHERE t.state IN ('queued', 'running') AND j.status IN ('queued', 'running')
       GROUP BY t.source`,
    );
    return new Map(rows.map((r) => [r.source, r.depth]));
  });
}
