export { buildMailApp, type MailAppDeps } from './api/index.ts';
export { domainToAdd } from './domains.ts';
export { signAccountToken } from './jwt.ts';
export { createSmtpServer, type SmtpOptions } from './smtp/index.ts';
export { mailWebhookService } from './webhooks.ts';
export { ensureDomains, putDomain } from './store/index.ts';
export { startSweeper, type Sweeper } from './sweeper.ts';
