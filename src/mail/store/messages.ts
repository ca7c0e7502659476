// Messages as the API and the live streams read them: the list, one message (read marks it read), its raw
// bytes, what extraction found, deletes, and the events subscribers are sent. They are written by
// messages-insert.ts. What the API runs for a request takes its `viewer`: a private inbox is seen by its owner only.
import type { Queryable } from '../../platform/db/index.ts';
import type { Link, StoredExtraction } from '../extract/index.ts';
import { LIVE, visibleTo } from './live.ts';

export interface MessageSummary {
  id: string;
  fromAddress: string;
  subject: string;
  receivedAt: Date;
  isRead: boolean;
  hasOtp: boolean;
  rawSize: number;
  linkCount: number;
  attachmentCount: number;
  /** What followed `+` in the address it was sent to; null: none. */
  tag: string | null;
}

export interface Attachment {
  filename: string | null;
  size: number;
  content_type: string;
}

export interface MessageRow extends MessageSummary {
  toAddress: string;
  bodyText: string | null;
  bodyHtml: string | null;
  headers: Record<string, string>;
  attachments: Attachment[];
  otp: string | null;
  links: Link[] | null;
  /** The versions of the detectors that found `otp` and `links`. */
  otpVersion: number;
  linksVersion: number;
}

const SUMMARY_COLUMNS = `m.id, m.from_address AS "fromAddress", m.subject, m.received_at AS "receivedAt", m.is_read AS "isRead",
  m.otp IS NOT NULL AS "hasOtp", m.raw_size AS "rawSize", m.link_count AS "linkCount", m.attachment_count AS "attachmentCount",
  m.tag`;

/** A page of the list: the API's JSON array, and which of its messages' links an older extractor found. */
export interface MessageListPage {
  json: string;
  stale: string[];
}

/**
 * A live inbox's newest messages as the API's JSON array, built by PostgreSQL (the list is the most polled
 * route: rendering it there saves parsing rows and dates in JS); undefined when there is no such inbox. `stale`
 * names the messages whose links were not kept or were found by an extractor older than `linksVersion`.
 */
export async function listMessagesJson(
  db: Queryable,
  address: string,
  limit: number,
  viewer: string | null,
  linksVersion: number,
): Promise<MessageListPage | undefined> {
  const { rows } = await db.query<MessageListPage>({
    name: 'mail.messages.listMessagesJson',
    text: `SELECT coalesce(p.json, '[]') AS json, coalesce(p.stale, '{}') AS stale
      FROM inboxes i LEFT JOIN LATERAL (
        SELECT json_agg(json_build_object(
            'id', m.id, 'from_address', m.from_address, 'subject', m.subject,
            'received_at', to_char(m.received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
            'is_read', m.is_read, 'has_otp', m.otp IS NOT NULL, 'raw_size', m.raw_size, 'link_count', m.link_count,
            'attachment_count', m.attachment_count, 'tag', m.tag) ORDER BY m.received_at DESC, m.id DESC)::text AS json,
          array_agg(m.id::text) FILTER (WHERE m.links IS NULL OR m.links_version < $4) AS stale
        FROM (SELECT * FROM messages m WHERE m.inbox_id = i.id ORDER BY m.received_at DESC, m.id DESC LIMIT $2) m) p ON true
      WHERE i.address = $1 AND ${LIVE} AND ${visibleTo('$3')}`,
    values: [address, limit, viewer, linksVersion],
  });
  return rows[0];
}

/** A whole message `m` as a MessageRow (read here, and by waits in messages-wait.ts). */
export const MESSAGE_ROW_COLUMNS = `${SUMMARY_COLUMNS}, m.to_address AS "toAddress", m.body_text AS "bodyText", m.body_html AS "bodyHtml",
  m.headers, m.attachments, m.otp, m.links, m.otp_version AS "otpVersion", m.links_version AS "linksVersion"`;

/** A message of a live inbox, marked read by this read (the row says is_read as it is now: true). */
export async function readMessage(db: Queryable, id: string, viewer: string | null): Promise<MessageRow | undefined> {
  const { rows } = await db.query<MessageRow>({
    name: 'mail.messages.readMessage',
    text: `WITH m AS (
        SELECT ${MESSAGE_ROW_COLUMNS} FROM messages m JOIN inboxes i ON i.id = m.inbox_id WHERE m.id = $1 AND ${LIVE} AND ${visibleTo('$2')}),
      marked AS (UPDATE messages SET is_read = true WHERE id IN (SELECT id FROM m WHERE NOT "isRead"))
      SELECT * FROM m`,
    values: [id, viewer],
  });
  const row = rows[0];
  return row && { ...row, isRead: true };
}

export async function rawMessage(db: Queryable, id: string, viewer: string | null): Promise<Buffer | undefined> {
  const { rows } = await db.query<{ raw: Buffer }>({
    name: 'mail.messages.rawMessage',
    text: `SELECT m.raw FROM messages m JOIN inboxes i ON i.id = m.inbox_id WHERE m.id = $1 AND ${LIVE} AND ${visibleTo('$2')}`,
    values: [id, viewer],
  });
  return rows[0]?.raw;
}

export interface ExtractionRow extends StoredExtraction {
  id: string;
}

/** What extraction looks at and found, for a message of a live inbox `viewer` may see. */
export async function extractionOf(db: Queryable, id: string, viewer: string | null): Promise<ExtractionRow | undefined> {
  const { rows } = await db.query<ExtractionRow>({
    name: 'mail.messages.extractionOf',
    text: `SELECT m.id, m.from_address AS "fromAddress", m.subject, m.body_text AS "bodyText", m.body_html AS "bodyHtml", m.otp, m.otp_version AS "otpVersion", m.links,
        m.links_version AS "linksVersion"
      FROM messages m JOIN inboxes i ON i.id = m.inbox_id WHERE m.id = $1 AND ${LIVE} AND ${visibleTo('$2')}`,
    values: [id, viewer],
  });
  return rows[0];
}

/** Stores a later finding: a newer detector's code, links found by a newer extractor. */
export async function storeExtraction(
  db: Queryable,
  id: string,
  found: { otp: string | null; otpVersion: number; links: Link[]; linksVersion: number },
): Promise<void> {
  await db.query({
    name: 'mail.messages.storeExtraction',
    text: `UPDATE messages SET otp = $2, otp_version = $3, links = $4, link_count = jsonb_array_length($4::jsonb), links_version = $5
      WHERE id = $1`,
    values: [id, found.otp, found.otpVersion, JSON.stringify(found.links), found.linksVersion],
  });
}

export async function deleteMessage(db: Queryable, id: string, viewer: string | null): Promise<boolean> {
  const { rowCount } = await db.query({
    name: 'mail.messages.deleteMessage',
    text: `DELETE FROM messages m USING inboxes i WHERE m.id = $1 AND i.id = m.inbox_id AND ${LIVE} AND ${visibleTo('$2')}`,
    values: [id, viewer],
  });
  return rowCount === 1;
}

/** Deletes every message of a live inbox; false when there is no such inbox. */
export async function clearInbox(db: Queryable, address: string, viewer: string | null): Promise<boolean> {
  const { rows } = await db.query({
    name: 'mail.messages.clearInbox',
    text: `WITH i AS (SELECT id FROM inboxes i WHERE i.address = $1 AND ${LIVE} AND ${visibleTo('$2')}),
        gone AS (DELETE FROM messages WHERE inbox_id IN (SELECT id FROM i))
      SELECT 1 FROM i`,
    values: [address, viewer],
  });
  return rows.length > 0;
}

export async function markAllRead(db: Queryable, address: string, viewer: string | null): Promise<boolean> {
  const { rows } = await db.query({
    name: 'mail.messages.markAllRead',
    text: `WITH i AS (SELECT id FROM inboxes i WHERE i.address = $1 AND ${LIVE} AND ${visibleTo('$2')}),
        done AS (UPDATE messages SET is_read = true WHERE inbox_id IN (SELECT id FROM i) AND NOT is_read)
      SELECT 1 FROM i`,
    values: [address, viewer],
  });
  return rows.length > 0;
}

/** What a `message` event says of a message. */
export interface MessageEvent {
  id: string;
  inboxId: string;
  from: string;
  subject: string;
  hasOtp: boolean;
  tag: string | null;
}

const EVENT_COLUMNS = `id, inbox_id AS "inboxId", from_address AS "from", subject, otp IS NOT NULL AS "hasOtp", tag`;

export async function messageEvents(db: Queryable, ids: readonly string[]): Promise<MessageEvent[]> {
  const { rows } = await db.query<MessageEvent>({
    name: 'mail.messages.messageEvents',
    text: `SELECT ${EVENT_COLUMNS} FROM messages WHERE id = ANY($1::uuid[]) ORDER BY id`,
    values: [ids],
  });
  return rows;
}

/**
 * Messages of inboxes from a message id on (ids are UUIDv7: ordered by time), or stored since a time, oldest
 * first: what a subscriber missed.
 */
export async function messageEventsAfter(
  db: Queryable,
  inboxIds: readonly string[],
  from: { id: string; inclusive: boolean } | { since: Date },
  limit: number,
): Promise<MessageEvent[]> {
  const [variant, condition, value] =
    'since' in from
      ? ['since', 'received_at >= $2', from.since]
      : from.inclusive
        ? ['from', 'id >= $2::uuid', from.id]
        : ['after', 'id > $2::uuid', from.id];
  const { rows } = await db.query<MessageEvent>({
    name: `mail.messages.messageEventsAfter.${variant}`,
    text: `SELECT ${EVENT_COLUMNS} FROM messages WHERE inbox_id = ANY($1::uuid[]) AND ${condition} ORDER BY id LIMIT $3`,
    values: [inboxIds, value, limit],
  });
  return rows;
}
