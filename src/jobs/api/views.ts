// Rows as the API shows them, typed by their response schemas.
import type { SourceRegistry } from '../sources/index.ts';
import type { JobRow, KeyRow } from '../store/index.ts';
import type { JobCostView } from './cost-schemas.ts';
import type { JobDetailView, JobView, KeyView } from './schemas.ts';

/**
 * The job object (`Job` in docs/api/jobs-reference.md); `domains` only when the row carries them (single reads).
 * `sources` gives each source's cost unit.
 */
export function jobView(job: JobRow & { domains: string[] }, sources: SourceRegistry): JobDetailView;
export function jobView(job: JobRow, sources: SourceRegistry): JobView;
export function jobView(job: JobRow, sources: SourceRegistry): JobView | JobDetailView {
  return {
    job_id: job.id,
    status: job.status,
    created_at: job.createdAt.toISOString(),
    started_at: job.startedAt?.toISOString() ?? null,
    finished_at: job.finishedAt?.toISOString() ?? null,
    job_types: job.jobTypes,
    domain_count: job.domainCount,
    webhook_url: job.webhookUrl,
    progress: { total: job.total, succeeded: job.succeeded, failed: job.failed, pending: job.total - job.succeeded - job.failed },
    cost: jobCost(job, sources),
    ...(job.domains ? { domains: job.domains } : {}),
  };
}

/** Each of the job's sources with the sum of its finished rows' cost (0 before any), in its billing unit. */
function jobCost(job: JobRow, sources: SourceRegistry): JobCostView {
  return Object.fromEntries(
    job.jobTypes.map((source) => [source, { amount: Number(job.cost?.[source] ?? 0), unit: sources.get(source)?.billing.unit ?? null }]),
  );
}

export function keyView(key: KeyRow): KeyView {
  return {
    id: key.id,
    name: key.name,
    scopes: key.scopes,
    token_prefix: key.tokenPrefix,
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    revoked_at: key.revokedAt?.toISOString() ?? null,
  };
}
