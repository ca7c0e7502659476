// The jobs engine of a worker process: a runner per source, heartbeats for what it holds, the dead-letter
// path, and a LISTEN that wakes runners when jobs are created.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Job } from 'pg-boss';
import { JOB_SOURCES, type Config, type JobSource } from '../../config.ts';
import { createListener, withTransaction, type Pool } from '../../platform/db/index.ts';
import type { Logger } from '../../platform/log.ts';
import type { Queue } from '../../platform/queue.ts';
import { endJobIfDone } from '../callback.ts';
import { countTasks } from '../metrics.ts';
import { createTaskQueues, deadLetterQueue, taskQueue, TASKS_CHANNEL, type TaskRange } from '../queues.ts';
import type { Source } from '../sources/source.ts';
import { failRange, renewSlots, releaseAllSlots } from '../store.ts';
import { rateGate } from './rate.ts';
import { startRunner, type SourceRunner } from './runner.ts';

export interface EngineOptions {
  pool: Pool;
  /** For the LISTEN connection. */
  databaseUrl: string;
  queue: Queue;
  log: Logger;
  sources: Map<JobSource, Source>;
  limits: Config['jobs']['sources'];
  publicUrl: string;
  budgetMs?: number;
  retryDelaysMs?: number[];
  idlePollMs?: number;
  leaseSeconds?: number;
  heartbeatMs?: number;
}

export interface Engine {
  stop(): Promise<void>;
}

export async function startEngine(options: EngineOptions): Promise<Engine> {
  const { pool, queue, log } = options;
  const holder = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const leaseSeconds = options.leaseSeconds ?? 30;
  await createTaskQueues(queue);

  const runners = new Map<JobSource, SourceRunner>();
  for (const name of JOB_SOURCES) {
    const source = options.sources.get(name);
    if (!source) continue;
    runners.set(
      name,
      await startRunner({
        pool,
        queue,
        log,
        source,
        gate: rateGate(pool, name, options.limits[name].rate),
        budgetMs: options.budgetMs ?? 250,
        retryDelaysMs: options.retryDelaysMs ?? [2_000, 10_000, 30_000],
        publicUrl: options.publicUrl,
        concurrency: options.limits[name].concurrency,
        holder,
        leaseSeconds,
        idlePollMs: options.idlePollMs ?? 2_000,
      }),
    );
    await queue.work<TaskRange>(deadLetterQueue(name), { batchSize: 10 }, (entries) => deadLetters(options, name, entries));
  }

  const listener = createListener(options.databaseUrl, log);
  listener.on(TASKS_CHANNEL, (payload) => runners.get(payload as JobSource)?.wake());
  listener.onConnect(() => runners.forEach((r) => r.wake()));

  // Heartbeats: the entries and slots this process holds stay ours while it lives, and only while it lives.
  const heartbeat = setInterval(() => {
    void (async () => {
      await renewSlots(pool, holder, leaseSeconds);
      for (const [name, runner] of runners) {
        const held = runner.running().map((e) => ({ id: e.id, retryCount: e.retryCount }));
        if (held.length) await queue.touch(taskQueue(name), held);
      }
    })().catch((err: unknown) => log.warn({ err }, 'heartbeat failed'));
  }, options.heartbeatMs ?? 10_000);

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
async function deadLetters(options: EngineOptions, source: JobSource, entries: Job<TaskRange>[]): Promise<void> {
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
