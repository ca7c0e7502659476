// All SQL of the mail service, one file per aggregate. Every statement is named (prepared once per
// connection) `mail.<aggregate>.<function>`, with `.<variant>` when one function runs several texts.
export { activeApiKey, insertApiKey, listApiKeys, recordAccount, revokeApiKey, touchApiKey, type ApiKeyRow } from './accounts.ts';
export { domainFor, ensureDomains, listDomains, putDomain, type DomainRow } from './domains.ts';
export {
  inboxByAddress,
  inboxStats,
  insertAccountInbox,
  insertInbox,
  liveInbox,
  recipient,
  sweepExpired,
  webhookInboxes,
  webhookSecrets,
  type InboxRow,
  type InboxStats,
  type LiveInbox,
  type Recipient,
} from './inboxes.ts';
export {
  clearInbox,
  deleteMessage,
  extractionOf,
  listMessagesJson,
  markAllRead,
  messageEvents,
  messageEventsAfter,
  rawMessage,
  readMessage,
  storeExtraction,
  type ExtractionRow,
  type MessageEvent,
  type MessageRow,
  type MessageSummary,
} from './messages.ts';
export { insertMessages, MESSAGE_CHANNEL, type NewMessage } from './messages-insert.ts';
