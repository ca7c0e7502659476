// The jobs API (/v1): tenants' API keys submit domains × sources and read typed results.
import { createApp, type App } from '../../platform/http/index.ts';
import { createTaskQueues } from '../queues.ts';
import { budgetSchemas } from './budget-schemas.ts';
import { budgetsRoutes } from './budgets-routes.ts';
import type { JobsAppDeps } from './deps.ts';
import { jobsRoutes } from './jobs-routes.ts';
import { keysRoutes } from './keys-routes.ts';
import { jobsRates } from './rate-limits.ts';
import { resultsRoutes } from './results-routes.ts';
import { jobsSchemas } from './schemas.ts';
import { transitionsRoutes } from './transitions-routes.ts';
import { usageRoutes } from './usage-routes.ts';

export async function buildJobsApp(deps: JobsAppDeps): Promise<App> {
  // Job creation writes into the task queues; they must exist before the first request.
  await createTaskQueues(deps.queue, deps.sources.names);
  const schemas = jobsSchemas(deps.sources, deps.maxDomains);
  const budgets = budgetSchemas(deps.sources);
  const rates = jobsRates(deps.pool, deps.rateLimits);
  return createApp({
    title: 'domainkit jobs API',
    description:
      `Domain metrics collected as jobs: a job asks for every domain × every source (${deps.sources.names.join(', ')}), ` +
      'workers fill one typed result row per pair, and a signed callback can tell ' +
      'you when the job ends. Every /v1 route takes an API key of one tenant (`Authorization: Bearer` or ' +
      '`X-API-Key`) with the scope the route names. Errors are `application/problem+json`.\n\n' +
      'An interactive reference is served at `/docs`. What OpenAPI cannot say (keys and scopes, callbacks and their signatures, ' +
      'pagination, limits, the list of error codes) is in `docs/api/README.md` of the domainkit repository.',
    version: deps.version,
    log: deps.log,
    pool: deps.pool,
    schemas: [...schemas.components, ...budgets.components],
    limits: deps.httpLimits,
    service: 'jobs',
    metricsAccess: deps.metricsAccess,
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer', description: 'a dm_jobs_ API key' },
      apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
    },
    routes: async (app) => {
      // After every route's onRequest hook (which checks the key), before any body is read.
      app.addHook('preParsing', rates.hook);
      await app.register(jobsRoutes(deps, schemas, rates));
      await app.register(resultsRoutes(deps, schemas));
      await app.register(transitionsRoutes(deps));
      await app.register(usageRoutes(deps, schemas));
      await app.register(budgetsRoutes(deps, budgets));
      await app.register(keysRoutes(deps));
    },
  });
}
