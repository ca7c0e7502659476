export { buildMailApp } from './app.ts';
export type { MailAppDeps } from './deps.ts';
