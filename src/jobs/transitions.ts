// Resume, retry and hard cancel (the state machine: job-status.ts). Each is one transaction that locks the job,
// checks that the transition applies to its status, changes the job and its rows, and enqueues what follows in
// the same transaction: the entries of the job's new run, or the callback of a job that ends.
import { withTransaction, type Pool, type Queryable } from '../platform/db/index.ts';
import type { Queue } from '../platform/queue.ts';
import { enqueueCallback } from './callback.ts';
import { allows, appliesTo, type JobAction, type JobStatus } from './job-status.ts';
import { enqueueSpans } from './queues.ts';
import { TRANSIENT_ERRORS, type SourceRegistry } from './sources/index.ts';
import {
  finishIfDone,
  jobById,
  lockJob,
  markCancelled,
  markResumed,
  markRetried,
  type JobRow,
  type LockedJob,
  type Span,
} from './store/index.ts';

export interface TransitionDeps {
  pool: Pool;
  queue: Queue;
  /** For the batch sizes of a new run's entries. */
  sources: SourceRegistry;
  /** JOBS_PUBLIC_URL, for the callback's `results_url`. */
  publicUrl: string;
}

export type TransitionResult =
  | { outcome: 'done'; job: JobRow & { domains: string[] } }
  | { outcome: 'not_found' }
  /** The transition does not apply: the job is left as it was. */
  | { outcome: 'conflict'; status: JobStatus; detail: string };

/** Which error rows a retry runs again: those of a transient error (`TRANSIENT_ERRORS`), or all. */
export type RetryScope = 'transient' | 'all';

/** paused → running (or queued, if no task had started): its unfinished rows are queued again, in a new run. */
export function resumeJob(deps: TransitionDeps, tenantId: string, id: string): Promise<TransitionResult> {
  return transition(deps, tenantId, id, 'resume', async (tx, job) => {
    const { run, spans } = await markResumed(tx, id);
    await enqueueRun(tx, deps, id, job, run, spans);
    // Calls in flight when it was paused may have finished its last rows: then no entry would end it.
    if (spans.length === 0) {
      const finished = await finishIfDone(tx, id);
      if (finished) await enqueueCallback(tx, deps.queue, id, finished, deps.publicUrl);
    }
    return undefined;
  });
}

/** completed or failed → running: the chosen error rows are queued again, in a new run; the job ends again. */
export function retryJob(deps: TransitionDeps, tenantId: string, id: string, scope: RetryScope): Promise<TransitionResult> {
  return transition(deps, tenantId, id, 'retry', async (tx, job) => {
    const retried = await markRetried(tx, id, scope === 'all' ? null : TRANSIENT_ERRORS);
    if (!retried) return `job ${id} has no ${scope === 'all' ? '' : 'transient '}error rows to retry`;
    await enqueueRun(tx, deps, id, job, retried.run, retried.spans);
    return undefined;
  });
}

/** queued, running or paused → cancelled: unfinished rows end `cancelled`, workers abort its calls, the callback goes. */
export function cancelJob(deps: TransitionDeps, tenantId: string, id: string): Promise<TransitionResult> {
  return transition(deps, tenantId, id, 'cancel', async (tx) => {
    const ended = await markCancelled(tx, id);
    await enqueueCallback(tx, deps.queue, id, { status: 'cancelled', ...ended }, deps.publicUrl);
    return undefined;
  });
}

/** `apply` answers why it refused (a 409), or undefined when it made the transition. */
type Apply = (tx: Queryable, job: LockedJob) => Promise<string | undefined>;

async function transition(deps: TransitionDeps, tenantId: string, id: string, action: JobAction, apply: Apply): Promise<TransitionResult> {
  return withTransaction(deps.pool, async (tx): Promise<TransitionResult> => {
    const job = await lockJob(tx, tenantId, id);
    if (!job) return { outcome: 'not_found' };
    if (!allows(action, job.status)) {
      return {
        outcome: 'conflict',
        status: job.status,
        detail: `job ${id} is ${job.status}; ${action} applies to a job that is ${appliesTo(action)}`,
      };
    }
    const refused = await apply(tx, job);
    if (refused !== undefined) return { outcome: 'conflict', status: job.status, detail: refused };
    return { outcome: 'done', job: (await jobById(tx, tenantId, id))! };
  });
}

function enqueueRun(tx: Queryable, deps: TransitionDeps, id: string, job: LockedJob, run: number, spans: Span[]): Promise<void> {
  const batched = spans.map((span) => ({ ...span, batchSize: deps.sources.get(span.source)?.batchSize ?? 1 }));
  return enqueueSpans(tx, deps.queue, { id, tenantId: job.tenantId, run, spans: batched });
}
