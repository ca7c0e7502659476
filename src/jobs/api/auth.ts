// Who is calling: the API key from `Authorization: Bearer` or `X-API-Key`, looked up by its SHA-256 on every
// request (so a revocation holds at once on every process), then the route's scope.
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { Pool } from '../../platform/db/index.ts';
import { dueForTouch, presentedCredentials, Problem, unauthorized as refuse } from '../../platform/http/index.ts';
import type { Logger } from '../../platform/log.ts';
import { hashToken, looksLikeToken, sameHash, type Scope } from '../keys.ts';
import { activeKeyByHash, touchKey, type ActiveKey } from '../store/index.ts';

interface Caller {
  keyId: string;
  tenantId: string;
  scopes: Scope[];
}

const callers = new WeakMap<FastifyRequest, Caller>();
const REALM = 'domainkit jobs';

/** The authenticated caller of a request that passed `requireScope`. */
export function callerOf(request: FastifyRequest): Caller {
  const caller = callers.get(request);
  if (!caller) throw new Error('route has no requireScope hook');
  return caller;
}

/** The caller, once a hook or handler has checked the request's key; undefined before. */
export function knownCaller(request: FastifyRequest): Caller | undefined {
  return callers.get(request);
}

export function isAdmin(caller: Caller): boolean {
  return caller.scopes.includes('keys:admin');
}

/** An onRequest hook: authentication runs before the body is read or validated. */
export function requireScope(pool: Pool, log: Logger, scope: Scope): onRequestAsyncHookHandler {
  return async (request) => {
    const hash = tokenHash(request);
    admit(request, pool, log, scope, hash, await activeKeyByHash(pool, hash));
  };
}

/** The SHA-256 of the request's key, or a 401 when it carries none of the right shape (no database read). */
export function tokenHash(request: FastifyRequest): Buffer {
  const token = presentedToken(request);
  if (!token || !looksLikeToken(token)) throw unauthorized(token ? 'the API key is not valid' : 'an API key is required');
  return hashToken(token);
}

/**
 * Lets the request through with the key found for its hash, or answers 401/403. Routes that read their key
 * together with their resource (one query instead of two) call this themselves, with the same outcome.
 */
export function admit(request: FastifyRequest, pool: Pool, log: Logger, scope: Scope, hash: Buffer, key: ActiveKey | undefined): Caller {
  if (!key || !sameHash(key.tokenHash, hash)) throw unauthorized('the API key is not valid or has been revoked');
  if (key.scopes.length === 0) throw unauthorized('the API key has no scope');
  if (dueForTouch(key.lastUsedAt)) {
    touchKey(pool, key.id).catch((err: unknown) => log.warn({ err }, 'could not record key use'));
  }
  if (!key.scopes.includes(scope)) {
    throw new Problem('missing_scope', `this operation needs the ${scope} scope; the key has ${key.scopes.join(', ')}`, {
      extra: { required_scope: scope },
    });
  }
  const caller = { keyId: key.id, tenantId: key.tenantId, scopes: key.scopes };
  callers.set(request, caller);
  return caller;
}

function presentedToken(request: FastifyRequest): string | undefined {
  const { bearer, apiKey } = presentedCredentials(request, REALM, 'API key');
  if (bearer !== undefined && apiKey !== undefined && bearer !== apiKey) {
    throw unauthorized('Authorization and X-API-Key carry different keys; send one');
  }
  return bearer ?? apiKey;
}

function unauthorized(detail: string): Problem {
  return refuse(REALM, detail);
}
