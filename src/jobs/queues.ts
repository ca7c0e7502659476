// The task queues: one pg-boss queue per source. An entry covers a range of one job's domain positions for
// one source. A new job gets a few entries per source; a worker runs an entry's batches until its time
// budget is spent, then puts the rest back as two entries at the tail of the queue. So work spreads over
// every free slot within a few rounds, a 1,000-domain job costs tens of queue rows to create, and a job
// submitted later waits at most one budget for a slot (docs/decisions.md, "Jobs engine").
import type { Queryable } from '../platform/db/index.ts';
import { inTransaction, type Queue } from '../platform/queue.ts';

/** Entries per source a new job starts with (fewer when it has fewer batches). */
export const INITIAL_ENTRIES = 8;

/** NOTIFY channel on which a new job names its sources, waking idle runners at once. */
export const TASKS_CHANNEL = 'domainkit_tasks';

export function taskQueue(source: string): string {
  return `task.${source}`;
}

export function deadLetterQueue(source: string): string {
  return `task.${source}.dead`;
}

/** A queue entry: the tasks of `jobId` for the queue's source at positions `from` ≤ p < `to`. */
export interface TaskRange {
  jobId: string;
  from: number;
  to: number;
  /** 1 for first runs; retries of transient upstream errors count up. */
  attempt: number;
  /** The job's run the entry belongs to (absent: 0, the first); see `jobs.run` in the migrations. */
  run?: number;
}

// A worker that stops heartbeating (killed, frozen) loses its entries to the supervisor within about
// heartbeat + supervise interval; `retryLimit` counts only such losses and thrown bugs, never upstream
// errors (the engine schedules those itself). After it, the entry goes to the dead-letter queue. No
// `notify`: runners fetch entries themselves and are woken by TASKS_CHANNEL, no pg-boss `work()` waits here.
const QUEUE_OPTIONS = {
  partition: true,
  heartbeatSeconds: 30,
  retryLimit: 3,
  retryDelay: 5,
  retryBackoff: true,
  expireInSeconds: 3600,
};

/**
 * pg-boss timings of the task queues that tests shorten, to see lost entries (heartbeats of at least 10 s are
 * pg-boss's floor) and failed ones (a fixed delay between retries, instead of the back-off) come back quickly.
 */
export interface TaskQueueTimings {
  heartbeatSeconds?: number;
  retryDelaySeconds?: number;
}

/** Creates the task and dead-letter queues of `sources` (idempotent; every process that enqueues or works calls it). */
export async function createTaskQueues(queue: Queue, sources: readonly string[], timings: TaskQueueTimings = {}): Promise<void> {
  const changed = {
    ...(timings.heartbeatSeconds === undefined ? {} : { heartbeatSeconds: timings.heartbeatSeconds }),
    ...(timings.retryDelaySeconds === undefined ? {} : { retryDelay: timings.retryDelaySeconds, retryBackoff: false }),
  };
  for (const source of sources) {
    await queue.createQueue(deadLetterQueue(source), { partition: true });
    await queue.createQueue(taskQueue(source), { ...QUEUE_OPTIONS, ...changed, deadLetter: deadLetterQueue(source) });
    // A queue made earlier keeps the options it was made with.
    if (Object.keys(changed).length > 0) await queue.updateQueue(taskQueue(source), changed);
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
export async function enqueueRanges(tx: Queryable, queue: Queue, source: string, entries: RangeEntry[]): Promise<void> {
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
  job: { id: string; tenantId: string; domainCount: number; sources: readonly { name: string; batchSize: number }[] },
): Promise<void> {
  for (const source of job.sources) {
    const ranges = splitRange(0, job.domainCount, source.batchSize, INITIAL_ENTRIES);
    await enqueueRanges(
      tx,
      queue,
      source.name,
      ranges.map(([from, to]) => ({ range: { jobId: job.id, from, to, attempt: 1 }, tenantId: job.tenantId })),
    );
    await tx.query('SELECT pg_notify($1, $2)', [TASKS_CHANNEL, source.name]);
  }
}

/**
 * Entries of a job's new run (resume, retry): each span of a source's positions cut like a new job's, and the
 * sources' runners woken. Rows of a span that are already done are skipped by the entry that reaches them.
 */
export async function enqueueSpans(
  tx: Queryable,
  queue: Queue,
  job: { id: string; tenantId: string; run: number; spans: readonly { source: string; batchSize: number; from: number; to: number }[] },
): Promise<void> {
  for (const span of job.spans) {
    const ranges = splitRange(span.from, span.to, span.batchSize, INITIAL_ENTRIES);
    await enqueueRanges(
      tx,
      queue,
      span.source,
      ranges.map(([from, to]) => ({ range: { jobId: job.id, from, to, attempt: 1, run: job.run }, tenantId: job.tenantId })),
    );
    await tx.query('SELECT pg_notify($1, $2)', [TASKS_CHANNEL, span.source]);
  }
}

/** A job's entry as the queue holds it: its range, the tenant it is grouped under, its state and re-claims. */
export interface QueueEntry extends TaskRange {
  tenantId: string | null;
  state: 'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed';
  /** How often the entry was claimed again after a worker lost or failed it. */
  retryCount: number;
}

/**
 * The entries of one job (or, without `jobId`, every job) in a source's queue, waiting, running or finished,
 * through pg-boss's API: the queue's side of a job, which our own tables do not hold (for operators and tests).
 */
export async function queueEntries(queue: Queue, source: string, jobId?: string): Promise<QueueEntry[]> {
  const entries = await queue.findJobs<TaskRange>(taskQueue(source), jobId === undefined ? {} : { data: { jobId } });
  return entries
    .map((e) => ({ ...e.data, tenantId: e.groupId ?? null, state: e.state, retryCount: e.retryCount }))
    .sort((a, b) => a.from - b.from);
}
