// Operator commands of the jobs service (`domainkit jobs …`): they bootstrap what the API cannot, such as a
// tenant's first admin key.
import { v7 as uuidv7 } from 'uuid';
import { withTransaction, type Pool } from '../platform/db/index.ts';
import { newToken, SCOPES, type Scope } from './keys.ts';
import { ensureTenant, insertKey } from './store/index.ts';

export interface MadeKey {
  id: string;
  token: string;
  tenant: string;
  scopes: Scope[];
}

/** Parses `--scopes a,b`; throws a message naming the unknown ones. */
export function parseScopes(value: string): Scope[] {
  const scopes = [
    ...new Set(
      value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (scopes.length === 0) throw new Error(`--scopes needs at least one of: ${SCOPES.join(', ')}`);
  if (unknown.length) throw new Error(`unknown scope ${unknown.join(', ')}; known: ${SCOPES.join(', ')}`);
  return scopes as Scope[];
}

/** Makes a key in the named tenant, creating the tenant if it is new. */
export async function makeKey(pool: Pool, tenant: string, name: string, scopes: Scope[]): Promise<MadeKey> {
  const tenantName = tenant.trim();
  if (tenantName === '' || tenantName.length > 100) throw new Error('--tenant takes a name of 1 to 100 characters');
  if (name.trim() === '' || name.length > 100) throw new Error('--name takes 1 to 100 characters');
  const { token, hash, prefix } = newToken();
  return withTransaction(pool, async (tx) => {
    const tenantId = await ensureTenant(tx, uuidv7(), tenantName);
    const key = await insertKey(tx, { id: uuidv7(), tenantId, name, scopes, tokenHash: hash, tokenPrefix: prefix });
    return { id: key.id, token, tenant: tenantName, scopes };
  });
}
