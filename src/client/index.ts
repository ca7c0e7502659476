// `domainkit/client`: a typed client for the mail API. It imports nothing but its own folder and uses only the
// web platform (fetch, URL, AbortSignal), so it runs in Node.js 22+ and in browsers with no dependency.
// test/architecture.test.ts keeps it so; docs/client.md documents it.
export { MailClient, type CreateInboxOptions, type FoundLink, type MailClientOptions, type WaitForLinkOptions } from './client.ts';
export { MailApiError, WaitTimeoutError } from './errors.ts';
export type { ClientOptions } from './http.ts';
export type * from './types.ts';
export { BEGINNING, LINK_KINDS, type WaitOptions } from './wait.ts';
export type { components, paths } from './mail-api.ts';
