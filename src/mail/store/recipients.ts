// What an RCPT TO address names: a live inbox exactly, the inbox of `name+tag@domain` with its tag, or the
// inbox a claimed namespace makes for it on first mail (docs/api/README.md, "Tags" and "Namespaces").
import type { Queryable } from '../../platform/db/index.ts';
import { freeAddress } from './inboxes.ts';
import { LIVE } from './live.ts';

export type Recipient =
  | { kind: 'foreign' }
  | { kind: 'unknown' }
  | {
      kind: 'inbox';
      inboxId: string;
      expiresAt: Date | null;
      webhook: boolean;
      /** The tag the address carries for this inbox; null when it named the inbox exactly (or with `+` alone). */
      tag: string | null;
    };

/** An RCPT TO address as addresses.ts `recipientParts` splits it. */
export interface RecipientQuery {
  address: string;
  domain: string;
  base: string | null;
  tag: string | null;
  namespace: string | null;
}

interface RecipientLookup {
  domain: string | null;
  inboxId: string | null;
  expiresAt: Date | null;
  webhook: boolean;
  exact: boolean;
  namespaceId: string | null;
}

/**
 * What an RCPT TO address is to us: another domain's; a live inbox at exactly that address; else the live
 * inbox `name@domain` of `name+tag@domain`, with the tag; else, when the address is in a claimed namespace,
 * the inbox made for it now (with `newId`), owned by the namespace's account and with its settings; else
 * unknown. Private inboxes receive like any other.
 */
export async function recipient(db: Queryable, query: RecipientQuery, newId: string): Promise<Recipient> {
  const { rows } = await db.query<RecipientLookup>({
    name: 'mail.recipients.recipient',
    text: `SELECT d.name AS domain, i.id AS "inboxId", i.expires_at AS "expiresAt", i.webhook_url IS NOT NULL AS webhook,
        coalesce(i.address = $1, false) AS exact, n.id AS "namespaceId"
      FROM mail_domains d
      LEFT JOIN LATERAL (SELECT i.* FROM inboxes i WHERE i.address IN ($1, $3::text) AND ${LIVE} ORDER BY i.address = $1 DESC LIMIT 1) i
        ON true
      LEFT JOIN mail_namespaces n ON n.domain = d.name AND n.name = $4::text
      WHERE d.name = $2`,
    values: [query.address, query.domain, query.base, query.namespace],
  });
  const row = rows[0];
  if (!row) return { kind: 'foreign' };
  const tag = query.base === null ? null : query.tag;
  if (row.inboxId)
    return { kind: 'inbox', inboxId: row.inboxId, expiresAt: row.expiresAt, webhook: row.webhook, tag: row.exact ? null : tag };
  if (!row.namespaceId) return { kind: 'unknown' };
  const made = await namespaceInbox(db, newId, row.namespaceId, query.base ?? query.address);
  return made ? { kind: 'inbox', ...made, tag } : { kind: 'unknown' };
}

type Reached = { inboxId: string; expiresAt: Date | null; webhook: boolean };

/**
 * The inbox of a namespace at an address, made on first mail with the namespace's owner and settings. Two
 * receivers making it at once make one: the second finds the first's.
 */
async function namespaceInbox(db: Queryable, id: string, namespaceId: string, address: string): Promise<Reached | undefined> {
  await freeAddress(db, address);
  const made = await db.query<Reached>({
    name: 'mail.recipients.namespaceInbox.insert',
    text: `INSERT INTO inboxes (id, address, domain, expires_at, account_id, label, webhook_url, webhook_secret, is_private, namespace_id)
      SELECT $1, $2, n.domain, now() + make_interval(secs => n.inbox_ttl_seconds), n.account_id, n.label, n.webhook_url,
        n.webhook_secret, n.is_private, n.id
      FROM mail_namespaces n WHERE n.id = $3
      ON CONFLICT (address) DO NOTHING
      RETURNING id AS "inboxId", expires_at AS "expiresAt", webhook_url IS NOT NULL AS webhook`,
    values: [id, address, namespaceId],
  });
  if (made.rows[0]) return made.rows[0];
  const { rows } = await db.query<Reached>({
    name: 'mail.recipients.namespaceInbox.existing',
    text: `SELECT i.id AS "inboxId", i.expires_at AS "expiresAt", i.webhook_url IS NOT NULL AS webhook
      FROM inboxes i WHERE i.address = $1 AND ${LIVE}`,
    values: [address],
  });
  return rows[0];
}
