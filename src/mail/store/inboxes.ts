// Inboxes: made anonymously or by an account, looked up by address (the API, RCPT, live streams), their
// webhooks, and the sweep of expired ones.
import type { Queryable } from '../../platform/db/index.ts';
import { LIVE } from './live.ts';

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
}

const INBOX_COLUMNS = `i.id, i.address, i.domain, i.created_at AS "createdAt", i.expires_at AS "expiresAt", i.label,
  i.webhook_url AS "webhookUrl"`;

/** An expired inbox still holding the address is deleted, with its messages: the address is free the moment it expired. */
async function freeAddress(db: Queryable, address: string): Promise<void> {
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

/** A programmatic inbox: as `insertInbox`, with its account, label and webhook. */
export async function insertAccountInbox(db: Queryable, inbox: NewAccountInbox): Promise<InboxRow | undefined> {
  await freeAddress(db, inbox.address);
  const { rows } = await db.query<InboxRow>({
    name: 'mail.inboxes.insertAccountInbox',
    text: `INSERT INTO inboxes AS i (id, address, domain, expires_at, account_id, label, webhook_url, webhook_secret)
      VALUES ($1, $2, $3, now() + make_interval(secs => $4), $5, $6, $7, $8)
      ON CONFLICT (address) DO NOTHING
      RETURNING ${INBOX_COLUMNS}, 0 AS "messageCount", 0 AS "unreadCount"`,
    values: [inbox.id, inbox.address, inbox.domain, inbox.ttlSeconds, inbox.accountId, inbox.label, inbox.webhookUrl, inbox.webhookSecret],
  });
  return rows[0];
}

/** A live inbox with its counters, counted from its messages. */
export async function inboxByAddress(db: Queryable, address: string): Promise<InboxRow | undefined> {
  const { rows } = await db.query<InboxRow>({
    name: 'mail.inboxes.inboxByAddress',
    text: `SELECT ${INBOX_COLUMNS},
        (SELECT count(*)::int FROM messages m WHERE m.inbox_id = i.id) AS "messageCount",
        (SELECT count(*)::int FROM messages m WHERE m.inbox_id = i.id AND NOT m.is_read) AS "unreadCount"
      FROM inboxes i WHERE i.address = $1 AND ${LIVE}`,
    values: [address],
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

export async function inboxStats(db: Queryable, address: string): Promise<InboxStats | undefined> {
  const { rows } = await db.query<InboxStats>({
    name: 'mail.inboxes.inboxStats',
    text: `SELECT i.address, count(m.id)::int AS "messageCount", count(m.id) FILTER (WHERE NOT m.is_read)::int AS "unreadCount",
        count(m.otp)::int AS "otpCount", coalesce(sum(m.raw_size), 0)::bigint::float8 AS "totalBytes",
        coalesce(sum(m.attachment_count), 0)::int AS "attachmentCount", max(m.received_at) AS "lastReceivedAt"
      FROM inboxes i LEFT JOIN messages m ON m.inbox_id = i.id
      WHERE i.address = $1 AND ${LIVE} GROUP BY i.id`,
    values: [address],
  });
  return rows[0];
}

export interface LiveInbox {
  id: string;
  address: string;
  expiresAt: Date | null;
}

/** The live inbox at an address, without its counters (a subscription needs only where and until when). */
export async function liveInbox(db: Queryable, address: string): Promise<LiveInbox | undefined> {
  const { rows } = await db.query<LiveInbox>({
    name: 'mail.inboxes.liveInbox',
    text: `SELECT i.id, i.address, i.expires_at AS "expiresAt" FROM inboxes i WHERE i.address = $1 AND ${LIVE}`,
    values: [address],
  });
  return rows[0];
}

export type Recipient =
  | { kind: 'foreign' }
  | { kind: 'unknown' }
  | { kind: 'inbox'; inboxId: string; expiresAt: Date | null; webhook: boolean };

/** What an RCPT TO address is to us: another domain's, an unknown (or expired) inbox of ours, or a live inbox. */
export async function recipient(db: Queryable, address: string, domain: string): Promise<Recipient> {
  const { rows } = await db.query<{ inboxId: string | null; expiresAt: Date | null; webhook: boolean }>({
    name: 'mail.inboxes.recipient',
    text: `SELECT i.id AS "inboxId", i.expires_at AS "expiresAt", i.webhook_url IS NOT NULL AS webhook FROM mail_domains d
      LEFT JOIN inboxes i ON i.address = $1 AND ${LIVE} WHERE d.name = $2`,
    values: [address, domain],
  });
  const row = rows[0];
  if (!row) return { kind: 'foreign' };
  return row.inboxId ? { kind: 'inbox', inboxId: row.inboxId, expiresAt: row.expiresAt, webhook: row.webhook } : { kind: 'unknown' };
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
