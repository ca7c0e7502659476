// Deletes expired inboxes and their messages, in bounded batches, every MAIL_SWEEP_SECONDS. Reads already treat
// an expired inbox as gone; this only reclaims the space. Any number of processes may sweep at once: each batch
// skips the rows another holds.
import type { Pool } from '../platform/db/index.ts';
import type { Logger } from '../platform/log.ts';
import { sweepExpired } from './store/index.ts';

export interface Sweeper {
  /** One full pass now (until nothing expired is left); resolves with what it deleted. */
  sweep(): Promise<{ messages: number; inboxes: number }>;
  stop(): Promise<void>;
}

const BATCH = 1000;

export function startSweeper(pool: Pool, log: Logger, intervalSeconds: number): Sweeper {
  let running: Promise<{ messages: number; inboxes: number }> | undefined;
  let stopped = false;

  async function pass(): Promise<{ messages: number; inboxes: number }> {
    const total = { messages: 0, inboxes: 0 };
    for (;;) {
      if (stopped) break;
      const done = await sweepExpired(pool, BATCH);
      total.messages += done.messages;
      total.inboxes += done.inboxes;
      if (done.messages === 0 && done.inboxes < BATCH) break;
    }
    if (total.inboxes || total.messages) log.info(total, 'swept expired inboxes');
    return total;
  }

  const sweep = () => (running ??= pass().finally(() => (running = undefined)));
  const timer = setInterval(() => {
    sweep().catch((err: unknown) => log.warn({ err }, 'sweep failed; next time'));
  }, intervalSeconds * 1000);
  timer.unref();

  return {
    sweep,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
