// The mail API (/api/v1): disposable inboxes, their messages, and the Developer tier.
import { createApp, type App } from '../../platform/http/index.ts';
import type { Pool } from '../../platform/db/index.ts';
import type { Logger } from '../../platform/log.ts';
import { inboxesRoutes } from './inboxes-routes.ts';
import { messagesRoutes } from './messages-routes.ts';
import { MAIL_SCHEMAS } from './schemas.ts';

export interface MailAppDeps {
  pool: Pool;
  log: Logger;
  version: string;
  /** MAIL_ANON_TTL_SECONDS: the life of an anonymous inbox. */
  anonTtlSeconds: number;
}

export function buildMailApp(deps: MailAppDeps): Promise<App> {
  return createApp({
    title: 'domainkit mail API',
    description: 'Disposable inboxes with real SMTP ingestion. See shared/spec/mail-api-v1.md.',
    version: deps.version,
    log: deps.log,
    pool: deps.pool,
    schemas: MAIL_SCHEMAS,
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
    },
    routes: async (app) => {
      await app.register(inboxesRoutes(deps));
      await app.register(messagesRoutes(deps));
    },
  });
}
