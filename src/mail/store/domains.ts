// The domains inboxes are made on, in the order they were added.
import type { Queryable } from '../../platform/db/index.ts';

export interface DomainRow {
  name: string;
  isPublic: boolean;
  tierRequired: number;
}

const DOMAIN_COLUMNS = 'name, is_public AS "isPublic", tier_required AS "tierRequired"';

/** Adds the configured domains (in order) that are not there yet; what the CLI set for them is kept. */
export async function ensureDomains(db: Queryable, names: readonly string[]): Promise<void> {
  await db.query({
    name: 'mail.domains.ensureDomains',
    text: `INSERT INTO mail_domains (name) SELECT n FROM unnest($1::text[]) WITH ORDINALITY AS u(n, k) ORDER BY k
      ON CONFLICT (name) DO NOTHING`,
    values: [names],
  });
}

/** Adds a domain or changes its visibility and tier. */
export async function putDomain(db: Queryable, domain: DomainRow): Promise<DomainRow> {
  const { rows } = await db.query<DomainRow>({
    name: 'mail.domains.putDomain',
    text: `INSERT INTO mail_domains (name, is_public, tier_required) VALUES ($1, $2, $3)
      ON CONFLICT (name) DO UPDATE SET is_public = excluded.is_public, tier_required = excluded.tier_required
      RETURNING ${DOMAIN_COLUMNS}`,
    values: [domain.name, domain.isPublic, domain.tierRequired],
  });
  return rows[0]!;
}

export async function listDomains(db: Queryable): Promise<DomainRow[]> {
  const { rows } = await db.query<DomainRow>({
    name: 'mail.domains.listDomains',
    text: `SELECT ${DOMAIN_COLUMNS} FROM mail_domains ORDER BY ordinal`,
  });
  return rows;
}

/** The named domain, or (no name) the first one anonymous generation may use. */
export async function domainFor(db: Queryable, name: string | undefined): Promise<DomainRow | undefined> {
  const { rows } =
    name === undefined
      ? await db.query<DomainRow>({
          name: 'mail.domains.domainFor.default',
          text: `SELECT ${DOMAIN_COLUMNS} FROM mail_domains WHERE is_public AND tier_required = 0 ORDER BY ordinal LIMIT 1`,
        })
      : await db.query<DomainRow>({
          name: 'mail.domains.domainFor.named',
          text: `SELECT ${DOMAIN_COLUMNS} FROM mail_domains WHERE name = $1`,
          values: [name],
        });
  return rows[0];
}
