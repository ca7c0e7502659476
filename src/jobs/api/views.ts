// Rows as the API shows them, typed by their response schemas.
import type { JobRow, KeyRow } from '../store/index.ts';
import type { JobDetailView, JobView, KeyView } from './schemas.ts';

/** The job object (`Job` in docs/api/jobs-reference.md); `domains` only when the row carries them (single reads). */
export function jobView(job: JobRow & { domains: string[] }): JobDetailView;
export function jobView(job: JobRow): JobView;
export function jobView(job: JobRow): JobView | JobDetailView {
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
    ...(job.domains ? { domains: job.domains } : {}),
  };
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
