// Fresh results reused: a job's rows filled at creation from earlier jobs' results of the same (domain, source)
// fetched at most `maxAgeSeconds` ago, the freshest first; only rows that were fetched (never a copy, never an
// error). Within the tenant, or from any tenant's jobs when results are shared. Dry runs count the same rows.
import type { Queryable } from '../../platform/db/index.ts';
import type { TypedColumn } from '../sources/index.ts';
import { perColumnList, type Statement } from './task-columns.ts';

export interface Reuse {
  tenantId: string;
  maxAgeSeconds: number;
  /** JOBS_CACHE_SHARED: results of other tenants' jobs may be copied too. */
  shared: boolean;
}

/** A source's rows of a job: how many, how many a fresh result fills, and the positions left to fetch. */
export interface SourceRows {
  source: string;
  rows: number;
  cached: number;
  /** The first and one past the last position left to fetch (from = to when none is). */
  from: number;
  to: number;
}

// Each (domain, source) of the request with the freshest reusable result, if any ($1 domains, $2 sources,
// $3 max age in seconds, $4 shared, $5 tenant). The index tasks_fresh answers each lookup from its first entries.
const PAIRS = (copied: string) => `FROM unnest($1::text[]) WITH ORDINALITY AS d (name, ord) CROSS JOIN unnest($2::text[]) AS s (name)
  LEFT JOIN LATERAL (
    SELECT t.job_id, t.fetched_at, t.duration_ms, t.raw${copied}
    FROM tasks t JOIN jobs j ON j.id = t.job_id
    WHERE t.source = s.name AND t.domain = d.name AND t.state = 'ok' AND t.cached_from IS NULL
      AND t.fetched_at >= now() - make_interval(secs => $3) AND ($4::boolean OR j.tenant_id = $5)
    ORDER BY t.fetched_at DESC LIMIT 1) c ON true`;

const SUMMARY = `SELECT source, count(*)::int AS rows, count(cached_from)::int AS cached,
    coalesce(min(position) FILTER (WHERE cached_from IS NULL), 0) AS "from",
    coalesce(max(position) FILTER (WHERE cached_from IS NULL) + 1, 0) AS "to"`;

/**
 * One task row per (domain, source), domain-major, in one statement: a pair with a fresh result is written
 * finished (`ok`, its result copied, `cached_from` its job, cost 0 `cached`), the others queued.
 */
export async function insertTasksReusing(
  tx: Queryable,
  jobId: string,
  domains: string[],
  sources: readonly string[],
  reuse: Reuse,
  columns: readonly TypedColumn[],
): Promise<SourceRows[]> {
  const statement = statementFor(columns);
  const { rows } = await tx.query<SourceRows>({
    ...statement,
    values: [domains, sources, reuse.maxAgeSeconds, reuse.shared, reuse.tenantId, jobId],
  });
  return rows;
}

/** What `insertTasksReusing` would write, counted and nothing written (a dry run). */
export async function countReusable(db: Queryable, domains: string[], sources: readonly string[], reuse: Reuse): Promise<SourceRows[]> {
  const { rows } = await db.query<SourceRows>({
    name: 'jobs.reuse.countReusable',
    text: `WITH pairs AS (SELECT s.name AS source, d.ord - 1 AS position, c.job_id AS cached_from ${PAIRS('')})
      ${SUMMARY} FROM pairs GROUP BY source`,
    values: [domains, sources, reuse.maxAgeSeconds, reuse.shared, reuse.tenantId],
  });
  return rows;
}

// Named with a digest of the typed columns (task-columns.ts), like the statements of tasks.ts.
const statementFor = perColumnList(
  (names, digest): Statement => ({
    name: `jobs.reuse.insertTasksReusing.${digest}`,
    text: `WITH inserted AS (
        INSERT INTO tasks (job_id, position, domain, source, state, fetched_at, duration_ms, raw, cost_basis, cached_from${names.map((n) => `, ${n}`).join('')})
        SELECT $6::uuid, d.ord - 1, d.name, s.name, CASE WHEN c.job_id IS NULL THEN 'queued' ELSE 'ok' END, c.fetched_at,
          c.duration_ms, c.raw, CASE WHEN c.job_id IS NULL THEN 'computed' ELSE 'cached' END, c.job_id${names.map((n) => `, c.${n}`).join('')}
        ${PAIRS(names.map((n) => `, t.${n}`).join(''))}
        RETURNING source, position, cached_from)
      ${SUMMARY} FROM inserted GROUP BY source`,
  }),
);
