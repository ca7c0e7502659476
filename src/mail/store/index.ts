// All SQL of the mail service, one file per aggregate. Every statement is named (prepared once per
// connection) `mail.<aggregate>.<function>`, with `.<variant>` when one function runs several texts.
export { activeApiKey, insertApiKey, listApiKeys, recordAccount, revokeApiKey, touchApiKey, type ApiKeyRow } from './accounts.ts';
export { domainFor, ensureDomains, listDomains, putDomain, type DomainRow } from './domains.ts';
export {
  deleteInbox,
  inboxByAddress,
  inboxStats,
  insertAccountInbox,
  insertInbox,
  listAccountInboxes,
  liveInbox,
  sweepExpired,
  webhookInboxes,
  webhookSecrets,
  type InboxPosition,
  type InboxRow,
  type InboxStats,
  type LiveInbox,
} from './inboxes.ts';
export { recipient, type Recipient, type RecipientQuery } from './recipients.ts';
export {
  deleteNamespace,
  insertNamespace,
  listNamespaces,
  namespaceClaim,
  type NamespaceClaim,
  type NamespaceRow,
} from './namespaces.ts';
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
  type MessageListPage,
  type MessageRow,
  type MessageSummary,
} from './messages.ts';
export { insertMessages, MESSAGE_CHANNEL, type NewMessage } from './messages-insert.ts';
export { newestMessageIds, peekMessages, waitCandidates, waitCandidatesAfter, type WaitCandidate } from './messages-wait.ts';
