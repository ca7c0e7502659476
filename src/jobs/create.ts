// Creating a job: what a request must hold, then the job row, one task row per (domain, source) and their
// queue entries, in one transaction.
import { randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { withTransaction, type Pool } from '../platform/db/index.ts';
import type { ValidationIssue } from '../platform/http/index.ts';
import { normaliseDomain, webhookUrlProblem } from '../platform/net/index.ts';
import type { Queue } from '../platform/queue.ts';
import { enqueueJob } from './queues.ts';
import type { SourceRegistry } from './sources/index.ts';
import { insertJob, insertTasks, type JobRow } from './store/index.ts';

interface JobRequest {
  tenantId: string;
  /** Normalised and de-duplicated. */
  domains: string[];
  /** Sources of the registry, each once (the request schema checks both). */
  jobTypes: string[];
  webhookUrl: string | null;
}

export interface CreatedJob {
  job: JobRow & { domains: string[] };
  webhookSecret: string | null;
}

/**
 * The domains as a job keeps them (normalised, each once, in request order), or every problem of the
 * request at once: each bad domain, and a webhook URL the address rule refuses.
 */
export function checkJobRequest(
  body: { domains: string[]; webhook_url?: string | null | undefined },
  allowPrivateNetwork: boolean,
): { ok: true; domains: string[]; webhookUrl: string | null } | { ok: false; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const domains = new Set<string>();
  body.domains.forEach((raw, index) => {
    const result = normaliseDomain(raw);
    if (result.ok) domains.add(result.domain);
    else issues.push({ path: `/domains/${index}`, location: 'body', message: `${JSON.stringify(raw)} ${result.reason}` });
  });
  const webhookUrl = body.webhook_url ?? null;
  if (webhookUrl !== null) {
    const reason = webhookUrlProblem(webhookUrl, allowPrivateNetwork);
    if (reason) issues.push({ path: '/webhook_url', location: 'body', message: reason });
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, domains: [...domains], webhookUrl };
}

export async function createJob(pool: Pool, queue: Queue, sources: SourceRegistry, request: JobRequest): Promise<CreatedJob> {
  const jobId = uuidv7();
  const webhookSecret = request.webhookUrl ? randomBytes(32).toString('hex') : null;
  const jobSources = request.jobTypes.map((name) => {
    const descriptor = sources.get(name);
    if (!descriptor) throw new Error(`unknown source ${name}`);
    return descriptor;
  });
  const createdAt = await withTransaction(pool, async (tx) => {
    const created = await insertJob(tx, {
      id: jobId,
      tenantId: request.tenantId,
      domains: request.domains,
      jobTypes: request.jobTypes,
      webhookUrl: request.webhookUrl,
      webhookSecret,
    });
    await insertTasks(tx, jobId, request.domains, request.jobTypes);
    await enqueueJob(tx, queue, { id: jobId, tenantId: request.tenantId, domainCount: request.domains.length, sources: jobSources });
    return created;
  });
  const job: CreatedJob['job'] = {
    id: jobId,
    status: 'queued',
    createdAt,
    startedAt: null,
    finishedAt: null,
    jobTypes: request.jobTypes,
    domainCount: request.domains.length,
    webhookUrl: request.webhookUrl,
    total: request.domains.length * request.jobTypes.length,
    succeeded: 0,
    failed: 0,
    domains: request.domains,
  };
  return { job, webhookSecret };
}
