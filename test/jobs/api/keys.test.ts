// /v1/keys: creation (token shown once, stored as a hash), listing by role, revocation and its last-admin rule.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { makeKey } from '../../../src/jobs/index.ts';
import { problemOf } from '../../helpers/http.ts';
import { client, tokenFor, useJobsApi } from '../../helpers/jobs.ts';

const t = useJobsApi();

interface Key {
  id: string;
  name: string;
  scopes: string[];
  token_prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

describe('POST /v1/keys', () => {
  it('returns a dm_jobs_ token once; only its SHA-256 is stored; the token works at once', async () => {
    const admin = client(t.api.url, await tokenFor(t.db, 'keys-a'));
    const res = await admin('/v1/keys', { body: { name: 'ci', scopes: ['jobs:read', 'jobs:create'] } });
    expect(res.status).toBe(201);
    const made = (await res.json()) as { id: string; token: string; name: string; scopes: string[]; created_at: string };
    expect(Object.keys(made).sort()).toEqual(['created_at', 'id', 'name', 'scopes', 'token']);
    expect(made.token).toMatch(/^dm_jobs_[0-9A-Za-z]{43}$/);
    expect(made).toMatchObject({ name: 'ci', scopes: ['jobs:read', 'jobs:create'] });

    const { rows } = await t.db.pool.query('SELECT * FROM api_keys WHERE id = $1', [made.id]);
    expect(rows[0].token_hash).toEqual(createHash('sha256').update(made.token).digest());
    const dump = JSON.stringify((await t.db.pool.query('SELECT * FROM api_keys')).rows);
    expect(dump).not.toContain(made.token.slice(8));
    expect(rows[0].token_prefix).toBe(made.token.slice(0, 12));

    expect((await client(t.api.url, made.token)('/v1/jobs')).status).toBe(200);
    const listed = ((await (await admin('/v1/keys')).json()) as { keys: Key[] }).keys.find((k) => k.id === made.id)!;
    expect(listed).not.toHaveProperty('token');
  });

  it('tokens are distinct and carry at least 256 bits (43 base62 characters)', async () => {
    const tokens = new Set<string>();
    for (let i = 0; i < 50; i++) tokens.add((await makeKey(t.db.pool, 'keys-entropy', 'k', ['jobs:read'])).token);
    expect(tokens.size).toBe(50);
    const chars = new Set([...tokens].flatMap((t) => [...t.slice(8)]));
    expect(chars.size).toBeGreaterThan(55);
  });
});

describe('GET /v1/keys', () => {
  it('keys:admin sees every key of its tenant; keys:read alone sees only its own row', async () => {
    const adminToken = await tokenFor(t.db, 'keys-b', ['keys:admin', 'keys:read'], 'admin');
    const reader = await makeKey(t.db.pool, 'keys-b', 'reader', ['keys:read']);
    await makeKey(t.db.pool, 'keys-b', 'worker', ['jobs:create']);
    const all = ((await (await client(t.api.url, adminToken)('/v1/keys')).json()) as { keys: Key[] }).keys;
    expect(all.map((k) => k.name)).toEqual(['admin', 'reader', 'worker']);
    const own = ((await (await client(t.api.url, reader.token)('/v1/keys')).json()) as { keys: Key[] }).keys;
    expect(own).toHaveLength(1);
    expect(own[0]).toMatchObject({ id: reader.id, name: 'reader', scopes: ['keys:read'], revoked_at: null });
    expect(own[0]!.token_prefix).toBe(reader.token.slice(0, 12));
  });

  it('last_used_at is recorded on use, and not rewritten on every request', async () => {
    const key = await makeKey(t.db.pool, 'keys-c', 'used', ['keys:read', 'jobs:read']);
    const call = client(t.api.url, key.token);
    const lastUsed = async () =>
      (await t.db.pool.query('SELECT last_used_at FROM api_keys WHERE id = $1', [key.id])).rows[0].last_used_at as Date | null;
    expect(await lastUsed()).toBeNull();
    await (await call('/v1/jobs')).arrayBuffer();
    await expect.poll(lastUsed).not.toBeNull();
    const first = (await lastUsed())!.getTime();
    for (let i = 0; i < 5; i++) await (await call('/v1/jobs')).arrayBuffer();
    // Give any (wrong) write time to land before reading again.
    await t.db.pool.query('SELECT pg_sleep(0.2)');
    expect((await lastUsed())!.getTime()).toBe(first);
    const shown = ((await (await call('/v1/keys')).json()) as { keys: Key[] }).keys[0]!;
    expect(new Date(shown.last_used_at!).getTime()).toBe(first);

    // Once the last use is over a minute old, the next request records it again.
    await t.db.pool.query(`UPDATE api_keys SET last_used_at = now() - interval '2 minutes' WHERE id = $1`, [key.id]);
    const stale = (await lastUsed())!.getTime();
    await (await call('/v1/jobs')).arrayBuffer();
    await expect.poll(async () => (await lastUsed())!.getTime()).toBeGreaterThan(stale);
  });
});

describe('DELETE /v1/keys/{id}', () => {
  it('revokes (204), again is 204, and the revoked key is refused at once', async () => {
    const admin = client(t.api.url, await tokenFor(t.db, 'keys-d'));
    const victim = await makeKey(t.db.pool, 'keys-d', 'victim', ['jobs:read']);
    expect((await client(t.api.url, victim.token)('/v1/jobs')).status).toBe(200);
    const res = await admin(`/v1/keys/${victim.id}`, { method: 'DELETE' });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect((await client(t.api.url, victim.token)('/v1/jobs')).status).toBe(401);
    expect((await admin(`/v1/keys/${victim.id}`, { method: 'DELETE' })).status).toBe(204);
    const listed = ((await (await admin('/v1/keys')).json()) as { keys: Key[] }).keys.find((k) => k.id === victim.id)!;
    expect(listed.revoked_at).not.toBeNull();
  });

  it("refuses to revoke the tenant's last active keys:admin key (409), even its own", async () => {
    const only = await makeKey(t.db.pool, 'keys-e', 'only-admin', ['keys:admin', 'keys:read']);
    const admin = client(t.api.url, only.token);
    const res = await admin(`/v1/keys/${only.id}`, { method: 'DELETE' });
    expect(res.status).toBe(409);
    expect((await problemOf(res)).code).toBe('conflict');
    // With a second admin, the first may go (it revokes itself and is then refused).
    const second = await makeKey(t.db.pool, 'keys-e', 'second-admin', ['keys:admin']);
    expect((await admin(`/v1/keys/${only.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await admin('/v1/keys')).status).toBe(401);
    expect((await client(t.api.url, second.token)(`/v1/keys/${second.id}`, { method: 'DELETE' })).status).toBe(409);
  });

  it('two admins revoking each other at the same moment leave one admin standing', async () => {
    for (let round = 0; round < 5; round++) {
      const tenant = `keys-race-${round}`;
      const a = await makeKey(t.db.pool, tenant, 'a', ['keys:admin']);
      const b = await makeKey(t.db.pool, tenant, 'b', ['keys:admin']);
      const results = await Promise.all([
        client(t.api.url, a.token)(`/v1/keys/${b.id}`, { method: 'DELETE' }),
        client(t.api.url, b.token)(`/v1/keys/${a.id}`, { method: 'DELETE' }),
      ]);
      expect(results.map((r) => r.status).sort()).toContain(204);
      const { rows } = await t.db.pool.query(
        `SELECT count(*)::int AS n FROM api_keys k JOIN tenants t ON t.id = k.tenant_id WHERE t.name = $1 AND revoked_at IS NULL`,
        [tenant],
      );
      expect(rows[0].n).toBe(1);
    }
  });

  it('an unknown key id is 404', async () => {
    const admin = client(t.api.url, await tokenFor(t.db, 'keys-f'));
    const res = await admin('/v1/keys/01234567-89ab-7def-8123-456789abcdef', { method: 'DELETE' });
    expect(res.status).toBe(404);
    expect((await problemOf(res)).code).toBe('not_found');
  });
});
