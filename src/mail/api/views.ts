// Rows as the API shows them (snake_case, ISO timestamps), each typed by the schema that documents it.
import type { Static } from 'typebox';
import type {
  ApiKeyRow,
  DomainRow,
  ExtractionRow,
  InboxRow,
  InboxStats,
  MessageRow,
  MessageSummary,
  NamespaceRow,
} from '../store/index.ts';
import type { CreatedNamespaceView, NamespaceView } from './account-schemas.ts';
import type {
  ApiKeyView,
  CreatedApiKeyView,
  CreatedInboxView,
  DomainView,
  InboxStatsView,
  InboxView,
  MessageLinksView,
  MessageOtpView,
  MessageSummaryView,
  MessageView,
} from './schemas.ts';
import type { WaitMessageSchema } from './wait-schemas.ts';

export type WaitMessageView = Omit<Static<typeof WaitMessageSchema>, 'message'> & { message: MessageView };

export function domainView(d: DomainRow): DomainView {
  return { name: d.name, is_public: d.isPublic, tier_required: d.tierRequired };
}

export function inboxView(inbox: InboxRow): InboxView {
  return {
    id: inbox.id,
    address: inbox.address,
    domain: inbox.domain,
    message_count: inbox.messageCount,
    unread_count: inbox.unreadCount,
    inbox_expires_at: inbox.expiresAt?.toISOString() ?? null,
    created_at: inbox.createdAt.toISOString(),
    label: inbox.label,
    webhook_url: inbox.webhookUrl,
    private: inbox.isPrivate,
    namespace: inbox.namespace,
  };
}

/** The inbox as made by its account: the only answer that shows the webhook's secret. */
export function createdInboxView(inbox: InboxRow, webhookSecret: string | null): CreatedInboxView {
  return { ...inboxView(inbox), webhook_secret: webhookSecret };
}

export function inboxStatsView(stats: InboxStats): InboxStatsView {
  return {
    address: stats.address,
    message_count: stats.messageCount,
    unread_count: stats.unreadCount,
    otp_count: stats.otpCount,
    total_bytes: stats.totalBytes,
    attachment_count: stats.attachmentCount,
    last_received_at: stats.lastReceivedAt?.toISOString() ?? null,
  };
}

function summaryView(m: MessageSummary): MessageSummaryView {
  return {
    id: m.id,
    from_address: m.fromAddress,
    subject: m.subject,
    received_at: m.receivedAt.toISOString(),
    is_read: m.isRead,
    has_otp: m.hasOtp,
    raw_size: m.rawSize,
    link_count: m.linkCount,
    attachment_count: m.attachmentCount,
    tag: m.tag,
  };
}

export function messageView(m: MessageRow): MessageView {
  return {
    ...summaryView(m),
    to_address: m.toAddress,
    body_text: m.bodyText,
    body_html: m.bodyHtml,
    links: m.links ?? [],
    attachments: m.attachments,
    otp_detected: m.otp,
    headers: m.headers,
  };
}

/** Kinds of links a person acts on: a wait answers with the first of them when it names no `link_kind`. */
const ACTION_KINDS: readonly string[] = ['verify', 'magic_link', 'reset', 'invite'];

/** A wait's answer with a message: the message as GET /api/v1/messages/{id} shows it, its code, the link to follow. */
export function waitMessageView(m: MessageRow, linkKind: string | undefined): WaitMessageView {
  const message = messageView(m);
  const link = message.links.find((l) => (linkKind === undefined ? ACTION_KINDS.includes(l.kind) : l.kind === linkKind));
  return { status: 'message', cursor: m.id, message, otp: m.otp, link: link ?? null };
}

/** No code is an answer too: `found` false, never a 404. */
export function messageOtpView(m: ExtractionRow): MessageOtpView {
  return { message_id: m.id, otp: m.otp, found: m.otp !== null, subject: m.subject };
}

export function messageLinksView(m: ExtractionRow): MessageLinksView {
  const links = m.links ?? [];
  return { message_id: m.id, count: links.length, links };
}

export function apiKeyView(key: ApiKeyRow): ApiKeyView {
  return {
    id: key.id,
    key_prefix: key.keyPrefix,
    label: key.label,
    is_active: key.isActive,
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    created_at: key.createdAt.toISOString(),
    expires_at: key.expiresAt.toISOString(),
  };
}

/** A new key with its plaintext: shown in this answer only. */
export function createdApiKeyView(key: ApiKeyRow, plaintext: string): CreatedApiKeyView {
  return { id: key.id, key_prefix: key.keyPrefix, label: key.label, plaintext, expires_at: key.expiresAt.toISOString() };
}

export function namespaceView(n: NamespaceRow): NamespaceView {
  return {
    id: n.id,
    name: n.name,
    domain: n.domain,
    address_pattern: `${n.name}.*@${n.domain}`,
    private: n.isPrivate,
    inbox_ttl_seconds: n.inboxTtlSeconds,
    label: n.label,
    webhook_url: n.webhookUrl,
    inbox_count: n.inboxCount,
    created_at: n.createdAt.toISOString(),
  };
}

/** A new namespace with its webhook's secret: shown in this answer only. */
export function createdNamespaceView(n: NamespaceRow, webhookSecret: string | null): CreatedNamespaceView {
  return { ...namespaceView(n), webhook_secret: webhookSecret };
}
