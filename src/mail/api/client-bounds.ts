// The per-client bounds of the mail API's long-lived requests (MAIL_SSE_MAX_PER_CLIENT, MAIL_WAIT_MAX_PER_CLIENT):
// a place is taken, over every mail API process, before a stream opens or a wait starts, and given back when it
// ends. Beyond the bound: a 429 with Retry-After, while every other client is served as before.
import type { ClientLeases, Lease } from '../../platform/leases/index.ts';
import { Problem } from '../../platform/http/index.ts';

/** Places are freed as soon as a stream or wait of that client ends; a few seconds is a fair guess. */
const RETRY_AFTER_SECONDS = 5;

/** The kinds of place the mail service counts (the SMTP receiver's is smtp/server.ts's). */
export const SSE_KIND = 'mail.sse';
export const WAIT_KIND = 'mail.wait';

/** Takes a place of its kind for the request's client (`request.ip`), or throws the problem to answer. */
export type PlaceTaker = (request: { ip: string }) => Promise<Lease>;

export function placeTaker(leases: ClientLeases | undefined, kind: string, bound: number, what: string): PlaceTaker {
  return async (request) => {
    if (!leases || bound <= 0) return { release: () => undefined };
    let lease: Lease | undefined;
    try {
      lease = await leases.take(kind, request.ip, bound);
    } catch {
      throw new Problem('service_unavailable', 'the database is not reachable; try again shortly');
    }
    if (lease) return lease;
    throw new Problem('too_many_connections', `this client address holds ${bound} ${what} already (the bound per client)`, {
      headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
    });
  };
}
