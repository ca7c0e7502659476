export { buildMailApp, type MailAppDeps } from './api/app.ts';
export { createSmtpServer, type SmtpOptions } from './smtp/server.ts';
