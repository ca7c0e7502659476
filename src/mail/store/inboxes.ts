// Inboxes: made anonymously or by an account, looked up by address (the API, live streams), listed by their
// account, deleted, their webhooks, and the sweep of expired ones. RCPT lookups are recipients.ts.
import type { Queryable } from '../../platform/db/index.ts';
import { LIVE, visibleTo } from './live.ts';

export interface InboxRow {
  id: string;
  address: string;
  domain: string;
  createdAt: Date;
  expiresAt: Date | null;
  label: string | null;
  webhookUrl: string | null;
  messageCount: number;
  unreadCount: number;
  /** null: anonymous. */
  accountId: string | null;
  isPrivate: boolean;
  /** The name of the namespace the inbox was made in, if any. */
  namespace: string | null;
}

export interface NewInbox {
  id: string;
  address: string;
  domain: string;
  /** null: persistent. */
  ttlSeconds: number | null;
}

export interface NewAccountInbox extends NewInbox {
  accountId: string;
  label: string | null;
  webhookUrl: string | null;
  /** Kept as is: webhooks are signed with it. */
  webhookSecret: string | null;
  isPrivate: boolean;
  /** The owner's namespace the address belongs to, if any. */
  namespaceId: string | null;
}

export const INBOX_COLUMNS = `i.id, i.address, i.domain, i.created_at AS "createdAt", i.expires_at AS "expiresAt", i.label,
  i.webhook_url AS "webhookUrl", i.account_id AS "accountId", i.is_private AS "isPrivate",
  (SELECT n.name FROM mail_namespaces n WHERE n.id = i.namespace_id) AS namespace`;

/** The counters of an inbox row `i`, counted from its messages. */
export const INBOX_COUNTERS = `(SELECT count(*)::int FROM messages m WHERE m.inbox_id = i.id) AS "messageCount",
  (SELECT count(*)::int FROM messages m WHERE m.inbox_id = i.id AND NOT m.is_read) AS "unreadCount"`;

/** An expired inbox still holding the address is deleted, with its messages: the address is free the moment it expired. */
export async function freeAddress(db: Queryable, address: string): Promise<void> {
  await db.query({
    name: 'mail.inboxes.freeAddress',
    text: 'DELETE FROM inboxes WHERE address = $1 AND expires_at <= now()',
    values: [address],
  });
}

/** Creates an anonymous inbox unless a live one holds the address (then undefined). */
export async function insertInbox(db: Queryable, inbox: NewInbox): Promise<InboxRow | undefined> {
  await freeAddress(db, inbox.address);
  const { rows } = await db.query<InboxRow>({
    name: 'mail.inboxes.insertInbox',
    text: `INSERT INTO inboxes AS i (id, address, domain, expires_at) VALUES ($1, $2, $3, now() + make_interval(secs => $4))
      ON CONFLICT (address) DO NOTHING
      RETURNING ${INBOX_COLUMNS}, 0 AS "messageCount", 0 AS "unreadCount"`,
    values: [inbox.id, inbox.address, inbox.domain, inbox.ttlSeconds],
  });
  return rows[0];
}

/** A programmatic inbox: as `insertInbox`, with its account, label, webhook, privacy and namespace. */
export async function insertAccountInbox(db: Queryable, inbox: NewAccountInbox): Promise<InboxRow | undefined> {
  await freeAddress(db, inbox.address);
  const { rows } = await db.query<InboxRow>({
    name: 'mail.inboxes.insertAccountInbox',
    text: `INSERT INTO inboxes AS i (id, address, domain, expires_at, account_id, label, webhook_url, webhook_secret, is_private, namespace_id)
      VALUES ($1, $2, $3, now() + make_interval(secs => $4), $5, $6, $7, $8, $9, $10)
      ON CONFLICT (address) DO NOTHING
      RETURNING ${INBOX_COLUMNS}, 0 AS "messageCount", 0 AS "unreadCount"`,
    values: [
      inbox.id,
      inbox.address,
      inbox.domain,
      inbox.ttlSeconds,
      inbox.accountId,
      inbox.label,
      inbox.webhookUrl,
      inbox.webhookSecret,
      inbox.isPrivate,
      inbox.namespaceId,
    ],
  });
  return rows[0];
}

/** A live inbox `viewer` may see (live.ts, `visibleTo`), with its counters. */
export async function inboxByAddress(db: Queryable, address: string, viewer: string | null): Promise<InboxRow | undefined> {
  const { rows } = await db.query<InboxRow>({
    name: 'mail.inboxes.inboxByAddress',
    text: `SELECT ${INBOX_COLUMNS}, ${INBOX_COUNTERS} FROM inboxes i WHERE i.address = $1 AND ${LIVE} AND ${visibleTo('$2')}`,
    values: [address, viewer],
  });
  return rows[0];
}

export interface InboxStats {
  address: string;
  messageCount: number;
  unreadCount: number;
  otpCount: number;
  totalBytes: number;
  attachmentCount: number;
  lastReceivedAt: Date | null;
}

export async function inboxStats(db: Queryable, address: string, viewer: string | null): Promise<InboxStats | undefined> {
  const { rows } = await db.query<InboxStats>({
    name: 'mail.inboxes.inboxStats',
    text: `SELECT i.address, count(m.id)::int AS "messageCount", count(m.id) FILTER (WHERE NOT m.is_read)::int AS "unreadCount",
        count(m.otp)::int AS "otpCount", coalesce(sum(m.raw_size), 0)::bigint::float8 AS "totalBytes",
        coalesce(sum(m.attachment_count), 0)::int AS "attachmentCount", max(m.received_at) AS "lastReceivedAt"
      FROM inboxes i LEFT JOIN messages m ON m.inbox_id = i.id
      WHERE i.address = $1 AND ${LIVE} AND ${visibleTo('$2')} GROUP BY i.id`,
    values: [address, viewer],
  });
  return rows[0];
}

export interface LiveInbox {
  id: string;
  address: string;
  expiresAt: Date | null;
  /** null: anonymous. */
  accountId: string | null;
  isPrivate: boolean;
}

/**
 * The live inbox at an address that `viewer` may see, without its counters (a subscription needs only where
 * and until when; a delete, whose it is).
 */
export async function liveInbox(db: Queryable, address: string, viewer: string | null): Promise<LiveInbox | undefined> {
  const { rows } = await db.query<LiveInbox>({
    name: 'mail.inboxes.liveInbox',
    text: `SELECT i.id, i.address, i.expires_at AS "expiresAt", i.account_id AS "accountId", i.is_private AS "isPrivate"
      FROM inboxes i WHERE i.address = $1 AND ${LIVE} AND ${visibleTo('$2')}`,
    values: [address, viewer],
  });
  return rows[0];
}

/** Where a page of an account's inboxes ends: `created_at` in microseconds since 1970 (as text), and the id. */
export interface InboxPosition {
  micros: string;
  id: string;
}

/**
 * An account's live inboxes, newest first, from after `after` (keyset: none is repeated or skipped while
 * paging), only those of the namespace named `namespace` when given; each with its position.
 */
export async function listAccountInboxes(
  db: Queryable,
  accountId: string,
  page: { limit: number; after: InboxPosition | null; namespace: string | null },
): Promise<(InboxRow & { position: InboxPosition })[]> {
  const { rows } = await db.query<InboxRow & { micros: string }>({
    name: 'mail.inboxes.listAccountInboxes',
    text: `SELECT ${INBOX_COLUMNS}, ${INBOX_COUNTERS},
        (extract(epoch FROM i.created_at) * 1000000)::bigint::text AS micros
      FROM inboxes i
      WHERE i.account_id = $1 AND ${LIVE}
        AND ($2::bigint IS NULL OR (i.created_at, i.id) < (timestamptz 'epoch' + $2::bigint * interval '1 microsecond', $3::uuid))
        AND ($4::text IS NULL OR i.namespace_id IN (SELECT n.id FROM mail_namespaces n WHERE n.account_id = $1 AND n.name = $4))
      ORDER BY i.created_at DESC, i.id DESC LIMIT $5`,
    values: [accountId, page.after?.micros ?? null, page.after?.id ?? null, page.namespace, page.limit],
  });
  return rows.map(({ micros, ...inbox }) => ({ ...inbox, position: { micros, id: inbox.id } }));
}

/** Deletes an inbox with its messages (whatever its state); false when it is gone already. */
export async function deleteInbox(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query({ name: 'mail.inboxes.deleteInbox', text: 'DELETE FROM inboxes WHERE id = $1', values: [id] });
  return rowCount === 1;
}

export interface WebhookInbox {
  id: string;
  address: string;
  label: string | null;
  webhookUrl: string;
}

/** Those of these inboxes that have a webhook. */
export async function webhookInboxes(db: Queryable, ids: readonly string[]): Promise<Map<string, WebhookInbox>> {
  const { rows } = await db.query<WebhookInbox>({
    name: 'mail.inboxes.webhookInboxes',
    text: `SELECT id, address, label, webhook_url AS "webhookUrl" FROM inboxes WHERE id = ANY($1::uuid[]) AND webhook_url IS NOT NULL`,
    values: [ids],
  });
  return new Map(rows.map((r) => [r.id, r]));
}

/** Signing secrets of inboxes' webhooks, by inbox id (the deliveries' secret_ref); a deleted inbox has none. */
export async function webhookSecrets(db: Queryable, inboxIds: readonly string[]): Promise<Map<string, string>> {
  const { rows } = await db.query<{ id: string; secret: string }>({
    name: 'mail.inboxes.webhookSecrets',
    text: `SELECT id::text, webhook_secret AS secret FROM inboxes WHERE id::text = ANY($1::text[]) AND webhook_secret IS NOT NULL`,
    values: [inboxIds],
  });
  return new Map(rows.map((r) => [r.id, r.secret]));
}

/**
 * Deletes up to `batch` messages of expired inboxes, then (when none are left) up to `batch` expired inboxes.
 * Rows another sweeper holds are skipped, so several processes share the work. Returns the rows deleted.
 */
export async function sweepExpired(db: Queryable, batch: number): Promise<{ messages: number; inboxes: number }> {
  const messages = await db.query({
    name: 'mail.inboxes.sweepExpired.messages',
    text: `DELETE FROM messages WHERE id IN (
        SELECT m.id FROM inboxes i JOIN messages m ON m.inbox_id = i.id
        WHERE i.expires_at <= now() LIMIT $1 FOR UPDATE OF m SKIP LOCKED)`,
    values: [batch],
  });
  if ((messages.rowCount ?? 0) > 0) return { messages: messages.rowCount ?? 0, inboxes: 0 };
  const inboxes = await db.query({
    name: 'mail.inboxes.sweepExpired.inboxes',
    text: 'DELETE FROM inboxes WHERE id IN (SELECT id FROM inboxes WHERE expires_at <= now() LIMIT $1 FOR UPDATE SKIP LOCKED)',
    values: [batch],
  });
  return { messages: 0, inboxes: inboxes.rowCount ?? 0 };
}
