// All SQL of the mail service. An inbox past its `expires_at` is gone for every read and write here, whether or
// not the sweeper has deleted it yet. Queries on the request path are named (prepared once per connection).
import type { Queryable } from '../platform/db/index.ts';
import type { Link } from './extract/index.ts';

const LIVE = '(i.expires_at IS NULL OR i.expires_at > now())';

// ------------------------------------------------------------------------------------------------------ domains

export interface DomainRow {
  name: string;
  isPublic: boolean;
  tierRequired: number;
}

const DOMAIN_COLUMNS = 'name, is_public AS "isPublic", tier_required AS "tierRequired"';

/** Adds the configured domains (in order) that are not there yet; what the CLI set for them is kept. */
export async function ensureDomains(db: Queryable, names: readonly string[]): Promise<void> {
  await db.query(
    `INSERT INTO mail_domains (name) SELECT n FROM unnest($1::text[]) WITH ORDINALITY AS u(n, k) ORDER BY k
     ON CONFLICT (name) DO NOTHING`,
    [names],
  );
}

/** Adds a domain or changes its visibility and tier. */
export async function putDomain(db: Queryable, domain: DomainRow): Promise<DomainRow> {
  const { rows } = await db.query<DomainRow>(
    `INSERT INTO mail_domains (name, is_public, tier_required) VALUES ($1, $2, $3)
     ON CONFLICT (name) DO UPDATE SET is_public = excluded.is_public, tier_required = excluded.tier_required
     RETURNING ${DOMAIN_COLUMNS}`,
    [domain.name, domain.isPublic, domain.tierRequired],
  );
  return rows[0]!;
}

export async function listDomains(db: Queryable): Promise<DomainRow[]> {
  const { rows } = await db.query<DomainRow>({ name: 'mail_domains', text: `SELECT ${DOMAIN_COLUMNS} FROM mail_domains ORDER BY ordinal` });
  return rows;
}

/** The named domain, or (no name) the first one anonymous generation may use. */
export async function domainFor(db: Queryable, name: string | undefined): Promise<DomainRow | undefined> {
  const { rows } =
    name === undefined
      ? await db.query<DomainRow>({
          name: 'mail_default_domain',
          text: `SELECT ${DOMAIN_COLUMNS} FROM mail_domains WHERE is_public AND tier_required = 0 ORDER BY ordinal LIMIT 1`,
        })
      : await db.query<DomainRow>({
          name: 'mail_domain',
          text: `SELECT ${DOMAIN_COLUMNS} FROM mail_domains WHERE name = $1`,
          values: [name],
        });
  return rows[0];
}

// ------------------------------------------------------------------------------------------------------ inboxes

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

const INBOX_COLUMNS = `i.id, i.address, i.domain, i.created_at AS "createdAt", i.expires_at AS "expiresAt", i.label,
  i.webhook_url AS "webhookUrl"`;

/**
 * Creates the inbox unless a live one holds the address (then undefined). An expired inbox still holding it is
 * deleted first, with its messages: the address is free again the moment its inbox expired.
 */
export async function insertInbox(db: Queryable, inbox: NewInbox): Promise<InboxRow | undefined> {
  await db.query({
    name: 'mail_free_address',
    text: 'DELETE FROM inboxes WHERE address = $1 AND expires_at <= now()',
    values: [inbox.address],
  });
  const { rows } = await db.query<InboxRow>({
    name: 'mail_insert_inbox',
    text: `INSERT INTO inboxes AS i (id, address, domain, expires_at) VALUES ($1, $2, $3, now() + make_interval(secs => $4))
      ON CONFLICT (address) DO NOTHING
      RETURNING ${INBOX_COLUMNS}, 0 AS "messageCount", 0 AS "unreadCount"`,
    values: [inbox.id, inbox.address, inbox.domain, inbox.ttlSeconds],
  });
  return rows[0];
}

/** A live inbox with its counters, counted from its messages. */
export async function inboxByAddress(db: Queryable, address: string): Promise<InboxRow | undefined> {
  const { rows } = await db.query<InboxRow>({
    name: 'mail_inbox',
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
    name: 'mail_inbox_stats',
    text: `SELECT i.address, count(m.id)::int AS "messageCount", count(m.id) FILTER (WHERE NOT m.is_read)::int AS "unreadCount",
        count(m.otp)::int AS "otpCount", coalesce(sum(m.raw_size), 0)::bigint::float8 AS "totalBytes",
        coalesce(sum(m.attachment_count), 0)::int AS "attachmentCount", max(m.received_at) AS "lastReceivedAt"
      FROM inboxes i LEFT JOIN messages m ON m.inbox_id = i.id
      WHERE i.address = $1 AND ${LIVE} GROUP BY i.id`,
    values: [address],
  });
  return rows[0];
}

/** Deletes every message of a live inbox; false when there is no such inbox. */
export async function clearInbox(db: Queryable, address: string): Promise<boolean> {
  const { rows } = await db.query({
    name: 'mail_clear_inbox',
    text: `WITH i AS (SELECT id FROM inboxes i WHERE i.address = $1 AND ${LIVE}),
        gone AS (DELETE FROM messages WHERE inbox_id IN (SELECT id FROM i))
      SELECT 1 FROM i`,
    values: [address],
  });
  return rows.length > 0;
}

export async function markAllRead(db: Queryable, address: string): Promise<boolean> {
  const { rows } = await db.query({
    name: 'mail_mark_all_read',
    text: `WITH i AS (SELECT id FROM inboxes i WHERE i.address = $1 AND ${LIVE}),
        done AS (UPDATE messages SET is_read = true WHERE inbox_id IN (SELECT id FROM i) AND NOT is_read)
      SELECT 1 FROM i`,
    values: [address],
  });
  return rows.length > 0;
}

// ----------------------------------------------------------------------------------------------------- messages

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
    name: 'mail_list_messages_json',
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
    name: 'mail_read_message',
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

export interface ExtractionRow {
  id: string;
  subject: string;
  bodyText: string | null;
  bodyHtml: string | null;
  otp: string | null;
  otpVersion: number;
  links: Link[] | null;
}

/** What extraction looks at and found, for a message of a live inbox. */
export async function extractionOf(db: Queryable, id: string): Promise<ExtractionRow | undefined> {
  const { rows } = await db.query<ExtractionRow>({
    name: 'mail_extraction',
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
    name: 'mail_store_extraction',
    text: `UPDATE messages SET otp = $2, otp_version = $3, links = $4, link_count = jsonb_array_length($4::jsonb) WHERE id = $1`,
    values: [id, found.otp, found.otpVersion, JSON.stringify(found.links)],
  });
}

export async function rawMessage(db: Queryable, id: string): Promise<Buffer | undefined> {
  const { rows } = await db.query<{ raw: Buffer }>({
    name: 'mail_raw_message',
    text: `SELECT m.raw FROM messages m JOIN inboxes i ON i.id = m.inbox_id WHERE m.id = $1 AND ${LIVE}`,
    values: [id],
  });
  return rows[0]?.raw;
}

export async function deleteMessage(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query({
    name: 'mail_delete_message',
    text: `DELETE FROM messages m USING inboxes i WHERE m.id = $1 AND i.id = m.inbox_id AND ${LIVE}`,
    values: [id],
  });
  return rowCount === 1;
}

// --------------------------------------------------------------------------------------------------------- SMTP

export type Recipient =
  | { kind: 'foreign' }
  | { kind: 'unknown' }
  | { kind: 'inbox'; inboxId: string; expiresAt: Date | null; webhook: boolean };

/** What an RCPT TO address is to us: another domain's, an unknown (or expired) inbox of ours, or a live inbox. */
export async function recipient(db: Queryable, address: string, domain: string): Promise<Recipient> {
  const { rows } = await db.query<{ inboxId: string | null; expiresAt: Date | null; webhook: boolean }>({
    name: 'mail_recipient',
    text: `SELECT i.id AS "inboxId", i.expires_at AS "expiresAt", i.webhook_url IS NOT NULL AS webhook FROM mail_domains d
      LEFT JOIN inboxes i ON i.address = $1 AND ${LIVE} WHERE d.name = $2`,
    values: [address, domain],
  });
  const row = rows[0];
  if (!row) return { kind: 'foreign' };
  return row.inboxId ? { kind: 'inbox', inboxId: row.inboxId, expiresAt: row.expiresAt, webhook: row.webhook } : { kind: 'unknown' };
}

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
  raw: Buffer;
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
  ['raw', 'bytea'],
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
    m.raw,
  ]);
  const { rows } = await db.query<StoredMessage>({
    name: `mail_insert_messages_${messages.length}`,
    text: insertText(messages.length),
    values,
  });
  return rows.map((r) => ({ id: r.id, receivedAt: r.receivedAt }));
}

export interface StoredMessage {
  id: string;
  receivedAt: Date;
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
    name: 'mail_webhook_inboxes',
    text: `SELECT id, address, label, webhook_url AS "webhookUrl" FROM inboxes WHERE id = ANY($1::uuid[]) AND webhook_url IS NOT NULL`,
    values: [ids],
  });
  return new Map(rows.map((r) => [r.id, r]));
}

/** Signing secrets of inboxes' webhooks, by inbox id (the deliveries' secret_ref); a deleted inbox has none. */
export async function webhookSecrets(db: Queryable, inboxIds: readonly string[]): Promise<Map<string, string>> {
  const { rows } = await db.query<{ id: string; secret: string }>({
    name: 'mail_webhook_secrets',
    text: `SELECT id::text, webhook_secret AS secret FROM inboxes WHERE id::text = ANY($1::text[]) AND webhook_secret IS NOT NULL`,
    values: [inboxIds],
  });
  return new Map(rows.map((r) => [r.id, r.secret]));
}

// ----------------------------------------------------------------------------------------------------- realtime

export interface LiveInbox {
  id: string;
  address: string;
  expiresAt: Date | null;
}

/** The live inbox at an address, without its counters (a subscription needs only where and until when). */
export async function liveInbox(db: Queryable, address: string): Promise<LiveInbox | undefined> {
  const { rows } = await db.query<LiveInbox>({
    name: 'mail_live_inbox',
    text: `SELECT i.id, i.address, i.expires_at AS "expiresAt" FROM inboxes i WHERE i.address = $1 AND ${LIVE}`,
    values: [address],
  });
  return rows[0];
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
    name: 'mail_message_events',
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
  const [name, condition, value] =
    'since' in from
      ? ['mail_message_events_since', 'received_at >= $2', from.since]
      : from.inclusive
        ? ['mail_message_events_from', 'id >= $2::uuid', from.id]
        : ['mail_message_events_after', 'id > $2::uuid', from.id];
  const { rows } = await db.query<MessageEvent>({
    name,
    text: `SELECT ${EVENT_COLUMNS} FROM messages WHERE inbox_id = ANY($1::uuid[]) AND ${condition} ORDER BY id LIMIT $3`,
    values: [inboxIds, value, limit],
  });
  return rows;
}

// ------------------------------------------------------------------------------------------------------ sweeper

/**
 * Deletes up to `batch` messages of expired inboxes, then (when none are left) up to `batch` expired inboxes.
 * Rows another sweeper holds are skipped, so several processes share the work. Returns the rows deleted.
 */
export async function sweepExpired(db: Queryable, batch: number): Promise<{ messages: number; inboxes: number }> {
  const messages = await db.query(
    `DELETE FROM messages WHERE id IN (
       SELECT m.id FROM inboxes i JOIN messages m ON m.inbox_id = i.id
       WHERE i.expires_at <= now() LIMIT $1 FOR UPDATE OF m SKIP LOCKED)`,
    [batch],
  );
  if ((messages.rowCount ?? 0) > 0) return { messages: messages.rowCount ?? 0, inboxes: 0 };
  const inboxes = await db.query(
    `DELETE FROM inboxes WHERE id IN (SELECT id FROM inboxes WHERE expires_at <= now() LIMIT $1 FOR UPDATE SKIP LOCKED)`,
    [batch],
  );
  return { messages: 0, inboxes: inboxes.rowCount ?? 0 };
}

// ------------------------------------------------------------------------------------------- accounts, API keys

/** Records an account and the tier of a JWT it used, unless a token issued later already set its tier. */
export async function recordAccount(db: Queryable, account: { id: string; tier: number; issuedAt: Date | null }): Promise<void> {
  // Presenting the same token again (same iat, same tier) writes nothing.
  await db.query({
    name: 'mail_record_account',
    text: `INSERT INTO accounts AS a (id, tier, tier_issued_at) VALUES ($1, $2, coalesce($3, now()))
      ON CONFLICT (id) DO UPDATE SET tier = excluded.tier, tier_issued_at = excluded.tier_issued_at, updated_at = now()
      WHERE excluded.tier_issued_at > a.tier_issued_at OR (excluded.tier_issued_at = a.tier_issued_at AND excluded.tier <> a.tier)`,
    values: [account.id, account.tier, account.issuedAt],
  });
}

export interface ApiKeyRow {
  id: string;
  accountId: string;
  keyPrefix: string;
  label: string | null;
  isActive: boolean;
  lastUsedAt: Date | null;
  createdAt: Date;
  expiresAt: Date;
}

const API_KEY_COLUMNS = `id, account_id AS "accountId", key_prefix AS "keyPrefix", label,
  (revoked_at IS NULL AND expires_at > now()) AS "isActive", last_used_at AS "lastUsedAt", created_at AS "createdAt",
  expires_at AS "expiresAt"`;

export interface NewApiKeyRow {
  id: string;
  accountId: string;
  keyPrefix: string;
  keyHash: Buffer;
  label: string | null;
  expiresInDays: number;
}

/** Stores a key; undefined when its prefix is taken (about 1 in 2.8e12 per key: the caller draws another). */
export async function insertApiKey(db: Queryable, key: NewApiKeyRow): Promise<ApiKeyRow | undefined> {
  const { rows } = await db.query<ApiKeyRow>({
    name: 'mail_insert_api_key',
    text: `INSERT INTO mail_api_keys (id, account_id, key_prefix, key_hash, label, expires_at)
      VALUES ($1, $2, $3, $4, $5, now() + make_interval(days => $6))
      ON CONFLICT (key_prefix) DO NOTHING
      RETURNING ${API_KEY_COLUMNS}`,
    values: [key.id, key.accountId, key.keyPrefix, key.keyHash, key.label, key.expiresInDays],
  });
  return rows[0];
}

/** The key a request authenticates with, and its account's latest known tier. */
export interface ActiveApiKey {
  id: string;
  accountId: string;
  tier: number;
  keyHash: Buffer;
  lastUsedAt: Date | null;
}

/** The active (not revoked, not expired) key with this prefix; read on every request, so revocation holds at once. */
export async function activeApiKey(db: Queryable, keyPrefix: string): Promise<ActiveApiKey | undefined> {
  const { rows } = await db.query<ActiveApiKey>({
    name: 'mail_active_api_key',
    text: `SELECT k.id, k.account_id AS "accountId", a.tier, k.key_hash AS "keyHash", k.last_used_at AS "lastUsedAt"
      FROM mail_api_keys k JOIN accounts a ON a.id = k.account_id
      WHERE k.key_prefix = $1 AND k.revoked_at IS NULL AND k.expires_at > now()`,
    values: [keyPrefix],
  });
  return rows[0];
}

/** Records use at most once a minute per key, whichever process sees the request. */
export async function touchApiKey(db: Queryable, id: string): Promise<void> {
  await db.query({
    name: 'mail_touch_api_key',
    text: `UPDATE mail_api_keys SET last_used_at = now()
      WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
    values: [id],
  });
}

/** Every key of the account, revoked and expired ones too, oldest first. */
export async function listApiKeys(db: Queryable, accountId: string): Promise<ApiKeyRow[]> {
  const { rows } = await db.query<ApiKeyRow>({
    name: 'mail_list_api_keys',
    text: `SELECT ${API_KEY_COLUMNS} FROM mail_api_keys WHERE account_id = $1 ORDER BY created_at, id`,
    values: [accountId],
  });
  return rows;
}

/** Revokes a key of the account (again: a no-op); false when the account has no such key. */
export async function revokeApiKey(db: Queryable, accountId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query({
    name: 'mail_revoke_api_key',
    text: `UPDATE mail_api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 AND account_id = $2`,
    values: [id, accountId],
  });
  return rowCount === 1;
}

export interface NewAccountInbox extends NewInbox {
  accountId: string;
  label: string | null;
  webhookUrl: string | null;
  /** Kept as is: webhooks are signed with it. */
  webhookSecret: string | null;
}

/** A programmatic inbox: as `insertInbox`, with its account, label and webhook. */
export async function insertAccountInbox(db: Queryable, inbox: NewAccountInbox): Promise<InboxRow | undefined> {
  await db.query({
    name: 'mail_free_address',
    text: 'DELETE FROM inboxes WHERE address = $1 AND expires_at <= now()',
    values: [inbox.address],
  });
  const { rows } = await db.query<InboxRow>({
    name: 'mail_insert_account_inbox',
    text: `INSERT INTO inboxes AS i (id, address, domain, expires_at, account_id, label, webhook_url, webhook_secret)
      VALUES ($1, $2, $3, now() + make_interval(secs => $4), $5, $6, $7, $8)
      ON CONFLICT (address) DO NOTHING
      RETURNING ${INBOX_COLUMNS}, 0 AS "messageCount", 0 AS "unreadCount"`,
    values: [inbox.id, inbox.address, inbox.domain, inbox.ttlSeconds, inbox.accountId, inbox.label, inbox.webhookUrl, inbox.webhookSecret],
  });
  return rows[0];
}
