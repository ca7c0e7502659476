// One source's work in one process: a dispatcher leases free slots of the source (shared by all workers),
// fetches as many entries, and runs each in a lane until it settles. Tenants with nothing running in the
// source's queue are served first, so a small job never waits behind another tenant's big one.
import type { Job } from 'pg-boss';
import type { Logger } from '../../platform/log.ts';
import type { Queue } from '../../platform/queue.ts';
import { taskQueue, type TaskRange } from '../queues.ts';
import { acquireSlots, ensureSlots, releaseSlots } from '../store/index.ts';
import { LapsedEntry, runEntry, type EntryContext } from './entry.ts';
import { sleep } from './rate.ts';

interface RunnerOptions extends Omit<EntryContext, 'stopping'> {
  /** In-flight entries of this source across all workers. */
  concurrency: number;
  holder: string;
  /** How long an idle dispatcher waits before looking again (new jobs also wake it). */
  idlePollMs: number;
}

export interface SourceRunner {
  wake(): void;
  /** Entries this process is running now (for heartbeats). */
  running(): Job<TaskRange>[];
  /** Aborts the upstream calls of the job's entries running here (a hard cancel). */
  abort(jobId: string): void;
  stop(): Promise<void>;
}

export async function startRunner(options: RunnerOptions): Promise<SourceRunner> {
  const { pool, queue, log, source } = options;
  const name = taskQueue(source.name);
  const stopping = new AbortController();
  const lanes = new Map<string, { entry: Job<TaskRange>; done: Promise<void>; cancel: AbortController }>();
  // Slots whose release failed (the database was away). The heartbeat renews every slot this process holds,
  // so they would stay ours for good: they are released again before the next dispatch.
  const unreleased = new Set<number>();
  let wakeUp: (() => void) | undefined;
  // A wake that arrives while the dispatcher is busy is kept for its next wait.
  let woken = false;
  const wake = () => {
    if (wakeUp) wakeUp();
    else woken = true;
  };

  await ensureSlots(pool, source.name, options.concurrency);

  const launch = (entry: Job<TaskRange>, slot: number) => {
    const cancel = new AbortController();
    const done = (async () => {
      try {
        await runEntry({ ...options, stopping: stopping.signal }, entry, cancel.signal);
      } catch (err) {
        await failEntry(queue, name, entry, err, log);
      } finally {
        lanes.delete(entry.id);
        await releaseSlots(pool, source.name, [slot], options.holder).catch((err: unknown) => {
          unreleased.add(slot);
          log.warn({ err }, 'could not release a slot; will again');
        });
        wake();
      }
    })();
    lanes.set(entry.id, { entry, done, cancel });
  };

  const dispatch = async (): Promise<number> => {
    if (unreleased.size > 0) {
      await releaseSlots(pool, source.name, [...unreleased], options.holder);
      unreleased.clear();
    }
    const free = options.concurrency - lanes.size;
    if (free <= 0) return 0;
    const slots = await acquireSlots(pool, source.name, options.concurrency, free, options.holder, options.leaseSeconds);
    if (slots.length === 0) return 0;
    const entries = await fetchFairly(queue, name, slots.length);
    await releaseSlots(pool, source.name, slots.slice(entries.length), options.holder);
    for (const [i, entry] of entries.entries()) launch(entry, slots[i]!);
    return entries.length;
  };

  const loop = (async () => {
    while (!stopping.signal.aborted) {
      let started = 0;
      try {
        started = await dispatch();
      } catch (err) {
        log.warn({ err, source: source.name }, 'dispatch failed; retrying');
      }
      if ((started > 0 && lanes.size < options.concurrency) || woken) {
        woken = false;
        continue;
      }
      await new Promise<void>((resolve) => {
        wakeUp = resolve;
        void sleep(options.idlePollMs, stopping.signal).then(resolve);
      });
      wakeUp = undefined;
    }
  })();

  return {
    wake,
    running: () => [...lanes.values()].map((l) => l.entry),
    abort(jobId) {
      for (const lane of lanes.values()) if (lane.entry.data.jobId === jobId) lane.cancel.abort();
    },
    async stop() {
      stopping.abort();
      wake();
      await loop;
      await Promise.allSettled([...lanes.values()].map((l) => l.done));
    },
  };
}

/** First the entries of tenants with nothing running in this queue, then anyone's, oldest first. */
async function fetchFairly(queue: Queue, name: string, count: number): Promise<Job<TaskRange>[]> {
  const first = await queue.fetch<TaskRange>(name, { batchSize: count, groupConcurrency: 1 });
  if (first.length >= count) return first;
  const rest = await queue.fetch<TaskRange>(name, { batchSize: count - first.length });
  return [...first, ...rest];
}

/** A run that threw (a bug, or the database away): pg-boss retries it, then dead-letters it. */
async function failEntry(queue: Queue, name: string, entry: Job<TaskRange>, err: unknown, log: Logger): Promise<void> {
  if (err instanceof LapsedEntry) {
    log.warn({ entry: entry.id, queue: name }, 'entry claim lapsed; another worker has it');
    return;
  }
  log.error({ err, entry: entry.id, queue: name }, 'entry failed');
  await queue
    .fail(name, { id: entry.id, retryCount: entry.retryCount }, { message: err instanceof Error ? err.message : String(err) })
    .catch((failErr: unknown) => log.warn({ err: failErr }, 'could not mark the entry failed; the supervisor will retry it'));
}
