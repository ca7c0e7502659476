// Received messages written by the SMTP receiver: many in one statement, each one announced to the live
// streams of every process at its commit.
import type { Queryable } from '../../platform/db/index.ts';
import type { Link } from '../extract/index.ts';
import type { Attachment } from './messages.ts';

export interface NewMessage {
  id: string;
  inboxId: string;
  envelopeFrom: string;
  toAddress: string;
  fromAddress: string;
  subject: string;
  bodyText: string | null;
  bodyHtml: string | null;
  /** Lower-cased names; a repeated header's values joined with `\n`. */
  headers: Record<string, string>;
  attachments: Attachment[];
  /** Why the bytes could not be read (fully); null when they could. */
  parseError: string | null;
  otp: string | null;
  otpVersion: number;
  links: Link[];
  linksVersion: number;
  raw: Buffer;
  /** What followed `+` in the address it was sent to (lower-cased); null: none. */
  tag: string | null;
}

export interface StoredMessage {
  id: string;
  receivedAt: Date;
}

const MESSAGE_COLUMNS = [
  ['id', 'uuid'],
  ['inbox_id', 'uuid'],
  ['envelope_from', 'text'],
  ['to_address', 'text'],
  ['from_address', 'text'],
  ['subject', 'text'],
  ['body_text', 'text'],
  ['body_html', 'text'],
  ['headers', 'jsonb'],
  ['attachments', 'jsonb'],
  ['parse_error', 'text'],
  ['otp', 'text'],
  ['otp_version', 'smallint'],
  ['links', 'jsonb'],
  ['links_version', 'smallint'],
  ['raw', 'bytea'],
  ['tag', 'text'],
] as const;

/** The NOTIFY channel of stored messages; payload `<inbox id> <message id>` pairs joined by commas. */
export const MESSAGE_CHANNEL = 'mail_message';
const NOTIFY_BATCH = 100;

/** One statement text per batch size, prepared once per connection. */
const insertTexts = new Map<number, string>();
function insertText(rows: number): string {
  let text = insertTexts.get(rows);
  if (!text) {
    const width = MESSAGE_COLUMNS.length;
    const values = Array.from(
      { length: rows },
      (_, r) => `(${MESSAGE_COLUMNS.map(([, type], c) => `$${r * width + c + 1}::${type}`).join(', ')})`,
    );
    const names = MESSAGE_COLUMNS.map(([name]) => name).join(', ');
    text = `INSERT INTO messages (${names}, attachment_count, link_count, raw_size)
      SELECT ${MESSAGE_COLUMNS.map(([name]) => `v.${name}`).join(', ')}, jsonb_array_length(v.attachments), jsonb_array_length(v.links), length(v.raw)
      FROM (VALUES ${values.join(', ')}) AS v(${names})
      JOIN inboxes i ON i.id = v.inbox_id
      RETURNING messages.id, messages.inbox_id, messages.received_at`;
    // Subscribers in any process hear of each stored message at commit (realtime/hub.ts): one notification
    // per 100 messages (a payload stays under PostgreSQL's 8,000 bytes), not one per message, which cost
    // every listening backend a wake-up per message.
    text = `WITH stored AS (${text}),
      notified AS (
        SELECT pg_notify('${MESSAGE_CHANNEL}', string_agg(inbox_id || ' ' || id, ','))
          FROM (SELECT inbox_id, id, (row_number() OVER () - 1) / ${NOTIFY_BATCH} AS part FROM stored) numbered GROUP BY part)
      SELECT id, received_at AS "receivedAt", (SELECT count(*) FROM notified) AS notified FROM stored`;
    insertTexts.set(rows, text);
  }
  return text;
}

/**
 * Stores messages in one statement; the raw bytes go as binary parameters (an array literal would send them as
 * hex text, twice the size). A message whose inbox was deleted since RCPT (expired and swept) is not stored:
 * that inbox and everything in it is gone anyway. Returns the ids stored.
 */
export async function insertMessages(db: Queryable, messages: readonly NewMessage[]): Promise<StoredMessage[]> {
  const values = messages.flatMap((m) => [
    m.id,
    m.inboxId,
    m.envelopeFrom,
    m.toAddress,
    m.fromAddress,
    m.subject,
    m.bodyText,
    m.bodyHtml,
    JSON.stringify(m.headers),
    JSON.stringify(m.attachments),
    m.parseError,
    m.otp,
    m.otpVersion,
    JSON.stringify(m.links),
    m.linksVersion,
    m.raw,
    m.tag,
  ]);
  const { rows } = await db.query<StoredMessage>({
    name: `mail.messages.insertMessages.${messages.length}`,
    text: insertText(messages.length),
    values,
  });
  return rows.map((r) => ({ id: r.id, receivedAt: r.receivedAt }));
}
