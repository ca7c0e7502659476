export { createSmtpServer, type SmtpOptions } from './server.ts';
