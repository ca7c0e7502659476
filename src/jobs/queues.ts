// The task queues: one pg-boss queue per source. An entry covers a slice of one job's domains for one
// source, so a 1,000-domain job is at most a few hundred entries (written in the creating transaction in
// tens of milliseconds) while a small job still gets one entry per domain, or per batch for batched sources.
import { JOB_SOURCES, type JobSource } from '../config.ts';
import type { Queryable } from '../platform/db/index.ts';
import { inTransaction, type Queue } from '../platform/queue.ts';

/** Domains one upstream call can carry (upstreams.md: Moz takes 10 targets a call). */
export const BATCH_SIZE: Record<JobSource, number> = { seokicks: 1, moz: 10, ahrefs_backlinks: 1, ahrefs_traffic: 1, wayback: 1, ping: 1 };
/** A job's domains are cut into at most about this many slices per source. */
const SLICES_PER_SOURCE = 100;

export function taskQueue(source: JobSource): string {
  return `task.${source}`;
}

/** A queue entry: the tasks of `jobId` for the entry's source at domain positions `from` ≤ p < `to`. */
export interface TaskSlice {
  jobId: string;
  from: number;
  to: number;
}

/** How many domains a slice of this source holds in a job of `domainCount` domains. */
export function sliceSize(source: JobSource, domainCount: number): number {
  const batch = BATCH_SIZE[source];
  const even = Math.ceil(domainCount / SLICES_PER_SOURCE);
  return Math.ceil(Math.max(batch, even) / batch) * batch;
}

/** Creates the task queues (idempotent; every process that enqueues or works calls it at start). */
export async function createTaskQueues(queue: Queue): Promise<void> {
  for (const source of JOB_SOURCES) {
    // Retries, heartbeats and dead letters are the engine's; until it configures them a queue has defaults.
    await queue.createQueue(taskQueue(source), { notify: true, partition: true });
  }
}

/** Writes a new job's queue entries in the caller's transaction, grouped by tenant for fair scheduling. */
export async function enqueueJob(
  tx: Queryable,
  queue: Queue,
  job: { id: string; tenantId: string; domainCount: number; sources: readonly JobSource[] },
): Promise<void> {
  for (const source of job.sources) {
    const size = sliceSize(source, job.domainCount);
    const entries = [];
    for (let from = 0; from < job.domainCount; from += size) {
      const data: TaskSlice = { jobId: job.id, from, to: Math.min(from + size, job.domainCount) };
      entries.push({ data, group: { id: job.tenantId } });
    }
    await queue.insert(taskQueue(source), entries, { db: inTransaction(tx), returnId: false });
  }
}
