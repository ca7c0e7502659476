// Graceful stop on SIGINT/SIGTERM. A Ctrl-C under `npm start` reaches us twice (the terminal signals the
// whole process group and npm forwards it too), so repeated signals are noted, not obeyed; only the
// deadline forces an exit.
import type { Logger } from './log.ts';

export function onShutdown(stop: () => Promise<void>, log: Logger, deadlineMs = 25_000): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.info({ signal }, 'already shutting down');
      return;
    }
    stopping = true;
    log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      log.error({ deadlineMs }, 'shutdown took too long; exiting');
      process.exit(1);
    }, deadlineMs);
    timer.unref();
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}
