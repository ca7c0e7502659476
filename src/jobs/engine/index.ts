// The jobs engine of a worker process: a runner per source, heartbeats for what it holds, the dead-letter
// path, and a LISTEN that wakes runners when jobs are created and aborts the calls of hard-cancelled jobs.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Job } from 'pg-boss';
import { createListener, withTransaction, type Pool } from '../../platform/db/index.ts';
import type { Logger } from '../../platform/log.ts';
import type { Queue } from '../../platform/queue.ts';
import { countTasks } from '../metrics.ts';
import { createTaskQueues, deadLetterQueue, taskQueue, TASKS_CHANNEL, type TaskQueueTimings, type TaskRange } from '../queues.ts';
import type { AdapterDeps, SourceLimits, SourceRegistry } from '../sources/index.ts';
import { cancelledAmong, failRange, JOB_CANCELLED_CHANNEL, renewHolds, renewSlots, releaseAllSlots } from '../store/index.ts';
import { endJobIfDone } from './job-end.ts';
import { rateGate } from './rate.ts';
import { startRunner, type SourceRunner } from './runner.ts';
import { createSources } from './sources.ts';

/** What tests and benchmarks shorten; the defaults suit production. */
export interface EngineTimings {
  /** Time after which an entry puts the rest of its range back (250 ms). */
  budgetMs?: number;
  /** Waits before the retries of a transient upstream error (2 s, 10 s, 30 s). */
  retryDelaysMs?: number[];
  /** How long an idle runner waits before looking again (2 s). */
  idlePollMs?: number;
  /** Slot leases (30 s), renewed by the heartbeat (every 10 s). */
  leaseSeconds?: number;
  heartbeatMs?: number;
  taskQueues?: TaskQueueTimings;
}

interface EngineOptions {
  pool: Pool;
  /** For the LISTEN connection. */
  databaseUrl: string;
  queue: Queue;
  log: Logger;
  sources: SourceRegistry;
  /** Each source's JOBS_<NAME>_CONCURRENCY and _RATE. */
  limits: Readonly<Record<string, SourceLimits>>;
  /** Each source's own settings, as its descriptor read them. */
  settings: Readonly<Record<string, unknown>>;
  /** The HTTP clients the adapters use. */
  http: AdapterDeps;
  publicUrl: string;
  timings?: EngineTimings | undefined;
}

export interface Engine {
  stop(): Promise<void>;
}

export async function startEngine(options: EngineOptions): Promise<Engine> {
  const { pool, queue, log } = options;
  const timings = options.timings ?? {};
  const holder = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const leaseSeconds = timings.leaseSeconds ?? 30;
  await createTaskQueues(queue, options.sources.names, timings.taskQueues);
  const sources = createSources(options.sources, options.settings, options.http);

  const runners = new Map<string, SourceRunner>();
  for (const [name, source] of sources) {
    const limits = options.limits[name];
    if (!limits) throw new Error(`no JOBS_${name.toUpperCase()}_* settings were read for source ${name}`);
    runners.set(
      name,
      await startRunner({
        pool,
        queue,
        log,
        source,
        columns: options.sources.columns,
        gate: rateGate(pool, name, limits.rate),
        budgetMs: timings.budgetMs ?? 250,
        retryDelaysMs: timings.retryDelaysMs ?? [2_000, 10_000, 30_000],
        publicUrl: options.publicUrl,
        concurrency: limits.concurrency,
        holder,
        leaseSeconds,
        idlePollMs: timings.idlePollMs ?? 2_000,
      }),
    );
    await queue.work<TaskRange>(deadLetterQueue(name), { batchSize: 10 }, (entries) => deadLetters(options, name, entries));
  }

  const abort = (jobId: string) => {
    for (const runner of runners.values()) runner.abort(jobId);
  };
  // A hard cancel is heard at once through NOTIFY; one missed while the LISTEN connection was down is found
  // at the next (re)connection or heartbeat, by asking PostgreSQL about the jobs this process is running.
  const abortCancelled = async () => {
    const held = new Set([...runners.values()].flatMap((r) => r.running().map((e) => e.data.jobId)));
    if (held.size > 0) for (const jobId of await cancelledAmong(pool, [...held])) abort(jobId);
  };
  const listener = createListener(options.databaseUrl, log);
  listener.on(TASKS_CHANNEL, (payload) => runners.get(payload)?.wake());
  listener.on(JOB_CANCELLED_CHANNEL, abort);
  listener.onConnect(() => {
    for (const runner of runners.values()) runner.wake();
    abortCancelled().catch((err: unknown) => log.warn({ err }, 'could not look for cancelled jobs'));
  });

  // Heartbeats: the entries, slots and budget holds this process holds stay ours while it lives, and only while
  // it lives.
  const billed = new Set(options.sources.descriptors.filter((d) => d.billing.unit !== null).map((d) => d.name));
  const heartbeat = setInterval(() => {
    void (async () => {
      await renewSlots(pool, holder, leaseSeconds);
      const holding: string[] = [];
      for (const [name, runner] of runners) {
        const held = runner.running().map((e) => ({ id: e.id, retryCount: e.retryCount }));
        if (held.length) await queue.touch(taskQueue(name), held);
        if (billed.has(name)) holding.push(...held.map((e) => e.id));
      }
      await renewHolds(pool, holding, leaseSeconds);
      await abortCancelled();
    })().catch((err: unknown) => log.warn({ err }, 'heartbeat failed'));
  }, timings.heartbeatMs ?? 10_000);

  return {
    async stop() {
      clearInterval(heartbeat);
      await listener.close();
      await Promise.all([...runners.values()].map((r) => r.stop()));
      await releaseAllSlots(pool, holder).catch(() => undefined);
    },
  };
}

/** Entries that failed every retry: their unfinished tasks get error rows, so the job still ends. */
async function deadLetters(options: EngineOptions, source: string, entries: Job<TaskRange>[]): Promise<void> {
  for (const { data } of entries) {
    const failed = await withTransaction(options.pool, async (tx) => {
      const failed = await failRange(
        tx,
        data.jobId,
        source,
        data.from,
        data.to,
        'internal_error',
        'the task could not be run: its worker failed or was lost repeatedly',
      );
      await endJobIfDone(tx, options.queue, data.jobId, options.publicUrl);
      return failed;
    });
    countTasks(source, 'internal_error', failed);
    options.log.warn({ job: data.jobId, source, from: data.from, to: data.to }, 'dead-lettered tasks stored as errors');
  }
}
