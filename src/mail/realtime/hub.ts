// Live inboxes: every process serving SSE holds one LISTEN connection (platform/db/listen.ts) and hears of each
// message stored by any SMTP process at its commit. A notification names only inboxes and messages; the
// hub looks up the messages of inboxes somebody here is subscribed to, once per batch of notifications, and
// writes one event to each of their subscribers. Nothing here is needed by another process: a subscriber that
// reconnects elsewhere names the last event it saw and is replayed from the database.
import type { Listener, Pool } from '../../platform/db/index.ts';
import type { Logger } from '../../platform/log.ts';
import { sseSubscribers } from '../metrics.ts';
import { MESSAGE_CHANNEL, messageEvents, messageEventsAfter, type LiveInbox, type MessageEvent } from '../store/index.ts';
import { resumeAfter, Subscriber, type ReadEvents, type Stream } from './subscriber.ts';

export interface HubOptions {
  pool: Pool;
  listener: Listener;
  log: Logger;
  /** MAIL_SSE_PING_SECONDS. */
  pingSeconds: number;
}

export interface Hub {
  /**
   * Starts a stream on `stream` (headers already sent): `connected`, what was missed after the message the
   * client's Last-Event-ID header names (as sent; a value that is not a message id is ignored), then live events.
   */
  subscribe(inbox: LiveInbox, stream: Stream, lastEventId: string | string[] | undefined): void;
  /** Ends every stream (they reconnect elsewhere) and stops. */
  close(): void;
}

/** At most this many messages per subscribed inbox are looked at again after the LISTEN connection was lost. */
const CATCH_UP_LIMIT = 200;
/** After the LISTEN connection was lost, messages stored this long before it dropped are looked at again. */
const CATCH_UP_SLACK_MS = 10_000;

export function createHub(options: HubOptions): Hub {
  const { pool, listener, log } = options;
  const byInbox = new Map<string, Set<Subscriber>>();
  let pending: string[] = [];
  // While a flush runs, notifications that arrive join its next round rather than start another.
  let flushing = false;
  // When the listen connection last delivered (or connected): what a reconnection must look back to.
  let heardAt = Date.now();
  let connectedOnce = false;

  listener.on(MESSAGE_CHANNEL, (payload) => {
    heardAt = Date.now();
    for (const pair of payload.split(',')) {
      const space = pair.indexOf(' ');
      if (byInbox.has(pair.slice(0, space))) pending.push(pair.slice(space + 1)); // else nobody here listens
    }
    if (pending.length > 0 && !flushing) {
      flushing = true;
      void Promise.resolve().then(flush);
    }
  });

  listener.onConnect(() => {
    // Notifications sent while the connection was down are lost: look the subscribed inboxes up instead.
    if (connectedOnce && byInbox.size > 0) void catchUp(new Date(heardAt - CATCH_UP_SLACK_MS));
    connectedOnce = true;
    heardAt = Date.now();
  });

  async function flush(): Promise<void> {
    while (pending.length > 0) {
      const ids = pending;
      pending = [];
      try {
        deliver(await messageEvents(pool, ids));
      } catch (err) {
        log.error({ err }, 'could not read messages for live subscribers');
      }
    }
    flushing = false;
  }

  async function catchUp(since: Date): Promise<void> {
    try {
      deliver(await messageEventsAfter(pool, [...byInbox.keys()], { since }, CATCH_UP_LIMIT * byInbox.size));
    } catch (err) {
      log.error({ err }, 'could not catch live subscribers up');
    }
  }

  function deliver(events: MessageEvent[]): void {
    for (const event of events) for (const subscriber of byInbox.get(event.inboxId) ?? []) subscriber.message(event);
  }

  const read: ReadEvents = (inboxId, from, limit) => messageEventsAfter(pool, [inboxId], from, limit);

  const remove = (subscriber: Subscriber) => {
    const set = byInbox.get(subscriber.inbox.id);
    if (!set?.delete(subscriber)) return;
    sseSubscribers.dec();
    if (set.size === 0) byInbox.delete(subscriber.inbox.id);
  };

  const ping = setInterval(() => {
    const now = new Date();
    for (const set of byInbox.values()) for (const subscriber of set) subscriber.ping(now);
  }, options.pingSeconds * 1000);
  ping.unref();

  return {
    subscribe(inbox, stream, lastEventId) {
      const subscriber = new Subscriber(inbox, stream, read, () => remove(subscriber));
      let set = byInbox.get(inbox.id);
      if (!set) {
        set = new Set();
        byInbox.set(inbox.id, set);
      }
      // Listening before the replay is read: a message stored meanwhile comes one way or the other, and the
      // subscriber sends each id once, in order.
      set.add(subscriber);
      sseSubscribers.inc();
      subscriber.connected();
      const from = resumeAfter(lastEventId);
      if (from) subscriber.behind(from);
    },
    close() {
      clearInterval(ping);
      for (const set of [...byInbox.values()]) for (const subscriber of [...set]) subscriber.end();
    },
  };
}
