// The job queue of both services: pg-boss over the same PostgreSQL, in its own schema.
import { PgBoss } from 'pg-boss';
import type { Logger } from './log.ts';

export type Queue = PgBoss;

/** Starts pg-boss (creating or upgrading its schema under its own advisory lock). */
export async function startQueue(databaseUrl: string, log: Logger): Promise<Queue> {
  const boss = new PgBoss({ connectionString: databaseUrl, schema: 'pgboss', application_name: 'domainkit-queue', max: 5 });
  boss.on('error', (err: Error) => log.error({ err }, 'queue error'));
  await boss.start();
  return boss;
}

export async function stopQueue(boss: Queue): Promise<void> {
  await boss.stop({ graceful: true, timeout: 10_000 });
}
