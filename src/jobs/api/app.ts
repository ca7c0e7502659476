// The jobs API (/v1): tenants' API keys submit domains × sources and read typed results.
import type { Pool } from '../../platform/db/index.ts';
import { createApp, type App, type HttpLimits } from '../../platform/http/index.ts';
import type { Logger } from '../../platform/log.ts';
import type { MetricsAccess } from '../../platform/metrics/index.ts';
import type { Queue } from '../../platform/queue.ts';
import { createTaskQueues } from '../queues.ts';
import { jobsRoutes } from './jobs-routes.ts';
import { keysRoutes } from './keys-routes.ts';
import { JOBS_SCHEMAS } from './schemas.ts';

export interface JobsAppDeps {
  pool: Pool;
  log: Logger;
  version: string;
  /** Where job creation writes its tasks' queue entries. */
  queue: Queue;
  /** JOBS_MAX_DOMAINS. */
  maxDomains: number;
  /** ALLOW_PRIVATE_NETWORK: whether a webhook_url may name a private or loopback address. */
  allowPrivateNetwork: boolean;
  /** HTTP_REQUEST_TIMEOUT_SECONDS and HTTP_MAX_CONNECTIONS; the platform's defaults when unset. */
  httpLimits?: HttpLimits | undefined;
  /** METRICS_ALLOW: who may read `/metrics`; loopback and private networks when unset. */
  metricsAccess?: MetricsAccess | undefined;
}

export async function buildJobsApp(deps: JobsAppDeps): Promise<App> {
  // Job creation writes into the task queues; they must exist before the first request.
  await createTaskQueues(deps.queue);
  return createApp({
    title: 'domainkit jobs API',
    description:
      'Domain metrics collected as jobs: a job asks for every domain × every source (seokicks, moz, ahrefs_backlinks, ' +
      'ahrefs_traffic, wayback, ping), workers fill one typed result row per pair, and a signed callback can tell ' +
      'you when the job ends. Every /v1 route takes an API key of one tenant (`Authorization: Bearer` or ' +
      '`X-API-Key`) with the scope the route names. Errors are `application/problem+json`.\n\n' +
      'An interactive reference is served at `/docs`. What OpenAPI cannot say (keys and scopes, callbacks and their signatures, ' +
      'pagination, limits, the list of error codes) is in `docs/api/README.md` of the domainkit repository.',
    version: deps.version,
    log: deps.log,
    pool: deps.pool,
    schemas: JOBS_SCHEMAS,
    limits: deps.httpLimits,
    service: 'jobs',
    metricsAccess: deps.metricsAccess,
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer', description: 'a dm_jobs_ API key' },
      apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
    },
    routes: async (app) => {
      await app.register(jobsRoutes(deps));
      await app.register(keysRoutes(deps));
    },
  });
}
