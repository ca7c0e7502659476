// The mail API (/api/v1): disposable inboxes, their messages, and the Developer tier.
import { createApp, type App, type HttpLimits } from '../../platform/http/index.ts';
import { createListener, type Pool } from '../../platform/db/index.ts';
import type { Logger } from '../../platform/log.ts';
import type { MetricsAccess } from '../../platform/metrics/index.ts';
import type { JwtSettings } from '../jwt.ts';
import { inboxesRoutes } from './inboxes-routes.ts';
import { createHub } from '../realtime/index.ts';
import { developerRoutes } from './developer-routes.ts';
import { messagesRoutes } from './messages-routes.ts';
import { sseRoutes } from './sse-routes.ts';
import { webRoutes } from '../web/index.ts';
import { MAIL_SCHEMAS } from './schemas.ts';

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
  /** HTTP_REQUEST_TIMEOUT_SECONDS and HTTP_MAX_CONNECTIONS; the platform's defaults when unset. */
  httpLimits?: HttpLimits | undefined;
  /** METRICS_ALLOW: who may read `/metrics`; loopback and private networks when unset. */
  metricsAccess?: MetricsAccess | undefined;
}

export async function buildMailApp(deps: MailAppDeps): Promise<App> {
  const listener = createListener(deps.databaseUrl, deps.log);
  const hub = createHub({ pool: deps.pool, listener, log: deps.log, pingSeconds: deps.ssePingSeconds });
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
    schemas: MAIL_SCHEMAS,
    limits: deps.httpLimits,
    service: 'mail',
    metricsAccess: deps.metricsAccess,
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
    },
    routes: async (app) => {
      await app.register(inboxesRoutes(deps));
      await app.register(messagesRoutes(deps));
      await app.register(developerRoutes(deps));
      await app.register(sseRoutes(deps, hub));
      await app.register(webRoutes());
    },
  });
  // How many streams this app holds (tests; the process's total is the domainkit_sse_subscribers metric).
  app.decorate('liveSubscribers', () => hub.size);
  // Streams never end by themselves: they are ended before the server waits for its connections to close.
  app.addHook('preClose', async () => {
    hub.close();
    await listener.close();
  });
  return app;
}
