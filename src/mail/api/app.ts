// The mail API (/api/v1): disposable inboxes, their messages, and the Developer tier.
import { createApp, type App } from '../../platform/http/index.ts';
import { createListener } from '../../platform/db/index.ts';
import { createHub, createWaiters } from '../realtime/index.ts';
import { webRoutes } from '../web/index.ts';
import { createAccess } from './access.ts';
import { ACCOUNT_SCHEMAS } from './account-schemas.ts';
import { placeTaker, SSE_KIND, WAIT_KIND } from './client-bounds.ts';
import { createMailAuth } from './auth.ts';
import type { MailAppDeps } from './deps.ts';
import { developerRoutes } from './developer-routes.ts';
import { inboxesRoutes } from './inboxes-routes.ts';
import { messagesRoutes } from './messages-routes.ts';
import { mailRates } from './rate-limits.ts';
import { MAIL_SCHEMAS } from './schemas.ts';
import { sseRoutes } from './sse-routes.ts';
import { waitRoutes } from './wait-routes.ts';
import { WAIT_SCHEMAS } from './wait-schemas.ts';

export async function buildMailApp(deps: MailAppDeps): Promise<App> {
  const listener = createListener(deps.databaseUrl, deps.log);
  const hub = createHub({ pool: deps.pool, listener, log: deps.log, pingSeconds: deps.ssePingSeconds });
  const waiters = createWaiters({ pool: deps.pool, listener, log: deps.log });
  // One authenticator (its JWT verifier caches the JWKS) for the Developer routes and for private inboxes.
  const auth = createMailAuth(deps);
  const access = createAccess(deps, auth);
  const rates = mailRates(deps.pool, auth, deps.rateLimits);
  const perClient = deps.perClient ?? { sse: 100, wait: 100 };
  const streamPlace = placeTaker(deps.leases, SSE_KIND, perClient.sse, 'live streams');
  const waitPlace = placeTaker(deps.leases, WAIT_KIND, perClient.wait, 'waits for a message');
  const app = await createApp({
    title: 'domainkit mail API',
    description:
      'Disposable inboxes that receive real mail over SMTP: make an address, read its messages with the one-time ' +
      'code and links found in each, or follow it live as server-sent events. Reading needs no credentials; the ' +
      'Developer tier (API keys, inboxes with a chosen life, label and signed webhook) takes a JWT ' +
      '(`Authorization: Bearer`) or an API key (`X-API-Key`). Errors are `application/problem+json`.\n\n' +
      'An interactive reference is served at `/docs`. What OpenAPI cannot say (JWT claims and tiers, webhooks and their ' +
      'signatures, limits, the list of error codes) is in `docs/api/README.md` of the domainkit repository.',
    version: deps.version,
    log: deps.log,
    pool: deps.pool,
    schemas: [...MAIL_SCHEMAS, ...ACCOUNT_SCHEMAS, ...WAIT_SCHEMAS],
    limits: deps.httpLimits,
    service: 'mail',
    metricsAccess: deps.metricsAccess,
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
    },
    routes: async (app) => {
      // Ahead of every route's own onRequest hooks (the tier checks reuse the credentials it verified).
      app.addHook('onRequest', rates.hook);
      app.addHook('preHandler', rates.creationHook);
      await app.register(inboxesRoutes(deps, access));
      await app.register(messagesRoutes(deps, access));
      await app.register(developerRoutes(deps, auth));
      await app.register(sseRoutes(access, hub, streamPlace));
      await app.register(waitRoutes(deps, waiters, access, waitPlace));
      await app.register(webRoutes());
    },
  });
  // Streams never end by themselves, and waits may last minutes: they are ended (waits answered with their
  // cursor) before the server waits for its connections to close.
  app.addHook('preClose', async () => {
    hub.close();
    waiters.close();
    await listener.close();
  });
  return app;
}
