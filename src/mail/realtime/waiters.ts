// Long-polling waits for a message: every process serving the API keeps its waits in memory and hears of each
// stored message on the LISTEN connection the SSE hub uses (one per process). A wait is registered before its
// first look at the table, so a message committed between that look and the wait is heard of, not lost. While
// nothing arrives a wait costs no query at all. A notification for an inbox with waits costs one query for
// the notified messages' filtered fields, shared by every wait of those inboxes; matching is done here; the
// matched messages are then read whole by one statement, each once for every wait it answers. Looks at the
// table are gathered per turn of the event loop into one query, so a thousand waits arriving together cost one.
import type { Listener, Pool } from '../../platform/db/index.ts';
import type { Logger } from '../../platform/log.ts';
import { mailWaiters } from '../metrics.ts';
import {
  MESSAGE_CHANNEL,
  newestMessageIds,
  waitCandidates,
  waitCandidatesAfter,
  type LiveInbox,
  type WaitCandidate,
} from '../store/index.ts';
import { freshen, loadMessages } from './wait-reads.ts';
import { NIL_UUID, parseSnapshot, Waiter, type WaitFilters, type WaitOutcome } from './waiter.ts';

export interface WaitersOptions {
  pool: Pool;
  listener: Listener;
  log: Logger;
}

export interface WaitRequest {
  inbox: LiveInbox;
  /** A message id (lower case), NIL_UUID for "any message", or undefined for "anything newer than now". */
  after: string | undefined;
  filters: WaitFilters;
  timeoutMs: number;
  /** Aborted when the client goes away: the wait is dropped at once. */
  signal: AbortSignal;
}

export interface Waiters {
  wait(request: WaitRequest): Promise<WaitOutcome>;
  /** Answers every wait (a timeout with its cursor: calling again elsewhere misses nothing) and takes no more. */
  close(): void;
}

/** Messages of one inbox read per scan; a wait that found no match among them reads on. */
const PAGE = 200;

export function createWaiters(options: WaitersOptions): Waiters {
  const { pool, listener, log } = options;
  const byInbox = new Map<string, Set<Waiter>>();
  let closed = false;
  let connectedOnce = false;

  // ------------------------------------------------------------------ notifications: one query per batch
  let notified: string[] = [];
  let fetching = false;
  listener.on(MESSAGE_CHANNEL, (payload) => {
    for (const pair of payload.split(',')) {
      const space = pair.indexOf(' ');
      if (byInbox.has(pair.slice(0, space))) notified.push(pair.slice(space + 1)); // else nobody here waits
    }
    if (notified.length > 0 && !fetching) {
      fetching = true;
      void Promise.resolve().then(fetchNotified);
    }
  });

  async function fetchNotified(): Promise<void> {
    while (notified.length > 0) {
      const ids = notified;
      notified = [];
      try {
        const candidates = await freshen(pool, await waitCandidates(pool, ids), byInbox);
        const touched = new Set<Waiter>();
        for (const c of candidates) {
          for (const w of byInbox.get(c.inboxId) ?? []) {
            w.offer(c, false);
            touched.add(w);
          }
        }
        for (const w of touched) settle(w);
      } catch (err) {
        // These messages were not looked at: every wait reads the table on from where it is instead.
        log.error({ err }, 'could not read notified messages for waits');
        for (const set of byInbox.values()) for (const w of set) requestScan(w);
      }
    }
    fetching = false;
  }

  listener.onConnect(() => {
    // Notifications sent while the connection was down are lost: every wait reads on from where it is.
    if (connectedOnce) for (const set of byInbox.values()) for (const w of set) requestScan(w);
    connectedOnce = true;
  });

  // ---------------------------------------------------------------- scans: gathered per turn of the loop
  let queued: Waiter[] = [];

  function requestScan(w: Waiter): void {
    if (w.done || w.scan === 'queued') return;
    if (w.scan === 'running') {
      w.rescan = true; // its snapshot may predate what is asked for: look again after it
      return;
    }
    w.scan = 'queued';
    queued.push(w);
    if (queued.length === 1) setImmediate(() => void runScans());
  }

  async function runScans(): Promise<void> {
    const batch = queued.filter((w) => !w.done);
    queued = [];
    for (const w of batch) w.scan = 'running';
    const starting = batch.filter((w) => w.cursor === undefined);
    const reading = batch.filter((w) => w.cursor !== undefined);
    await Promise.all([starting.length > 0 && scanNewest(starting), reading.length > 0 && scanAfter(reading)]);
  }

  /** Waits without `after` start from their inbox as one statement sees it: its newest message, and its snapshot. */
  async function scanNewest(waiters: Waiter[]): Promise<void> {
    let found: Awaited<ReturnType<typeof newestMessageIds>>;
    try {
      found = await newestMessageIds(pool, [...new Set(waiters.map((w) => w.inbox.id))]);
    } catch (err) {
      return fail(waiters, err);
    }
    const snapshot = parseSnapshot(found.snapshot);
    for (const w of waiters) {
      w.begin(found.newest.get(w.inbox.id) ?? NIL_UUID, snapshot);
      scanned(w);
    }
  }

  /** Waits with a cursor read the inbox on from where they have looked, oldest first, a page at a time. */
  async function scanAfter(waiters: Waiter[]): Promise<void> {
    const from = new Map<string, string>();
    for (const w of waiters) {
      const known = from.get(w.inbox.id);
      if (known === undefined || w.through! < known) from.set(w.inbox.id, w.through!);
    }
    let rows: WaitCandidate[];
    try {
      const pairs = [...from].map(([inboxId, after]) => ({ inboxId, after }));
      rows = await freshen(pool, await waitCandidatesAfter(pool, pairs, PAGE), byInbox);
    } catch (err) {
      return fail(waiters, err);
    }
    const pages = new Map<string, WaitCandidate[]>();
    for (const row of rows) {
      const page = pages.get(row.inboxId);
      if (page) page.push(row);
      else pages.set(row.inboxId, [row]);
    }
    for (const w of waiters) {
      const page = pages.get(w.inbox.id) ?? [];
      for (const c of page) w.offer(c, true);
      if (page.length === PAGE && !w.match && !w.done) {
        // A full page without a match: what follows it is still to be read, unless the deadline came.
        w.scan = 'none';
        w.started = true;
        if (w.expired || closed) w.end({ status: 'timeout', cursor: w.timeoutCursor() });
        else requestScan(w);
      } else scanned(w);
    }
  }

  function scanned(w: Waiter): void {
    w.scan = 'none';
    w.started = true;
    if (w.done) return;
    if (w.rescan && !w.match && !closed) {
      w.rescan = false;
      requestScan(w);
      return;
    }
    w.rescan = false;
    if (w.match) settle(w);
    else if (w.expired || closed) w.end({ status: 'timeout', cursor: w.timeoutCursor() });
  }

  function fail(waiters: Waiter[], err: unknown): void {
    log.error({ err }, 'could not read messages for waits');
    for (const w of waiters) {
      w.scan = 'none';
      w.end({ status: 'unavailable' });
    }
  }

  // ------------------------------------------------------- answers: the matched messages read once, together
  const loading = new Map<string, Set<Waiter>>();
  let toLoad: string[] = [];

  function settle(w: Waiter): void {
    if (w.done || w.scan !== 'none' || w.loading || !w.match) return;
    w.loading = true;
    const id = w.match.id;
    const sharing = loading.get(id);
    if (sharing) {
      sharing.add(w);
      return;
    }
    loading.set(id, new Set([w]));
    toLoad.push(id);
    // Every wait settled in this turn (a notification's batch) is read by one statement.
    if (toLoad.length === 1) queueMicrotask(() => void load());
  }

  async function load(): Promise<void> {
    const ids = toLoad;
    toLoad = [];
    const owner = (id: string) => [...loading.get(id)!][0]!.inbox.accountId;
    const messages = await loadMessages(pool, ids, owner).catch((err: unknown) => {
      log.error({ err }, 'could not read messages for waits');
      return null;
    });
    for (const id of ids) {
      const waiting = loading.get(id)!;
      loading.delete(id);
      const message = messages?.get(id);
      for (const w of waiting) {
        w.loading = false;
        if (w.done) continue;
        if (message) w.end({ status: 'message', message });
        else if (messages === null) w.end({ status: 'unavailable' });
        else if (w.expired || closed) w.end({ status: 'timeout', cursor: w.timeoutCursor() });
        else {
          // Deleted (or its inbox expired) meanwhile: read on from where the wait had looked.
          w.match = undefined;
          requestScan(w);
        }
      }
    }
  }

  function register(w: Waiter): void {
    let set = byInbox.get(w.inbox.id);
    if (!set) {
      set = new Set();
      byInbox.set(w.inbox.id, set);
    }
    set.add(w);
    mailWaiters.inc();
  }

  function remove(w: Waiter): void {
    const set = byInbox.get(w.inbox.id);
    if (!set?.delete(w)) return;
    mailWaiters.dec();
    if (set.size === 0) byInbox.delete(w.inbox.id);
  }

  return {
    wait(request) {
      if (closed) return Promise.resolve({ status: 'unavailable' });
      if (request.signal.aborted) return Promise.resolve({ status: 'gone' });
      return new Promise<WaitOutcome>((resolve) => {
        let timer: NodeJS.Timeout | undefined;
        const onAbort = () => w.end({ status: 'gone' });
        const w = new Waiter(request.inbox, request.after, request.filters, (outcome) => {
          clearTimeout(timer);
          request.signal.removeEventListener('abort', onAbort);
          remove(w);
          resolve(outcome);
        });
        // Registered before the first look at the table: whatever is stored from now on is heard of.
        register(w);
        request.signal.addEventListener('abort', onAbort, { once: true });
        // The deadline ends the wait once its first look is done (a timeout of 0 is that look alone); an inbox
        // that expires first ends it then (calling again is a 404).
        const untilExpiry = w.inbox.expiresAt ? w.inbox.expiresAt.getTime() - Date.now() : Infinity;
        timer = setTimeout(
          () => {
            // A match being read answers (it is on its way); before the first look is done there is no cursor.
            if (w.started && !w.loading) w.end({ status: 'timeout', cursor: w.timeoutCursor() });
            else w.expired = true;
          },
          Math.max(0, Math.min(request.timeoutMs, untilExpiry)),
        );
        requestScan(w);
      });
    },
    close() {
      closed = true;
      // Waits still in their first look, or reading their match, are answered when that is done.
      for (const set of [...byInbox.values()]) {
        for (const w of [...set]) if (w.started && !w.loading) w.end({ status: 'timeout', cursor: w.timeoutCursor() });
      }
    },
  };
}
