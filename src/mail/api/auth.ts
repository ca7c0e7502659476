// Who calls: an account from `Authorization: Bearer <JWT>`, or from an API key in `X-API-Key` looked up in
// PostgreSQL on every request (a revoked key fails at once on every process). The Developer-tier routes check
// it, then their tier, in an onRequest hook, before the body is read or validated; the anonymous routes ask
// only when an inbox is private (access.ts).
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { Pool } from '../../platform/db/index.ts';
import { dueForTouch, presentedCredentials, Problem, sameHash, unauthorized as refuse } from '../../platform/http/index.ts';
import type { Logger } from '../../platform/log.ts';
import { createJwtVerifier, type JwtSettings } from '../jwt.ts';
import { looksLikeApiKey, parseApiKey } from '../keys.ts';
import { activeApiKey, recordAccount, touchApiKey } from '../store/index.ts';

export interface Account {
  accountId: string;
  /** The JWT's tier; for an API key, the account's latest known tier (from its last JWT). */
  tier: number;
  /** The API key the request came with; null for a JWT. */
  keyId: string | null;
}

/** Tier 3 is Developer: API keys and programmatic inboxes. */
export const DEVELOPER_TIER = 3;

const REALM = 'domainkit mail';
const accounts = new WeakMap<FastifyRequest, Account>();

/** The account of a request that passed a `requireTier` hook. */
export function accountOf(request: FastifyRequest): Account {
  const account = accounts.get(request);
  if (!account) throw new Error('route has no requireTier hook');
  return account;
}

export interface MailAuthDeps {
  pool: Pool;
  log: Logger;
  jwt?: JwtSettings | undefined;
}

export interface MailAuth {
  /** The account the request's credentials prove; else a 401 `unauthorized` (none, or refused) or a 503. */
  authenticate(request: FastifyRequest): Promise<Account>;
  /** An onRequest hook: the request's account, of `minTier` or higher, kept for `accountOf`. */
  requireTier(minTier: number): onRequestAsyncHookHandler;
}

/** The app's one authenticator: its JWT verifier (and cached JWKS) is shared by every route. */
export function createMailAuth(deps: MailAuthDeps): MailAuth {
  const verifyJwt = createJwtVerifier(deps.jwt ?? {});

  async function byJwt(token: string): Promise<Account> {
    if (looksLikeApiKey(token)) throw unauthorized('API keys are sent as X-API-Key, not as a Bearer token');
    if (!verifyJwt) {
      throw unauthorized('this service accepts no JWTs: neither MAIL_JWT_SECRET nor MAIL_JWKS_URL is set');
    }
    const result = await verifyJwt(token);
    if (!result.ok) throw result.unavailable ? new Problem('service_unavailable', result.reason) : unauthorized(result.reason);
    const { accountId, tier, issuedAt } = result.claims;
    // So the account's API keys act with its latest known tier.
    await recordAccount(deps.pool, { id: accountId, tier, issuedAt });
    return { accountId, tier, keyId: null };
  }

  async function byKey(value: string): Promise<Account> {
    const presented = parseApiKey(value);
    if (!presented) throw unauthorized('the API key is not valid');
    const key = await activeApiKey(deps.pool, presented.keyPrefix);
    // The prefix finds the key; the hash decides, compared in constant time.
    if (!key || !sameHash(key.keyHash, presented.hash)) throw unauthorized('the API key is not valid, has expired or has been revoked');
    if (dueForTouch(key.lastUsedAt)) {
      touchApiKey(deps.pool, key.id).catch((err: unknown) => deps.log.warn({ err }, 'could not record key use'));
    }
    return { accountId: key.accountId, tier: key.tier, keyId: key.id };
  }

  // Verified once per request: the rate limits, private inboxes and the tier hooks may each ask.
  const proved = new WeakMap<FastifyRequest, Promise<Account>>();
  function authenticate(request: FastifyRequest): Promise<Account> {
    let account = proved.get(request);
    if (!account) {
      account = verify(request);
      proved.set(request, account);
    }
    return account;
  }

  async function verify(request: FastifyRequest): Promise<Account> {
    const { bearer, apiKey } = presentedCredentials(request, REALM, 'JWT');
    if (bearer !== undefined && apiKey !== undefined) {
      throw unauthorized('send a JWT (Authorization: Bearer) or an API key (X-API-Key), not both');
    }
    if (bearer === undefined && apiKey === undefined) {
      throw unauthorized('credentials are required: Authorization: Bearer <JWT>, or X-API-Key: <API key>');
    }
    return apiKey !== undefined ? await byKey(apiKey) : await byJwt(bearer!);
  }

  return {
    authenticate,
    requireTier: (minTier) => async (request) => {
      const account = await authenticate(request);
      if (account.tier < minTier) {
        throw new Problem(
          'tier_required',
          `this needs an account of ${tierName(minTier)} or higher; this account has tier ${account.tier}`,
          {
            extra: { required_tier: minTier },
          },
        );
      }
      accounts.set(request, account);
    },
  };
}

export function tierName(tier: number): string {
  return tier === DEVELOPER_TIER ? `tier ${tier} (Developer)` : `tier ${tier}`;
}

function unauthorized(detail: string): Problem {
  return refuse(REALM, detail);
}
