// What the jobs API is built from: given by the composition root (src/roles.ts), read by every route file.
import type { Pool } from '../../platform/db/index.ts';
import type { HttpLimits } from '../../platform/http/index.ts';
import type { Logger } from '../../platform/log.ts';
import type { MetricsAccess } from '../../platform/metrics/index.ts';
import type { Queue } from '../../platform/queue.ts';
import type { SourceLimits, SourceRegistry } from '../sources/index.ts';
import type { JobsRateLimits } from './rate-limits.ts';

export interface JobsAppDeps {
  pool: Pool;
  log: Logger;
  version: string;
  /** Where job creation writes its tasks' queue entries. */
  queue: Queue;
  /** The sources jobs may name in `job_types`, whose typed columns results show. */
  sources: SourceRegistry;
  /** JOBS_MAX_DOMAINS. */
  maxDomains: number;
  /** JOBS_<NAME>_CONCURRENCY and JOBS_<NAME>_RATE, by source: a dry run's duration estimate reads the rates. */
  limits: Record<string, SourceLimits>;
  /** JOBS_CACHE_MAX_AGE (seconds) and JOBS_CACHE_SHARED: fresh results reused. */
  reuse: { defaultMaxAgeSeconds: number; shared: boolean };
  /** JOBS_PUBLIC_URL: the callback of a job the API ends (a hard cancel) names its results under it. */
  publicUrl: string;
  /** ALLOW_PRIVATE_NETWORK: whether a webhook_url may name a private or loopback address. */
  allowPrivateNetwork: boolean;
  /** HTTP_REQUEST_TIMEOUT_SECONDS and HTTP_MAX_CONNECTIONS; the platform's defaults when unset. */
  httpLimits?: HttpLimits | undefined;
  /** METRICS_ALLOW: who may read `/metrics`; loopback and private networks when unset. */
  metricsAccess?: MetricsAccess | undefined;
  /** JOBS_RATE_LIMIT_*: request rates per tenant and key, creations per tenant; none when unset. */
  rateLimits?: JobsRateLimits | undefined;
}
