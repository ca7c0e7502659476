// The mail API (/api/v1): disposable inboxes, their messages, and the Developer tier.
import { createApp, type App } from '../../platform/http/index.ts';
import type { Pool } from '../../platform/db/index.ts';
import type { Logger } from '../../platform/log.ts';

export interface MailAppDeps {
  pool: Pool;
  log: Logger;
  version: string;
}

export function buildMailApp(deps: MailAppDeps): Promise<App> {
  return createApp({
    title: 'domainkit mail API',
    description: 'Disposable inboxes with real SMTP ingestion. See shared/spec/mail-api-v1.md.',
    version: deps.version,
    log: deps.log,
    pool: deps.pool,
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
    },
    // The /api/v1 routes arrive with the mail issues; until then the prefix answers 404 problems.
    routes: async () => {},
  });
}
