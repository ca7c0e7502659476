// Tenants: who owns keys and jobs. A tenant is named, and made by the CLI with its first key.
import type { Queryable } from '../../platform/db/index.ts';

/** The tenant's id, creating the tenant when the name is new. */
export async function ensureTenant(db: Queryable, id: string, name: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `WITH made AS (INSERT INTO tenants (id, name) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING id)
     SELECT id FROM made UNION ALL SELECT id FROM tenants WHERE name = $2 LIMIT 1`,
    [id, name],
  );
  return rows[0]!.id;
}

/** The id of the tenant of that name, or undefined when there is none. */
export async function tenantIdByName(db: Queryable, name: string): Promise<string | undefined> {
  const { rows } = await db.query<{ id: string }>({
    name: 'jobs.tenants.tenantIdByName',
    text: 'SELECT id FROM tenants WHERE name = $1',
    values: [name],
  });
  return rows[0]?.id;
}
