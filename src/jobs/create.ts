// Creating a job: the job row, one task row per (domain, source) and their queue entries, in one transaction.
import { randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import type { JobSource } from '../config.ts';
import { withTransaction, type Pool } from '../platform/db/index.ts';
import type { Queue } from '../platform/queue.ts';
import { enqueueJob } from './queues.ts';
import { insertJob, insertTasks, type JobRow } from './store.ts';

export interface JobRequest {
  tenantId: string;
  /** Normalised and de-duplicated. */
  domains: string[];
  jobTypes: JobSource[];
  webhookUrl: string | null;
}

export interface CreatedJob {
  job: JobRow;
  webhookSecret: string | null;
}

export async function createJob(pool: Pool, queue: Queue, request: JobRequest): Promise<CreatedJob> {
  const jobId = uuidv7();
  const webhookSecret = request.webhookUrl ? randomBytes(32).toString('hex') : null;
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
    await enqueueJob(tx, queue, { id: jobId, tenantId: request.tenantId, domainCount: request.domains.length, sources: request.jobTypes });
    return created;
  });
  const job: JobRow = {
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
