// The client's names for the mail API's shapes, all taken from the generated types of the OpenAPI document
// (mail-api.ts): a route or field that changes there changes here, and the client stops compiling where it
// relied on the old shape.
import type { components, paths } from './mail-api.ts';

type Schemas = components['schemas'];
type JsonOf<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;
type WaitRoute = paths['/api/v1/inboxes/{address}/wait']['get'];

export type Domain = Schemas['Domain'];
export type Inbox = Schemas['Inbox'];
/** What createInbox answers: an inbox, with its webhook secret when it was made with credentials (shown once). */
export type NewInbox = Inbox & { webhook_secret?: Schemas['CreatedInbox']['webhook_secret'] };
export type MessageSummary = Schemas['MessageSummary'];
export type Message = Schemas['Message'];
export type Link = Message['links'][number];
export type Problem = Schemas['Problem'];

export type GenerateBody = NonNullable<JsonOf<paths['/api/v1/inboxes/generate']['post']['requestBody']>>;
export type CreateInboxBody = JsonOf<paths['/api/v1/inboxes']['post']['requestBody']>;
export type WaitQuery = NonNullable<WaitRoute['parameters']['query']>;
/** The wait route's answer: a message (with its code and first actionable link) or a timeout, each with a cursor. */
export type WaitAnswer = JsonOf<WaitRoute['responses'][200]>;
export type WaitMessage = Extract<WaitAnswer, { status: 'message' }>;
/** verify, magic_link, reset, unsubscribe, invite or other. */
export type LinkKind = NonNullable<WaitQuery['link_kind']>;
/** The link a wait answers with: the first of the kind asked for, else the first actionable one. */
export type WaitLink = NonNullable<WaitMessage['link']>;
