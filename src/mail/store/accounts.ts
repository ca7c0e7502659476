// Accounts (known from the JWTs they use) and their API keys. A key is stored as its hash and prefix only.
import type { Queryable } from '../../platform/db/index.ts';

/** Records an account and the tier of a JWT it used, unless a token issued later already set its tier. */
export async function recordAccount(db: Queryable, account: { id: string; tier: number; issuedAt: Date | null }): Promise<void> {
  // Presenting the same token again (same iat, same tier) writes nothing.
  await db.query({
    name: 'mail.accounts.recordAccount',
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
    name: 'mail.accounts.insertApiKey',
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
    name: 'mail.accounts.activeApiKey',
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
    name: 'mail.accounts.touchApiKey',
    text: `UPDATE mail_api_keys SET last_used_at = now()
      WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
    values: [id],
  });
}

/** Every key of the account, revoked and expired ones too, oldest first. */
export async function listApiKeys(db: Queryable, accountId: string): Promise<ApiKeyRow[]> {
  const { rows } = await db.query<ApiKeyRow>({
    name: 'mail.accounts.listApiKeys',
    text: `SELECT ${API_KEY_COLUMNS} FROM mail_api_keys WHERE account_id = $1 ORDER BY created_at, id`,
    values: [accountId],
  });
  return rows;
}

/** Revokes a key of the account (again: a no-op); false when the account has no such key. */
export async function revokeApiKey(db: Queryable, accountId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query({
    name: 'mail.accounts.revokeApiKey',
    text: 'UPDATE mail_api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 AND account_id = $2',
    values: [id, accountId],
  });
  return rowCount === 1;
}
