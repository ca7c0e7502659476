// Running one queue entry: the unfinished tasks of its range, batch by batch, until the range is done or the
// time budget is spent; then one transaction writes the results, completes the entry, puts the rest of the
// range back (as two entries) with any retries, and ends the job if that was its last work. A billed source's
// calls are held against the tenant's budget before they are made and settled with the rest (budget.ts).
import type { Job } from 'pg-boss';
import { withTransaction, type Pool } from '../../platform/db/index.ts';
import type { Logger } from '../../platform/log.ts';
import { inTransaction, type Queue } from '../../platform/queue.ts';
import { isActive } from '../job-status.ts';
import { countTasks } from '../metrics.ts';
import { enqueueRanges, splitRange, taskQueue, type RangeEntry, type TaskRange } from '../queues.ts';
import { NOTHING_SPENT, type Outcome, type Source, type TypedColumn } from '../sources/index.ts';
import {
  addSpending,
  cancelRange,
  jobStatusById,
  startJob,
  unfinishedTasks,
  writeResults,
  type PendingTask,
  type TaskResult,
  type TaskSpend,
} from '../store/index.ts';
import { budgetExceeded, EntrySpending } from './budget.ts';
import { endJobIfDone } from './job-end.ts';
import type { RateGate } from './rate.ts';

export interface EntryContext {
  pool: Pool;
  queue: Queue;
  log: Logger;
  source: Source;
  /** Every typed column of the tasks table (the source registry's). */
  columns: readonly TypedColumn[];
  gate: RateGate;
  /** Aborted when the worker is stopping: the entry settles after its current batch. */
  stopping: AbortSignal;
  /** Time after which an entry stops taking new batches and puts the rest back. */
  budgetMs: number;
  /** Waits before each retry of a transient upstream error; attempts = 1 + its length. */
  retryDelaysMs: number[];
  /** Slot leases, and how long a budget hold counts unless the heartbeat renews it. */
  leaseSeconds: number;
  publicUrl: string;
}

/** Thrown when the entry's claim lapsed (another worker now holds it): nothing of this run is kept. */
export class LapsedEntry extends Error {}

/**
 * `cancelled` is aborted when the job is hard-cancelled (heard through PostgreSQL): upstream calls in flight are
 * aborted and their outcomes dropped, since the cancel has already ended those rows.
 */
export async function runEntry(ctx: EntryContext, entry: Job<TaskRange>, cancelled?: AbortSignal): Promise<void> {
  const range = entry.data;
  const run = range.run ?? 0;
  const started = performance.now();
  const job = await startJob(ctx.pool, range.jobId, run);
  // A job that is gone, paused or already ended, or run again since this entry was made (resume, retry: the new
  // run has entries of its own), starts nothing more: the entry is done with no work.
  if (!job || !isActive(job.status) || job.run !== run) {
    return settle(ctx, entry, { results: [], requeue: [], cancelRest: job?.status === 'cancelled' });
  }
  const signal = cancelled ? AbortSignal.any([ctx.stopping, cancelled]) : ctx.stopping;

  const batches = inBatches(await unfinishedTasks(ctx.pool, range.jobId, ctx.source.name, range.from, range.to), ctx.source.batchSize);
  const spending = batches.length
    ? await EntrySpending.open({ ...ctx, tenantId: job.tenantId, entryId: entry.id, jobId: range.jobId })
    : undefined;
  const results: TaskResult[] = [];
  const requeue: RangeEntry[] = [];
  const spent: TaskSpend[] = [];
  let retriedTasks = 0;
  for (let i = 0; i < batches.length; i++) {
    const batch = batches[i]!;
    if (i > 0) {
      const overBudget = performance.now() - started > ctx.budgetMs;
      if (overBudget || ctx.stopping.aborted) {
        for (const [from, to] of splitRange(batch[0]!.position, range.to, ctx.source.batchSize, 2)) {
          requeue.push({ range: { jobId: range.jobId, from, to, attempt: 1, run }, tenantId: job.tenantId });
        }
        break;
      }
      const now = await jobStatusById(ctx.pool, range.jobId);
      if (now?.status !== 'running' || now.run !== run) break; // paused, ended or run again meanwhile: no further call
    }
    const refused = await spending?.reserve(batch.length);
    if (refused !== undefined) {
      // This entry's own holds may be above what their calls cost: they settle first, and the rest of the range
      // asks again in an entry of its own, so rows end `budget_exceeded` only against what was really spent.
      if (spending!.holding) {
        requeue.push({
          range: { jobId: range.jobId, from: batch[0]!.position, to: range.to, attempt: range.attempt, run },
          tenantId: job.tenantId,
        });
      } else results.push(...budgetExceeded(batches.slice(i).flat(), refused, range.attempt - 1));
      break;
    }
    // A task's time runs from its first upstream request, not from the wait for the shared rate before it.
    let fetchedAt: Date | undefined;
    const permit = async () => {
      await ctx.gate.take(signal);
      fetchedAt ??= new Date();
    };
    const called = new Date();
    const outcomes = await ctx.source.fetch(
      batch.map((t) => t.domain),
      { signal, permit },
    );
    if (cancelled?.aborted) break; // the job was hard-cancelled: its rows are `cancelled`, this outcome is not kept
    spending?.spent(outcomes);
    const startedAt: Date = fetchedAt ?? called;
    const durationMs = Date.now() - startedAt.getTime();
    let retryAfterMs = 0;
    const retried: PendingTask[] = [];
    batch.forEach((task, k) => {
      const outcome = outcomes[k]!;
      // A transient error is retried while attempts remain; the last one is kept as the row's error.
      if (!outcome.ok && outcome.transient && range.attempt <= ctx.retryDelaysMs.length) {
        retryAfterMs = Math.max(retryAfterMs, outcome.transient.retryAfterMs ?? 0);
        retried.push(task);
        // What the failed attempt spent stays on the row (a traffic task may have paid for its first calls).
        if (outcome.spend?.calls) spent.push(spendOf(task, outcome));
      } else {
        results.push(toResult(task, outcome, range.attempt, startedAt, durationMs));
      }
    });
    if (retried.length > 0) {
      retriedTasks += retried.length;
      const wait = Math.max(jitter(ctx.retryDelaysMs[range.attempt - 1]!), Math.min(retryAfterMs, 60_000));
      if (retryAfterMs > 0) await ctx.gate.holdFor(Math.min(retryAfterMs, 60_000));
      requeue.push({
        range: { jobId: range.jobId, from: retried[0]!.position, to: retried.at(-1)!.position + 1, attempt: range.attempt + 1, run },
        tenantId: job.tenantId,
        delayMs: wait,
      });
    }
  }
  // Cancelled meanwhile: the cancel ended the rows already, save any it skipped while they were being settled.
  await settle(ctx, entry, { results, requeue, spent, cancelRest: cancelled?.aborted === true, spending }).catch(async (err: unknown) => {
    await spending?.release().catch(() => undefined);
    throw err;
  });
  for (const result of results) countTasks(ctx.source.name, result.state === 'ok' ? 'ok' : (result.error_code ?? 'internal_error'));
  countTasks(ctx.source.name, 'retried', retriedTasks);
}

interface Settlement {
  results: TaskResult[];
  requeue: RangeEntry[];
  /** The job was hard-cancelled: rows of the range still unfinished (a cancel skips rows being settled) end. */
  cancelRest?: boolean;
  /** What attempts to be retried spent, added to their rows. */
  spent?: TaskSpend[];
  /** A billed source's: its holds give way to what its calls cost. */
  spending?: EntrySpending | undefined;
}

async function settle(
  ctx: EntryContext,
  entry: Job<TaskRange>,
  { results, requeue, cancelRest, spent, spending }: Settlement,
): Promise<void> {
  const { jobId } = entry.data;
  const name = taskQueue(ctx.source.name);
  await withTransaction(ctx.pool, async (tx) => {
    await writeResults(tx, jobId, ctx.source.name, results, ctx.columns);
    if (spent?.length) await addSpending(tx, jobId, ctx.source.name, spent);
    await spending?.settle(tx);
    if (cancelRest) await cancelRange(tx, jobId, ctx.source.name, entry.data.from, entry.data.to);
    const done = (await ctx.queue.complete(name, { id: entry.id, retryCount: entry.retryCount }, null, { db: inTransaction(tx) })) as {
      affected: number;
    };
    if (done.affected === 0) throw new LapsedEntry(`entry ${entry.id} of ${name} is no longer ours`);
    await enqueueRanges(tx, ctx.queue, ctx.source.name, requeue);
    const finished = await endJobIfDone(tx, ctx.queue, jobId, ctx.publicUrl);
    if (finished) ctx.log.info({ job: jobId, status: finished.status }, 'job finished');
  });
}

/** What an outcome's requests cost, as its row records it (none made: nothing spent). */
function spendOf(task: PendingTask, outcome: Outcome): TaskSpend {
  const spend = outcome.spend ?? NOTHING_SPENT;
  return { position: task.position, cost: spend.amount, cost_basis: spend.basis, calls: spend.calls };
}

function toResult(task: PendingTask, outcome: Outcome, attempts: number, fetchedAt: Date, durationMs: number): TaskResult {
  const common = { ...spendOf(task, outcome), attempts, fetched_at: fetchedAt.toISOString(), duration_ms: durationMs };
  if (outcome.ok) return { ...common, ...outcome.columns, state: 'ok', error_code: null, error_message: null, raw: outcome.raw ?? null };
  return { ...common, state: 'error', error_code: outcome.code, error_message: outcome.message, raw: outcome.raw ?? null };
}

/** Consecutive unfinished tasks grouped into upstream calls of `size` domains. */
function inBatches(tasks: PendingTask[], size: number): PendingTask[][] {
  const batches: PendingTask[][] = [];
  for (let i = 0; i < tasks.length; i += size) batches.push(tasks.slice(i, i + size));
  return batches;
}

function jitter(ms: number): number {
  return Math.round(ms * (0.8 + Math.random() * 0.4));
}
