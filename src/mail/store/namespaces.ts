// Namespaces: one account's claim on `<name>.*@<domain>`, whose inboxes are made on first mail
// (recipients.ts) with the namespace's settings. Deleting one deletes its inboxes and their messages (cascade).
import type { Queryable } from '../../platform/db/index.ts';
import { LIVE } from './live.ts';

export interface NamespaceRow {
  id: string;
  name: string;
  domain: string;
  isPrivate: boolean;
  /** null: its inboxes are persistent. */
  inboxTtlSeconds: number | null;
  label: string | null;
  webhookUrl: string | null;
  /** Its live inboxes. */
  inboxCount: number;
  createdAt: Date;
}

export interface NewNamespace {
  id: string;
  accountId: string;
  domain: string;
  name: string;
  isPrivate: boolean;
  inboxTtlSeconds: number | null;
  label: string | null;
  webhookUrl: string | null;
  /** Kept as is: the webhooks of its inboxes are signed with it. */
  webhookSecret: string | null;
}

const NAMESPACE_COLUMNS = `n.id, n.name, n.domain, n.is_private AS "isPrivate", n.inbox_ttl_seconds AS "inboxTtlSeconds", n.label,
  n.webhook_url AS "webhookUrl", n.created_at AS "createdAt"`;

/** Live inboxes of a namespace `n`. */
const INBOX_COUNT = `(SELECT count(*)::int FROM inboxes i WHERE i.namespace_id = n.id AND ${LIVE}) AS "inboxCount"`;

/**
 * Claims a namespace, unless the name is taken on the domain (`taken`) or live inboxes of anyone but the
 * account (anonymous ones included) already have addresses `<name>.*@<domain>` (`in_use`): those would
 * otherwise fall into it.
 */
export async function insertNamespace(
  db: Queryable,
  ns: NewNamespace,
): Promise<{ namespace: NamespaceRow } | { refused: 'taken' | 'in_use' }> {
  const { rows } = await db.query<Partial<NamespaceRow> & { taken: boolean; inUse: boolean }>({
    name: 'mail.namespaces.insertNamespace',
    text: `WITH clash AS (
        SELECT 1 FROM inboxes i
        WHERE i.domain = $3::text AND i.address LIKE $4::text || '.%' AND ${LIVE} AND i.account_id IS DISTINCT FROM $2::text LIMIT 1),
      n AS (
        INSERT INTO mail_namespaces (id, account_id, domain, name, is_private, inbox_ttl_seconds, label, webhook_url, webhook_secret)
        SELECT $1::uuid, $2, $3, $4, $5::boolean, $6::integer, $7::text, $8::text, $9::text WHERE NOT EXISTS (SELECT 1 FROM clash)
        ON CONFLICT (domain, name) DO NOTHING
        RETURNING *)
      SELECT EXISTS (SELECT 1 FROM mail_namespaces WHERE domain = $3 AND name = $4) AS taken,
        EXISTS (SELECT 1 FROM clash) AS "inUse", made.*
      FROM (SELECT 1) one LEFT JOIN (SELECT ${NAMESPACE_COLUMNS}, 0 AS "inboxCount" FROM n) made ON true`,
    values: [ns.id, ns.accountId, ns.domain, ns.name, ns.isPrivate, ns.inboxTtlSeconds, ns.label, ns.webhookUrl, ns.webhookSecret],
  });
  const { taken, inUse, ...row } = rows[0]!;
  if (row.id) return { namespace: row as NamespaceRow };
  return { refused: taken ? 'taken' : inUse ? 'in_use' : 'taken' };
}

/** The account's namespaces, oldest first, with their live inbox counts. */
export async function listNamespaces(db: Queryable, accountId: string): Promise<NamespaceRow[]> {
  const { rows } = await db.query<NamespaceRow>({
    name: 'mail.namespaces.listNamespaces',
    text: `SELECT ${NAMESPACE_COLUMNS}, ${INBOX_COUNT} FROM mail_namespaces n WHERE n.account_id = $1 ORDER BY n.created_at, n.id`,
    values: [accountId],
  });
  return rows;
}

/** Deletes a namespace of the account with its inboxes and their messages; false when the account has no such one. */
export async function deleteNamespace(db: Queryable, accountId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query({
    name: 'mail.namespaces.deleteNamespace',
    text: 'DELETE FROM mail_namespaces WHERE id = $1 AND account_id = $2',
    values: [id, accountId],
  });
  return rowCount === 1;
}

/** A claimed namespace with what an inbox made in it takes from it. */
export interface NamespaceClaim {
  id: string;
  name: string;
  accountId: string;
  isPrivate: boolean;
  inboxTtlSeconds: number | null;
  label: string | null;
  webhookUrl: string | null;
  webhookSecret: string | null;
}

/** The namespace `name` on `domain`, if claimed. */
export async function namespaceClaim(db: Queryable, domain: string, name: string): Promise<NamespaceClaim | undefined> {
  const { rows } = await db.query<NamespaceClaim>({
    name: 'mail.namespaces.namespaceClaim',
    text: `SELECT n.id, n.name, n.account_id AS "accountId", n.is_private AS "isPrivate", n.inbox_ttl_seconds AS "inboxTtlSeconds",
        n.label, n.webhook_url AS "webhookUrl", n.webhook_secret AS "webhookSecret"
      FROM mail_namespaces n WHERE n.domain = $1 AND n.name = $2`,
    values: [domain, name],
  });
  return rows[0];
}
