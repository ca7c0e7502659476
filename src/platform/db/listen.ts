// One LISTEN connection per process for a set of channels, reconnected with back-off when it drops.
// Subscribers are told when a (re)connection is made, so they can catch up on what they may have missed.
import pg from 'pg';
import type { Logger } from '../log.ts';

export interface Listener {
  /** Calls `onMessage` with each payload sent on `channel`. */
  on(channel: string, onMessage: (payload: string) => void): void;
  /** Calls `onConnect` after every (re)connection, once LISTEN is in place. */
  onConnect(callback: () => void): void;
  close(): Promise<void>;
}

export function createListener(url: string, log: Logger): Listener {
  const handlers = new Map<string, ((payload: string) => void)[]>();
  const connectCallbacks: (() => void)[] = [];
  let client: pg.Client | undefined;
  let connecting = false;
  let closed = false;
  let retryMs = 250;
  let timer: NodeJS.Timeout | undefined;

  const connect = async () => {
    if (closed || connecting || client) return;
    connecting = true;
    const next = new pg.Client({ connectionString: url, application_name: 'domainkit-listen', keepAlive: true });
    next.on('error', (err) => log.warn({ err: { message: err.message } }, 'listen connection error'));
    next.on('end', () => {
      if (client === next) client = undefined;
      schedule();
    });
    next.on('notification', (msg) => {
      for (const handler of handlers.get(msg.channel) ?? []) handler(msg.payload ?? '');
    });
    try {
      await next.connect();
      for (const channel of handlers.keys()) await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      if (closed) return void (await next.end());
      client = next;
      retryMs = 250;
      for (const callback of connectCallbacks) callback();
    } catch (err) {
      log.warn({ err: { message: (err as Error).message } }, 'could not listen; retrying');
      await next.end().catch(() => undefined);
    } finally {
      connecting = false;
    }
  };

  const schedule = () => {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      void connect();
    }, retryMs);
    retryMs = Math.min(retryMs * 2, 10_000);
  };

  return {
    on(channel, onMessage) {
      const first = !handlers.has(channel);
      handlers.set(channel, [...(handlers.get(channel) ?? []), onMessage]);
      if (first && client) void client.query(`LISTEN ${pg.escapeIdentifier(channel)}`).catch(() => undefined);
      if (first && !client) void connect();
    },
    onConnect(callback) {
      connectCallbacks.push(callback);
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      await client?.end().catch(() => undefined);
    },
  };
}
