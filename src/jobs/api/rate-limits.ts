// The jobs API's request rates (docs/api/README.md, "Limits"): every request of a known key counts once against
// its tenant and once against the key, and a valid `POST /v1/jobs` once more against its tenant's creations. The
// budgets are shared by every jobs-api process (platform/http/rate-limits.ts).
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler, preParsingAsyncHookHandler } from 'fastify';
import type { Pool } from '../../platform/db/index.ts';
import { createRateLimiter, type RateCharge, type RateLimit } from '../../platform/http/index.ts';
import { knownCaller } from './auth.ts';

/** JOBS_RATE_LIMIT_TENANT, _KEY and _CREATE; undefined: that policy is off. */
export interface JobsRateLimits {
  tenant?: RateLimit | undefined;
  key?: RateLimit | undefined;
  create?: RateLimit | undefined;
}

export interface JobsRates {
  /** Counts a request whose caller is known; the 429 `rate_limited` when a budget is spent. */
  charge(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /**
   * Counts each request whose key a route's onRequest hook has checked, before its body is read. The one route
   * that checks its key in its handler (GET /v1/jobs/{id}: key and job in one query) calls `charge` itself.
   */
  hook: preParsingAsyncHookHandler;
  /** POST /v1/jobs's preHandler: counts a creation once its body is valid (a request refused as invalid creates nothing). */
  creationHook: preHandlerAsyncHookHandler;
}

export function jobsRates(pool: Pool, limits: JobsRateLimits = {}): JobsRates {
  const limiter = createRateLimiter(pool, 'jobs', { tenant: limits.tenant, key: limits.key, create: limits.create });
  async function charge(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const caller = knownCaller(request);
    if (!caller) return;
    const charges: RateCharge[] = [
      { policy: 'tenant', key: caller.tenantId },
      { policy: 'key', key: caller.keyId },
    ];
    await limiter.charge(reply, charges);
  }
  return {
    charge,
    hook: async (request, reply, payload) => {
      await charge(request, reply);
      return payload;
    },
    creationHook: async (request, reply) => {
      const caller = knownCaller(request);
      if (caller) await limiter.charge(reply, [{ policy: 'create', key: caller.tenantId }]);
    },
  };
}
