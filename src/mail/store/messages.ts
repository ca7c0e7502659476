// Messages as the API and the live streams read them: the list, one message (read marks it read), its raw
// bytes, what extraction found, deletes, and the events subscribers are sent. They are written by
// messages-insert.ts.
import type { Queryable } from '../../platform/db/index.ts';
import type { Link, StoredExtraction } from '../extract/index.ts';
import { LIVE } from './live.ts';

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
}

const SUMMARY_COLUMNS = `m.id, m.from_address AS "fromAddress", m.subject, m.received_at AS "receivedAt", m.is_read AS "isRead",
  m.otp IS NOT NULL AS "hasOtp", m.raw_size AS "rawSize", m.link_count AS "linkCount", m.attachment_count AS "attachmentCount"`;

/**
 * A live inbox's newest messages as the API's JSON array, built by PostgreSQL (the list is the most polled
 * route: rendering it there saves parsing rows and dates in JS); undefined when there is no such inbox.
 */
export async function listMessagesJson(db: Queryable, address: string, limit: number): Promise<string | undefined> {
  const { rows } = await db.query<{ json: string }>({
    name: 'mail.messages.listMessagesJson',
    text: `SELECT coalesce((SELECT json_agg(json_build_object(
          'id', m.id, 'from_address', m.from_address, 'subject', m.subject,
          'received_at', to_char(m.received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          'is_read', m.is_read, 'has_otp', m.otp IS NOT NULL, 'raw_size', m.raw_size, 'link_count', m.link_count,
          'attachment_count', m.attachment_count) ORDER BY m.received_at DESC, m.id DESC)
        FROM (SELECT * FROM messages m WHERE m.inbox_id = i.id ORDER BY m.received_at DESC, m.id DESC LIMIT $2) m), '[]')::text AS json
      FROM inboxes i WHERE i.address = $1 AND ${LIVE}`,
    values: [address, limit],
  });
  return rows[0]?.json;
}

/** A message of a live inbox, marked read by this read (the row says is_read as it is now: true). */
export async function readMessage(db: Queryable, id: string): Promise<MessageRow | undefined> {
  const { rows } = await db.query<MessageRow>({
    name: 'mail.messages.readMessage',
    text: `WITH m AS (
        SELECT ${SUMMARY_COLUMNS}, m.to_address AS "toAddress", m.body_text AS "bodyText", m.body_html AS "bodyHtml",
          m.headers, m.attachments, m.otp, m.links
        FROM messages m JOIN inboxes i ON i.id = m.inbox_id WHERE m.id = $1 AND ${LIVE}),
      marked AS (UPDATE messages SET is_read = true WHERE id IN (SELECT id FROM m WHERE NOT "isRead"))
      SELECT * FROM m`,
    values: [id],
  });
  const row = rows[0];
  return row && { ...row, isRead: true };
}

export async function rawMessage(db: Queryable, id: string): Promise<Buffer | undefined> {
  const { rows } = await db.query<{ raw: Buffer }>({
    name: 'mail.messages.rawMessage',
    text: `SELECT m.raw FROM messages m JOIN inboxes i ON i.id = m.inbox_id WHERE m.id = $1 AND ${LIVE}`,
    values: [id],
  });
  return rows[0]?.raw;
}

export interface ExtractionRow extends StoredExtraction {
  id: string;
}

/** What extraction looks at and found, for a message of a live inbox. */
export async function extractionOf(db: Queryable, id: string): Promise<ExtractionRow | undefined> {
  const { rows } = await db.query<ExtractionRow>({
    name: 'mail.messages.extractionOf',
    text: `SELECT m.id, m.subject, m.body_text AS "bodyText", m.body_html AS "bodyHtml", m.otp, m.otp_version AS "otpVersion", m.links
      FROM messages m JOIN inboxes i ON i.id = m.inbox_id WHERE m.id = $1 AND ${LIVE}`,
    values: [id],
  });
  return rows[0];
}

/** Stores a later finding: a newer detector's code, or links of a message stored before links were kept. */
export async function storeExtraction(
  db: Queryable,
  id: string,
  found: { otp: string | null; otpVersion: number; links: Link[] },
): Promise<void> {
  await db.query({
    name: 'mail.messages.storeExtraction',
    text: 'UPDATE messages SET otp = $2, otp_version = $3, links = $4, link_count = jsonb_array_length($4::jsonb) WHERE id = $1',
    values: [id, found.otp, found.otpVersion, JSON.stringify(found.links)],
  });
}

export async function deleteMessage(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query({
    name: 'mail.messages.deleteMessage',
    text: `DELETE FROM messages m USING inboxes i WHERE m.id = $1 AND i.id = m.inbox_id AND ${LIVE}`,
    values: [id],
  });
  return rowCount === 1;
}

/** Deletes every message of a live inbox; false when there is no such inbox. */
export async function clearInbox(db: Queryable, address: string): Promise<boolean> {
  const { rows } = await db.query({
    name: 'mail.messages.clearInbox',
    text: `WITH i AS (SELECT id FROM inboxes i WHERE i.address = $1 AND ${LIVE}),
        gone AS (DELETE FROM messages WHERE inbox_id IN (SELECT id FROM i))
      SELECT 1 FROM i`,
    values: [address],
  });
  return rows.length > 0;
}

export async function markAllRead(db: Queryable, address: string): Promise<boolean> {
  const { rows } = await db.query({
    name: 'mail.messages.markAllRead',
    text: `WITH i AS (SELECT id FROM inboxes i WHERE i.address = $1 AND ${LIVE}),
        done AS (UPDATE messages SET is_read = true WHERE inbox_id IN (SELECT id FROM i) AND NOT is_read)
      SELECT 1 FROM i`,
    values: [address],
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
}

const EVENT_COLUMNS = `id, inbox_id AS "inboxId", from_address AS "from", subject, otp IS NOT NULL AS "hasOtp"`;

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
