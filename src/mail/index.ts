export { buildMailApp, type MailAppDeps } from './api/app.ts';
export { domainToAdd } from './domains.ts';
export { signAccountToken, type JwtSettings } from './jwt.ts';
export { createSmtpServer, type SmtpOptions } from './smtp/server.ts';
export { mailWebhookService } from './webhooks.ts';
export { ensureDomains, putDomain, type DomainRow } from './store.ts';
export { startSweeper, type Sweeper } from './sweeper.ts';
