// Per-client bounds shared by every process: how many streams, long polls or sessions of a kind one client
// holds, counted in PostgreSQL (store.ts) so that a client reaching N processes still gets the bound once. The
// process is one holder; its heartbeat keeps what it holds counting, so a process that dies stops holding
// anything one lease period later. The services choose the kinds, clients and bounds; this knows none of them.
import { randomUUID } from 'node:crypto';
import { Counter } from 'prom-client';
import type { Pool } from '../db/index.ts';
import type { Logger } from '../log.ts';
import { registry } from '../metrics/index.ts';
import { dropHolder, giveLease, renewHolder, sweepLeases, takeLeases } from './store.ts';

/** One place held; `release` gives it back (once, however often it is called). */
export interface Lease {
  release(): void;
}

export interface ClientLeases {
  /**
   * One place of `kind` for `client`, or `undefined` when the client holds `bound` already over every
   * process. A bound of 0 is no bound: nothing is counted. Rejects when the database cannot be asked.
   */
  take(kind: string, client: string, bound: number): Promise<Lease | undefined>;
  /** Gives back what is still being given back, then drops the holder: what it held stops counting at once. */
  stop(): Promise<void>;
}

export interface LeaseOptions {
  pool: Pool;
  log: Logger;
  /** CLIENT_LEASE_SECONDS: how long a holder's places count after its last heartbeat (a third of it apart). */
  leaseSeconds: number;
}

const UNBOUNDED: Lease = { release: () => undefined };

const refusals = new Counter({
  name: 'domainkit_client_bound_refusals_total',
  help: 'Places refused because the client address held its bound already, by kind (mail.sse, mail.wait, mail.smtp).',
  labelNames: ['kind'] as const,
  registers: [registry],
});

export async function startClientLeases(options: LeaseOptions): Promise<ClientLeases> {
  const { pool, log, leaseSeconds } = options;
  const holder = randomUUID();
  await renewHolder(pool, holder, leaseSeconds);
  // Releases that failed (the database away for a moment) are retried with the next heartbeat; one lost for
  // good would hold the client's place until this process stops.
  let unreleased: Array<[string, string]> = [];
  const inFlight = new Set<Promise<void>>();

  const give = (kind: string, client: string): void => {
    const p = giveLease(pool, kind, client, holder)
      .catch(() => {
        unreleased.push([kind, client]);
      })
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  };

  const beat = async (): Promise<void> => {
    await renewHolder(pool, holder, leaseSeconds);
    const retry = unreleased;
    unreleased = [];
    for (const [kind, client] of retry) give(kind, client);
    await sweepLeases(pool);
  };
  let beating: Promise<void> | undefined;
  const timer = setInterval(
    () => {
      beating ??= beat()
        .catch((err: unknown) => log.warn({ err }, 'client leases: heartbeat failed'))
        .finally(() => {
          beating = undefined;
        });
    },
    Math.max(100, Math.floor((leaseSeconds * 1000) / 3)),
  );
  timer.unref();

  const lease = (kind: string, client: string): Lease => {
    let held = true;
    return {
      release() {
        if (!held) return;
        held = false;
        give(kind, client);
      },
    };
  };

  // Takes of one (kind, client) that arrive while one statement for it is out wait and go together in the next:
  // a client opening 50 streams at once costs a few statements, not 50 in a row. Each is granted or refused in
  // arrival order, as if taken one after another.
  type Taker = { resolve: (granted: boolean) => void; reject: (err: unknown) => void };
  const waiting = new Map<string, { kind: string; client: string; bound: number; takers: Taker[] }>();
  const ask = (key: string): void => {
    const batch = waiting.get(key)!;
    const takers = batch.takers.splice(0);
    if (takers.length === 0) {
      waiting.delete(key);
      return;
    }
    takeLeases(pool, batch.kind, batch.client, holder, batch.bound, takers.length).then(
      (granted) => {
        takers.forEach((taker, i) => {
          taker.resolve(i < granted);
        });
        ask(key);
      },
      (err: unknown) => {
        for (const taker of takers) taker.reject(err);
        ask(key);
      },
    );
  };

  return {
    async take(kind, client, bound) {
      if (bound <= 0) return UNBOUNDED;
      const key = `${kind}\u0000${client}\u0000${bound}`;
      const granted = await new Promise<boolean>((resolve, reject) => {
        const batch = waiting.get(key);
        if (batch) batch.takers.push({ resolve, reject });
        else {
          waiting.set(key, { kind, client, bound, takers: [{ resolve, reject }] });
          ask(key);
        }
      });
      if (!granted) {
        refusals.inc({ kind });
        return undefined;
      }
      return lease(kind, client);
    },
    async stop() {
      clearInterval(timer);
      await beating;
      await Promise.allSettled([...inFlight]);
      await dropHolder(pool, holder).catch((err: unknown) => log.warn({ err }, 'client leases: could not drop the holder'));
    },
  };
}
