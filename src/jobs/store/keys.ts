// A tenant's API keys: only the token's SHA-256 is stored, and active keys are found by it.
import type { Queryable } from '../../platform/db/index.ts';
import type { Scope } from '../keys.ts';

export interface KeyRow {
  id: string;
  tenantId: string;
  name: string;
  scopes: Scope[];
  tokenPrefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** The key a request authenticates with: only active keys are found. */
export interface ActiveKey {
  id: string;
  tenantId: string;
  scopes: Scope[];
  tokenHash: Buffer;
  lastUsedAt: Date | null;
}

const KEY_COLUMNS = `id, tenant_id AS "tenantId", name, scopes, token_prefix AS "tokenPrefix", created_at AS "createdAt",
  last_used_at AS "lastUsedAt", revoked_at AS "revokedAt"`;

interface NewKey {
  id: string;
  tenantId: string;
  name: string;
  scopes: readonly Scope[];
  tokenHash: Buffer;
  tokenPrefix: string;
}

export async function insertKey(db: Queryable, key: NewKey): Promise<KeyRow> {
  const { rows } = await db.query<KeyRow>(
    `INSERT INTO api_keys (id, tenant_id, name, scopes, token_hash, token_prefix) VALUES ($1, $2, $3, $4, $5, $6)
     RETURNING ${KEY_COLUMNS}`,
    [key.id, key.tenantId, key.name, key.scopes, key.tokenHash, key.tokenPrefix],
  );
  return rows[0]!;
}

export async function activeKeyByHash(db: Queryable, hash: Buffer): Promise<ActiveKey | undefined> {
  const { rows } = await db.query<ActiveKey>({
    name: 'jobs.keys.activeKeyByHash',
    text: `SELECT id, tenant_id AS "tenantId", scopes, token_hash AS "tokenHash", last_used_at AS "lastUsedAt"
      FROM api_keys WHERE token_hash = $1 AND revoked_at IS NULL`,
    values: [hash],
  });
  return rows[0];
}

/** Records use at most once a minute per key, so authentication does not write on every request. */
export async function touchKey(db: Queryable, id: string): Promise<void> {
  await db.query({
    name: 'jobs.keys.touchKey',
    text: `UPDATE api_keys SET last_used_at = now()
      WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
    values: [id],
  });
}

/** Keys of a tenant, or only one of them (`onlyId`), oldest first. */
export async function listKeys(db: Queryable, tenantId: string, onlyId?: string): Promise<KeyRow[]> {
  const { rows } = await db.query<KeyRow>(
    `SELECT ${KEY_COLUMNS} FROM api_keys WHERE tenant_id = $1 AND ($2::uuid IS NULL OR id = $2) ORDER BY created_at, id`,
    [tenantId, onlyId ?? null],
  );
  return rows;
}

type RevokeOutcome = 'revoked' | 'already_revoked' | 'not_found' | 'last_admin';

/** Revokes a key of the tenant, unless it is the tenant's last active `keys:admin` key. Run in a transaction. */
export async function revokeKey(tx: Queryable, tenantId: string, keyId: string): Promise<RevokeOutcome> {
  // Serialises revocations within a tenant: two admins revoking each other at once cannot both succeed.
  await tx.query('SELECT 1 FROM tenants WHERE id = $1 FOR UPDATE', [tenantId]);
  const { rows } = await tx.query<{ scopes: Scope[]; revoked: boolean }>(
    'SELECT scopes, revoked_at IS NOT NULL AS revoked FROM api_keys WHERE id = $1 AND tenant_id = $2',
    [keyId, tenantId],
  );
  const key = rows[0];
  if (!key) return 'not_found';
  if (key.revoked) return 'already_revoked';
  if (key.scopes.includes('keys:admin')) {
    const others = await tx.query(
      `SELECT 1 FROM api_keys WHERE tenant_id = $1 AND id <> $2 AND revoked_at IS NULL AND 'keys:admin' = ANY (scopes) LIMIT 1`,
      [tenantId, keyId],
    );
    if (others.rowCount === 0) return 'last_admin';
  }
  await tx.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [keyId]);
  return 'revoked';
}
