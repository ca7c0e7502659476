// The job queue of both services: pg-boss over the same PostgreSQL, in its own schema.
import { PgBoss, type Db } from 'pg-boss';
import type { Queryable } from './db/index.ts';
import type { Logger } from './log.ts';

export type Queue = PgBoss;

export interface QueueOptions {
  /**
   * Whether this process works queues (and so supervises them and listens for new entries). A process that
   * only enqueues, such as an API alone, leaves that to the workers.
   */
  work?: boolean;
  /** How often dead workers' jobs (missed heartbeats, expiry) are looked for; the default suits production. */
  superviseIntervalSeconds?: number;
}

/** Starts pg-boss (creating or upgrading its schema under its own advisory lock). */
export async function startQueue(databaseUrl: string, log: Logger, options: QueueOptions = {}): Promise<Queue> {
  const interval = options.superviseIntervalSeconds ?? 10;
  const work = options.work ?? true;
  const boss = new PgBoss({
    connectionString: databaseUrl,
    schema: 'pgboss',
    application_name: 'domainkit-queue',
    max: 10,
    // Workers wake on NOTIFY when a job is sent, instead of waiting for their next poll.
    useListenNotify: work,
    supervise: work,
    schedule: work,
    superviseIntervalSeconds: interval,
    monitorIntervalSeconds: interval,
  });
  boss.on('error', (err: Error) => log.error({ err }, 'queue error'));
  await boss.start();
  return boss;
}

export async function stopQueue(boss: Queue): Promise<void> {
  await boss.stop({ graceful: true, timeout: 10_000 });
}

/** Lets pg-boss write a queue entry inside the caller's transaction, so it commits with the business row. */
export function inTransaction(db: Queryable): Db {
  return { executeSql: (text: string, values?: unknown[]) => db.query(text, values as unknown[]) };
}
