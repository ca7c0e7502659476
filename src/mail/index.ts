export { buildMailApp, type MailAppDeps } from './api/app.ts';
export { domainToAdd } from './domains.ts';
export { createSmtpServer, type SmtpOptions } from './smtp/server.ts';
export { ensureDomains, putDomain, type DomainRow } from './store.ts';
export { startSweeper, type Sweeper } from './sweeper.ts';
