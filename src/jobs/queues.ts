// The task queues: one pg-boss queue per source. An entry covers a range of one job's domain positions for
// one source. A new job gets a few entries per source; a worker runs an entry's batches until its time
// budget is spent, then puts the rest back as two entries at the tail of the queue. So work spreads over
// every free slot within a few rounds, a 1,000-domain job costs tens of queue rows to create, and a job
// submitted later waits at most one budget for a slot (docs/decisions.md, "Jobs engine").
import { JOB_SOURCES, type JobSource } from '../config.ts';
import type { Queryable } from '../platform/db/index.ts';
import { inTransaction, type Queue } from '../platform/queue.ts';

/** Domains one upstream call carries: Moz takes up to 50; docs/api/README.md, "Limits", promises batches of 10. */
export const BATCH_SIZE: Record<JobSource, number> = { seokicks: 1, moz: 10, ahrefs_backlinks: 1, ahrefs_traffic: 1, wayback: 1, ping: 1 };
/** Entries per source a new job starts with (fewer when it has fewer batches). */
export const INITIAL_ENTRIES = 8;

/** NOTIFY channel on which a new job names its sources, waking idle runners at once. */
export const TASKS_CHANNEL = 'domainkit_tasks';

export function taskQueue(source: JobSource): string {
  return `task.${source}`;
}

export function deadLetterQueue(source: JobSource): string {
  return `task.${source}.dead`;
}

/** A queue entry: the tasks of `jobId` for the queue's source at positions `from` ≤ p < `to`. */
export interface TaskRange {
  jobId: string;
  from: number;
  to: number;
  /** 1 for first runs; retries of transient upstream errors count up. */
  attempt: number;
}

// A worker that stops heartbeating (killed, frozen) loses its entries to the supervisor within about
// heartbeat + supervise interval; `retryLimit` counts only such losses and thrown bugs, never upstream
// errors (the engine schedules those itself). After it, the entry goes to the dead-letter queue.
const QUEUE_OPTIONS = {
  notify: true,
  partition: true,
  heartbeatSeconds: 30,
  retryLimit: 3,
  retryDelay: 5,
  retryBackoff: true,
  expireInSeconds: 3600,
};

/** Creates the task and dead-letter queues (idempotent; every process that enqueues or works calls it). */
export async function createTaskQueues(queue: Queue): Promise<void> {
  for (const source of JOB_SOURCES) {
    await queue.createQueue(deadLetterQueue(source), { partition: true });
    await queue.createQueue(taskQueue(source), { ...QUEUE_OPTIONS, deadLetter: deadLetterQueue(source) });
  }
}

/** Cuts [from, to) into at most `parts` ranges whose bounds fall on batch boundaries (counted from `from`). */
export function splitRange(from: number, to: number, batch: number, parts: number): [number, number][] {
  const batches = Math.ceil((to - from) / batch);
  const count = Math.max(1, Math.min(parts, batches));
  const ranges: [number, number][] = [];
  let start = from;
  for (let i = 0; i < count; i++) {
    const take = Math.floor(batches / count) + (i < batches % count ? 1 : 0);
    const end = Math.min(to, start + take * batch);
    ranges.push([start, end]);
    start = end;
  }
  return ranges;
}

export interface RangeEntry {
  range: TaskRange;
  tenantId: string;
  /** Milliseconds to wait before the entry may run (retries). */
  delayMs?: number;
}

/** Writes entries into a source's queue in the caller's transaction; the tenant is the fairness group. */
export async function enqueueRanges(tx: Queryable, queue: Queue, source: JobSource, entries: RangeEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await queue.insert(
    taskQueue(source),
    entries.map((e) => ({
      data: e.range,
      group: { id: e.tenantId },
      ...(e.delayMs ? { startAfter: new Date(Date.now() + e.delayMs).toISOString() } : {}),
    })),
    { db: inTransaction(tx), returnId: false },
  );
}

/** A new job's first entries, for every source. */
export async function enqueueJob(
  tx: Queryable,
  queue: Queue,
  job: { id: string; tenantId: string; domainCount: number; sources: readonly JobSource[] },
): Promise<void> {
  for (const source of job.sources) {
    const ranges = splitRange(0, job.domainCount, BATCH_SIZE[source], INITIAL_ENTRIES);
    await enqueueRanges(
      tx,
      queue,
      source,
      ranges.map(([from, to]) => ({ range: { jobId: job.id, from, to, attempt: 1 }, tenantId: job.tenantId })),
    );
    await tx.query('SELECT pg_notify($1, $2)', [TASKS_CHANNEL, source]);
  }
}
