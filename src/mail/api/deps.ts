// What the mail API is built from: given by the composition root (roles.ts) or a test, handed to every route.
import type { Pool } from '../../platform/db/index.ts';
import type { HttpLimits } from '../../platform/http/index.ts';
import type { ClientLeases } from '../../platform/leases/index.ts';
import type { Logger } from '../../platform/log.ts';
import type { MetricsAccess } from '../../platform/metrics/index.ts';
import type { JwtSettings } from '../jwt.ts';
import type { MailRateLimits } from './rate-limits.ts';

export interface MailAppDeps {
  pool: Pool;
  log: Logger;
  version: string;
  /** MAIL_ANON_TTL_SECONDS: the life of an anonymous inbox. */
  anonTtlSeconds: number;
  /** MAIL_JWT_SECRET or MAIL_JWKS_URL: how Bearer JWTs are verified; with neither, every JWT is refused. */
  jwt?: JwtSettings | undefined;
  /** ALLOW_PRIVATE_NETWORK: whether a webhook_url may name a private or loopback address. */
  allowPrivateNetwork?: boolean | undefined;
  /** The database's URL: live inboxes hold a LISTEN connection of their own. */
  databaseUrl: string;
  /** MAIL_SSE_PING_SECONDS. */
  ssePingSeconds: number;
  /** MAIL_WAIT_MAX_SECONDS: the longest `timeout` of GET /api/v1/inboxes/{address}/wait. */
  waitMaxSeconds: number;
  /** HTTP_REQUEST_TIMEOUT_SECONDS and HTTP_MAX_CONNECTIONS; the platform's defaults when unset. */
  httpLimits?: HttpLimits | undefined;
  /** METRICS_ALLOW: who may read `/metrics`; loopback and private networks when unset. */
  metricsAccess?: MetricsAccess | undefined;
  /** MAIL_RATE_LIMIT_*: request rates per address, account and tier (docs/operations.md); none when unset. */
  rateLimits?: MailRateLimits | undefined;
  /** The per-client places shared by every process; without them (tests of other things) nothing is bounded. */
  leases?: ClientLeases | undefined;
  /** MAIL_SSE_MAX_PER_CLIENT and MAIL_WAIT_MAX_PER_CLIENT (0: none); 100 each when unset. */
  perClient?: { sse: number; wait: number } | undefined;
}
