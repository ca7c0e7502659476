// Who may reach an inbox or a message by its address or id: anyone, unless the inbox is private; then only its
// owner, with a JWT or API key. Everyone else gets exactly the 404 of an address or id that does not exist, so
// nothing says a private inbox is there. Every route that reads or changes an inbox or a message goes
// through here (docs/api/README.md, "Private inboxes").
//
// The store statements filter on the viewer themselves (store/live.ts `visibleTo`), so the common case stays
// one statement: a request runs as nobody first, and only when that finds nothing and it carries credentials
// are they verified and the statement run again as their account. Credentials are never looked at otherwise:
// a bad key on an inbox that is not private changes nothing; on a private one it is the 404.
import type { FastifyRequest } from 'fastify';
import { isUuid, Problem } from '../../platform/http/index.ts';
import { type LiveInbox, liveInbox } from '../store/index.ts';
import type { MailAuth } from './auth.ts';
import type { MailAppDeps } from './deps.ts';

/** The answer for an inbox that does not exist, has expired, or is private to someone else. */
export function inboxNotFound(address: string): Problem {
  return new Problem('not_found', `no inbox ${address} (unknown, or expired)`);
}

/** The answer for a message that does not exist, whose inbox has expired, or whose inbox is private to someone else. */
export function messageNotFound(id: string): Problem {
  return new Problem('not_found', `no message ${id}`);
}

/** A store call as a viewer: the account a request proved, or null for nobody. Undefined or false: nothing found. */
export type AsViewer<T> = (viewer: string | null) => Promise<T | undefined | false>;

/** A live inbox the request may reach, with the account it proved (null: it ran as nobody). */
export type ReachedInbox = LiveInbox & { viewer: string | null };

export interface Access {
  /** Runs `query` for the inbox at `address` (lower-cased) as the request may; its result, or `inboxNotFound`. */
  inbox<T>(request: FastifyRequest, address: string, query: AsViewer<T>): Promise<T>;
  /**
   * Runs `query` for the message `id` as the request may (its inbox decides), with the id lower-cased; its
   * result, or `messageNotFound` (at once for an id that is not a UUID).
   */
  message<T>(request: FastifyRequest, id: string, query: (id: string, viewer: string | null) => Promise<T | undefined | false>): Promise<T>;
  /** The live inbox at `address` the request may reach (for streams, waits and deletes), or `inboxNotFound`. */
  liveInbox(request: FastifyRequest, address: string): Promise<ReachedInbox>;
  /** The account the request's credentials prove, verified once per request; null without (valid) credentials. */
  viewer(request: FastifyRequest): Promise<string | null>;
}

export function createAccess(deps: Pick<MailAppDeps, 'pool'>, auth: MailAuth): Access {
  const proved = new WeakMap<FastifyRequest, Promise<string | null>>();

  function viewer(request: FastifyRequest): Promise<string | null> {
    let account = proved.get(request);
    if (!account) {
      account = prove(request);
      proved.set(request, account);
    }
    return account;
  }

  async function prove(request: FastifyRequest): Promise<string | null> {
    if (request.headers.authorization === undefined && request.headers['x-api-key'] === undefined) return null;
    try {
      return (await auth.authenticate(request)).accountId;
    } catch (err) {
      // Refused credentials see what nobody sees. A key server that cannot be reached has judged nothing: 503,
      // answered whether or not the inbox exists, so it tells nothing either.
      if (err instanceof Problem && err.code === 'service_unavailable') throw err;
      return null;
    }
  }

  async function run<T>(request: FastifyRequest, query: AsViewer<T>): Promise<{ found: T; viewer: string | null } | undefined> {
    const open = await query(null);
    if (open !== undefined && open !== false) return { found: open, viewer: null };
    const account = await viewer(request);
    if (account === null) return undefined;
    const owned = await query(account);
    return owned === undefined || owned === false ? undefined : { found: owned, viewer: account };
  }

  return {
    async inbox(request, address, query) {
      const result = await run(request, query);
      if (!result) throw inboxNotFound(address);
      return result.found;
    },
    async message(request, id, query) {
      const result = isUuid(id) ? await run(request, (v) => query(id.toLowerCase(), v)) : undefined;
      if (!result) throw messageNotFound(id);
      return result.found;
    },
    async liveInbox(request, address) {
      const result = await run(request, (v) => liveInbox(deps.pool, address, v));
      if (!result) throw inboxNotFound(address);
      return { ...result.found, viewer: result.viewer };
    },
    viewer,
  };
}
