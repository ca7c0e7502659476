// The mail API's request rates (docs/api/README.md, "Limits"). An anonymous request counts against its client
// address (an IPv6 client by its /64, which one subscriber usually holds whole); a request whose credentials
// prove an account counts against the account: a Developer account (tier 3 or higher) under the Developer
// policies, any other under the anonymous ones. Making an inbox or a namespace (a valid request to) also counts
// against a creation policy of its own. Credentials that prove nothing count as no credentials: against the address.
import type { FastifyRequest, onRequestAsyncHookHandler, preHandlerAsyncHookHandler } from 'fastify';
import type { Pool } from '../../platform/db/index.ts';
import { createRateLimiter, type RateCharge, type RateLimit } from '../../platform/http/index.ts';
import { DEVELOPER_TIER, type MailAuth } from './auth.ts';

/** MAIL_RATE_LIMIT_ANONYMOUS, _ANONYMOUS_CREATE, _DEVELOPER, _DEVELOPER_CREATE; undefined: that policy is off. */
export interface MailRateLimits {
  anonymous?: RateLimit | undefined;
  anonymousCreate?: RateLimit | undefined;
  developer?: RateLimit | undefined;
  developerCreate?: RateLimit | undefined;
}

/** The routes that make something addressable: `METHOD path` as routed. */
const CREATIONS = new Set(['POST /api/v1/inboxes/generate', 'POST /api/v1/inboxes', 'POST /api/v1/namespaces']);

export interface MailRates {
  /** onRequest, for every /api/v1 route, ahead of the routes' own (credentials are verified once). */
  hook: onRequestAsyncHookHandler;
  /** preHandler: a creation counts against its own policy once its body is valid (an invalid one makes nothing). */
  creationHook: preHandlerAsyncHookHandler;
}

export function mailRates(pool: Pool, auth: MailAuth, limits: MailRateLimits = {}): MailRates {
  const limiter = createRateLimiter(pool, 'mail', {
    anonymous: limits.anonymous,
    'anonymous-create': limits.anonymousCreate,
    developer: limits.developer,
    'developer-create': limits.developerCreate,
  });
  const anyOn = ['anonymous', 'anonymous-create', 'developer', 'developer-create'].some((p) => limiter.has(p));
  const counted = new WeakMap<FastifyRequest, RateCharge>();

  async function accountOf(request: FastifyRequest): Promise<{ id: string; developer: boolean } | undefined> {
    if (request.headers.authorization === undefined && request.headers['x-api-key'] === undefined) return undefined;
    try {
      const account = await auth.authenticate(request);
      return { id: account.accountId, developer: account.tier >= DEVELOPER_TIER };
    } catch {
      // The route answers refused credentials as it always has; the request counts as anonymous.
      return undefined;
    }
  }

  return {
    async hook(request, reply) {
      const route = request.routeOptions.url;
      if (!anyOn || route === undefined || !route.startsWith('/api/v1/')) return;
      const account = await accountOf(request);
      const charge: RateCharge = account
        ? { policy: account.developer ? 'developer' : 'anonymous', key: `account:${account.id}` }
        : { policy: 'anonymous', key: `address:${addressKey(request.ip)}` };
      counted.set(request, charge);
      await limiter.charge(reply, [charge]);
    },
    async creationHook(request, reply) {
      const charge = counted.get(request);
      if (charge && CREATIONS.has(`${request.method} ${request.routeOptions.url}`)) {
        await limiter.charge(reply, [{ policy: `${charge.policy}-create`, key: charge.key }]);
      }
    },
  };
}

/** An IPv4 address as it is; an IPv6 address by its /64 (a client has as many addresses as it likes inside). */
export function addressKey(ip: string): string {
  if (!ip.includes(':')) return ip;
  const [head = '', tail = ''] = ip.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = ip.includes('::') ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
