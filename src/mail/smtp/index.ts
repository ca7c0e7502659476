export { createSmtpServer, type SmtpOptions } from './server.ts';
export { parseMessage, type ParsedMessage } from './parse.ts';
