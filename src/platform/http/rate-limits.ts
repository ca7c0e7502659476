// Request rate limits, one budget across every process: rate-limiter-flexible's PostgreSQL store over the
// UNLOGGED `request_rates` table (migration 1763700000015). Each service names its policies and decides, per
// request, which key each policy counts (an address, an account, a tenant, a key); this file knows no service.
// Answers carry the RateLimit-Policy and RateLimit fields of draft-ietf-httpapi-ratelimit-headers-11.
import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import type { Pool } from '../db/index.ts';
import { Problem } from './problem.ts';
import { type Counted, type RateCounter, rateCounter } from './rate-counter.ts';

/** `points` requests per fixed window of `seconds`. */
export interface RateLimit {
  points: number;
  seconds: number;
}

/** One request counted against `policy` under `key`. */
export interface RateCharge {
  policy: string;
  key: string;
}

export interface RateLimiter {
  /** Whether `policy` limits anything (a policy that is off is not counted and not shown). */
  has(policy: string): boolean;
  /**
   * Counts the request against each charge whose policy is on, sets RateLimit-Policy and RateLimit on `reply`,
   * and throws the 429 `rate_limited` problem (with Retry-After) when any of them is spent.
   */
  charge(reply: FastifyReply, charges: RateCharge[]): Promise<void>;
}

interface Policy {
  name: string;
  limit: RateLimit;
  counter: RateCounter;
}

/** `service` prefixes the keys, so two services' policies of one name never share a budget. */
export function createRateLimiter(pool: Pool, service: string, limits: Record<string, RateLimit | undefined>): RateLimiter {
  const policies = new Map<string, Policy>();
  for (const [name, limit] of Object.entries(limits)) {
    if (!limit) continue;
    const store = new RateLimiterPostgres({
      storeClient: pool,
      tableName: 'request_rates',
      tableCreated: true,
      keyPrefix: `${service}:${name}`,
      points: limit.points,
      duration: limit.seconds,
    });
    policies.set(name, { name, limit, counter: rateCounter(store, limit.points) });
  }

  return {
    has: (policy) => policies.has(policy),
    async charge(reply, charges) {
      const counted = charges.flatMap((c) => {
        const policy = policies.get(c.policy);
        return policy ? [{ policy, key: storeKey(c.key) }] : [];
      });
      if (counted.length === 0) return;
      const results = await Promise.all(counted.map(({ policy, key }) => consume(policy, key)));
      // A second charge of one request (a creation, counted once its body is valid) adds its items to the first's.
      const headers = {
        'ratelimit-policy': joined(
          reply,
          'ratelimit-policy',
          counted.map(({ policy }) => `"${policy.name}";q=${policy.limit.points};w=${policy.limit.seconds}`),
        ),
        ratelimit: joined(
          reply,
          'ratelimit',
          results.map((c, i) => {
            const { name, limit } = counted[i]!.policy;
            return `"${name}";r=${Math.max(0, limit.points - c.count)};t=${seconds(c.msBeforeNext)}`;
          }),
        ),
      };
      const refused = results.flatMap((c, i) => (c.count > counted[i]!.policy.limit.points ? [{ c, policy: counted[i]!.policy }] : []));
      if (refused.length === 0) {
        void reply.headers(headers);
        return;
      }
      // The longest wait of the spent policies: retrying earlier would be refused again.
      const retryAfter = Math.max(1, ...refused.map(({ c }) => seconds(c.msBeforeNext)));
      const names = refused.map(({ policy }) => policy.name);
      const first = refused[0]!.policy;
      throw new Problem(
        'rate_limited',
        `too many requests: policy "${first.name}" allows ${first.limit.points} per ${first.limit.seconds} s; retry after ${retryAfter} s`,
        { headers: { ...headers, 'retry-after': String(retryAfter) }, extra: { violated_policies: names } },
      );
    },
  };
}

/** This request's place in the policy's count; a store that cannot answer is a 503 (never an unlimited pass). */
async function consume(policy: Policy, key: string): Promise<Counted> {
  try {
    return await policy.counter.count(key);
  } catch {
    throw new Problem('service_unavailable', 'the rate limit store is not reachable');
  }
}

// Keys are at most 255 characters with the prefix; an account id from a JWT can be longer.
function storeKey(key: string): string {
  return key.length <= 128 ? key : createHash('sha256').update(key).digest('base64url');
}

function joined(reply: FastifyReply, name: string, items: string[]): string {
  const before = reply.getHeader(name);
  return [...(typeof before === 'string' ? [before] : []), ...items].join(', ');
}

function seconds(ms: number): number {
  return Math.max(0, Math.ceil(ms / 1000));
}
