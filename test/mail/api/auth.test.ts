// Accounts, tiers and API keys of the mail API (docs/api/README.md, "Credentials"): JWTs verified with a
// secret or a JWKS URL, keys stored as hashes and checked in PostgreSQL on every request, never logged.
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKey, bearer, capturingLogger, JWT_SECRET, jwtFor, keyOf, tokenOf, type CreatedKey } from '../../helpers/accounts.ts';
import { problemOf } from '../../helpers/http.ts';
import { startMail, useMail, type Mail } from '../../helpers/mail.ts';

const captured = capturingLogger();
const t = useMail({ env: { MAIL_JWT_SECRET: JWT_SECRET }, log: captured.log });

interface ListedKey {
  id: string;
  key_prefix: string;
  label: string | null;
  is_active: boolean;
  last_used_at: string | null;
  created_at: string;
  expires_at: string;
}

const createKey = async (headers: Record<string, string>, body: unknown = {}) => t.mail.call('/api/v1/api-keys', { body, headers });
const listKeys = async (headers: Record<string, string>) => t.mail.call('/api/v1/api-keys', { headers });
const revoke = (id: string, headers: Record<string, string>) => t.mail.call(`/api/v1/api-keys/${id}`, { method: 'DELETE', headers });

async function expectUnauthorized(res: Response, detail?: RegExp): Promise<void> {
  const problem = await problemOf(res);
  expect(res.status).toBe(401);
  expect(problem.code).toBe('unauthorized');
  expect(res.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
  if (detail) expect(problem.detail).toMatch(detail);
}

describe('JWT tiers', () => {
  it.each([
    [0, 403, 200],
    [2, 403, 200],
    [3, 201, 200],
    [5, 201, 200],
  ])('tier %i: POST /api/v1/api-keys %i, GET %i', async (tier, create, list) => {
    const headers = bearer(await tokenOf(`tiers-${tier}`, tier));
    const made = await createKey(headers);
    expect(made.status).toBe(create);
    if (create === 403) {
      const problem = await problemOf(made);
      expect(problem).toMatchObject({ code: 'tier_required', required_tier: 3 });
      expect(problem.detail).toContain(`tier ${tier}`);
    }
    expect((await listKeys(headers)).status).toBe(list);
  });

  it('every Developer route wants credentials: 401 with WWW-Authenticate: Bearer, before the body is looked at', async () => {
    for (const [path, method, body] of [
      ['/api/v1/api-keys', 'POST', {}],
      ['/api/v1/api-keys', 'POST', 'not json'],
      ['/api/v1/api-keys', 'GET', undefined],
      ['/api/v1/api-keys/00000000-0000-0000-0000-000000000000', 'DELETE', undefined],
      ['/api/v1/inboxes', 'POST', { domain: 'inbox.test' }],
    ] as const) {
      await expectUnauthorized(await t.mail.call(path, { method, ...(body === undefined ? {} : { body }) }), /required/);
    }
  });

  it('an account is recorded with the tier of its newest token', async () => {
    const now = Math.floor(Date.now() / 1000);
    const tierOf = async () => (await t.db.pool.query(`SELECT tier FROM accounts WHERE id = 'recorded'`)).rows[0]?.tier;
    await listKeys(bearer(await tokenOf('recorded', 3, { iat: now - 100 })));
    expect(await tierOf()).toBe(3);
    await listKeys(bearer(await tokenOf('recorded', 5, { iat: now - 50 })));
    expect(await tierOf()).toBe(5);
    // A token issued before the newest one does not undo its tier.
    await listKeys(bearer(await tokenOf('recorded', 1, { iat: now - 200 })));
    expect(await tierOf()).toBe(5);
  });
});

describe('refused JWTs', () => {
  const now = () => Math.floor(Date.now() / 1000);

  it.each<[string, () => Promise<string>, RegExp]>([
    ['signed with another secret', () => jwtFor({ sub: 'a', tier: 3 }, { key: new TextEncoder().encode('x'.repeat(40)) }), /signature/],
    ['expired', () => jwtFor({ sub: 'a', tier: 3, iat: now() - 7200, exp: now() - 3600 }), /expired/],
    ['without exp', () => jwtFor({ sub: 'a', tier: 3, exp: undefined }), /exp/],
    ['without sub', () => jwtFor({ tier: 3 }), /sub/],
    ['with an empty sub', () => jwtFor({ sub: '', tier: 3 }), /sub/],
    ['with a numeric sub', () => jwtFor({ sub: 42 as unknown as string, tier: 3 }), /sub/],
    ['with NUL in sub', () => jwtFor({ sub: 'a\u0000b', tier: 3 }), /sub/],
    ['with a tier beyond the column', () => jwtFor({ sub: 'a', tier: 2 ** 31 }), /tier/],
    ['without tier', () => jwtFor({ sub: 'a' }), /tier/],
    ['with a negative tier', () => jwtFor({ sub: 'a', tier: -1 }), /tier/],
    ['with a fractional tier', () => jwtFor({ sub: 'a', tier: 3.5 }), /tier/],
    ['with tier as a string', () => jwtFor({ sub: 'a', tier: '3' }), /tier/],
    ['HS512 with the right secret (wrong alg)', () => jwtFor({ sub: 'a', tier: 3 }, { alg: 'HS512' }), /algorithm/],
    ['unsigned (alg none)', async () => new UnsecuredJWT({ sub: 'a', tier: 3 }).setExpirationTime('1h').encode(), /algorithm|well-formed/],
    ['not a JWT at all', async () => 'not-a-jwt', /well-formed/],
  ])('a token %s is 401', async (_what, make, detail) => {
    await expectUnauthorized(await listKeys(bearer(await make())), detail);
  });

  it('an RS256 token is refused by an HS256 service', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    await expectUnauthorized(await listKeys(bearer(await jwtFor({ sub: 'a', tier: 3 }, { key: privateKey, alg: 'RS256' }))), /algorithm/);
  });

  it('a malformed Authorization header, both credentials at once, or an API key as Bearer are 401', async () => {
    await expectUnauthorized(await listKeys({ authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }), /Bearer <JWT>/);
    const key = await keyOf(t.mail, 'both');
    await expectUnauthorized(await listKeys({ ...bearer(await tokenOf('both', 3)), ...apiKey(key.plaintext) }), /not both/);
    await expectUnauthorized(await listKeys(bearer(key.plaintext)), /X-API-Key/);
  });

  it('with neither MAIL_JWT_SECRET nor MAIL_JWKS_URL set, every JWT is refused (and keys still work)', async () => {
    const key = await keyOf(t.mail, 'no-jwt');
    const bare = await startMail(t.db);
    try {
      const res = await bare.call('/api/v1/api-keys', { headers: bearer(await tokenOf('no-jwt', 3)) });
      await expectUnauthorized(res, /neither MAIL_JWT_SECRET nor MAIL_JWKS_URL/);
      expect((await bare.call('/api/v1/api-keys', { headers: apiKey(key.plaintext) })).status).toBe(200);
    } finally {
      await bare.close();
    }
  });
});

/** Asserts an expiry `days` after some moment between `before` and `after` (the database's clock is this machine's). */
function expectExpiry(expiresAt: string, days: number, before: number, after: number): void {
  const from = Date.parse(expiresAt) - days * 86_400_000;
  // A millisecond either way: the database keeps microseconds, the API shows milliseconds.
  expect(from).toBeGreaterThanOrEqual(before - 1);
  expect(from).toBeLessThanOrEqual(after + 1);
}

describe('API keys', () => {
  it('POST returns the plaintext once, tm_<key_prefix>_<48 hex>; only its SHA-256 is stored', async () => {
    const token = await tokenOf('maker', 3);
    const before = Date.now();
    const res = await createKey(bearer(token), { label: 'ci runner', expires_in_days: 30 });
    const after = Date.now();
    expect(res.status).toBe(201);
    const key = (await res.json()) as CreatedKey;
    expect(Object.keys(key).sort()).toEqual(['expires_at', 'id', 'key_prefix', 'label', 'plaintext']);
    expect(key.plaintext).toMatch(/^tm_[a-z0-9]{8}_[0-9a-f]{48}$/);
    expect(key.plaintext.split('_')[1]).toBe(key.key_prefix);
    expect(key.label).toBe('ci runner');
    expectExpiry(key.expires_at, 30, before, after);

    const { rows } = await t.db.pool.query('SELECT * FROM mail_api_keys WHERE id = $1', [key.id]);
    expect(rows).toHaveLength(1);
    expect(rows[0].key_hash).toEqual(createHash('sha256').update(key.plaintext).digest());
    const secretPart = key.plaintext.split('_')[2]!;
    for (const [column, value] of Object.entries(rows[0] as Record<string, unknown>)) {
      const text = Buffer.isBuffer(value) ? `${value.toString('hex')} ${value.toString('latin1')}` : JSON.stringify(value);
      expect(text, column).not.toContain(secretPart);
      expect(text, column).not.toContain(secretPart.slice(0, 16));
    }
  });

  it('defaults: no body at all is 90 days without a label; keys are distinct', async () => {
    const token = await tokenOf('defaults', 3);
    const before = Date.now();
    const made: CreatedKey[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await t.mail.call('/api/v1/api-keys', { method: 'POST', headers: bearer(token) });
      expect(res.status).toBe(201);
      made.push((await res.json()) as CreatedKey);
    }
    expect(made[0]!.label).toBeNull();
    expectExpiry(made[0]!.expires_at, 90, before, Date.now());
    expect(new Set(made.map((k) => k.plaintext)).size).toBe(5);
    expect(new Set(made.map((k) => k.key_prefix)).size).toBe(5);
  });

  it.each([
    ['expires_in_days 0', { expires_in_days: 0 }, '/expires_in_days'],
    ['expires_in_days 366', { expires_in_days: 366 }, '/expires_in_days'],
    ['expires_in_days "30"', { expires_in_days: '30' }, '/expires_in_days'],
    ['expires_in_days 1.5', { expires_in_days: 1.5 }, '/expires_in_days'],
    ['a label over 200 characters', { label: 'x'.repeat(201) }, '/label'],
    ['a label with NUL', { label: 'a\u0000b' }, '/label'],
    ['an unknown field', { scopes: ['all'] }, '/scopes'],
  ])('%s is 400', async (_what, body, path) => {
    const res = await createKey(bearer(await tokenOf('bad-bodies', 3)), body);
    const problem = await problemOf(res);
    expect(res.status).toBe(400);
    expect(problem.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
  });

  it('expires_in_days 1 and 365 are accepted', async () => {
    for (const days of [1, 365]) {
      const token = await tokenOf('bounds', 3);
      const before = Date.now();
      const res = await createKey(bearer(token), { expires_in_days: days });
      const after = Date.now();
      expect(res.status).toBe(201);
      const key = (await res.json()) as CreatedKey;
      expectExpiry(key.expires_at, days, before, after);
    }
  });

  it("GET lists the account's keys as a bare array, without plaintext or hash", async () => {
    const token = await tokenOf('lister', 3);
    const a = await keyOf(t.mail, 'lister', { label: 'a' });
    const b = await keyOf(t.mail, 'lister', { label: 'b' });
    const res = await listKeys(bearer(token));
    expect(res.status).toBe(200);
    const text = await res.text();
    const keys = JSON.parse(text) as ListedKey[];
    expect(Array.isArray(keys)).toBe(true);
    expect(keys.map((k) => k.id)).toEqual([a.id, b.id]);
    expect(Object.keys(keys[0]!).sort()).toEqual(['created_at', 'expires_at', 'id', 'is_active', 'key_prefix', 'label', 'last_used_at']);
    expect(keys[0]).toMatchObject({ key_prefix: a.key_prefix, label: 'a', is_active: true, last_used_at: null, expires_at: a.expires_at });
    for (const key of [a, b]) expect(text).not.toContain(key.plaintext.split('_')[2]);
    expect(text).not.toContain(createHash('sha256').update(a.plaintext).digest('hex'));
  });

  it('a key works as X-API-Key, with its account tier; it can make keys and inboxes', async () => {
    const key = await keyOf(t.mail, 'user');
    const list = await listKeys(apiKey(key.plaintext));
    expect(list.status).toBe(200);
    expect(((await list.json()) as ListedKey[]).map((k) => k.id)).toEqual([key.id]);
    expect((await createKey(apiKey(key.plaintext), { label: 'made by a key' })).status).toBe(201);
    const inbox = await t.mail.call('/api/v1/inboxes', { body: { domain: 'inbox.test' }, headers: apiKey(key.plaintext) });
    expect(inbox.status).toBe(201);
  });

  it("a key acts with its account's latest known tier", async () => {
    const key = await keyOf(t.mail, 'downgraded');
    expect((await createKey(apiKey(key.plaintext))).status).toBe(201);
    // A newer token says the account is now tier 1: its keys lose the Developer routes, but still list.
    await listKeys(bearer(await tokenOf('downgraded', 1, { iat: Math.floor(Date.now() / 1000) + 1 })));
    const refused = await createKey(apiKey(key.plaintext));
    expect(refused.status).toBe(403);
    expect((await problemOf(refused)).code).toBe('tier_required');
    expect((await listKeys(apiKey(key.plaintext))).status).toBe(200);
  });

  it('last_used_at is recorded on use, at most once a minute', async () => {
    const key = await keyOf(t.mail, 'toucher');
    const lastUsed = async () =>
      (await t.db.pool.query('SELECT last_used_at FROM mail_api_keys WHERE id = $1', [key.id])).rows[0].last_used_at as Date | null;
    expect(await lastUsed()).toBeNull();
    await (await listKeys(apiKey(key.plaintext))).arrayBuffer();
    await expect.poll(lastUsed).not.toBeNull();
    const first = (await lastUsed())!.getTime();
    for (let i = 0; i < 3; i++) await (await listKeys(apiKey(key.plaintext))).arrayBuffer();
    await t.db.pool.query('SELECT pg_sleep(0.2)');
    expect((await lastUsed())!.getTime()).toBe(first);
    await t.db.pool.query(`UPDATE mail_api_keys SET last_used_at = now() - interval '2 minutes' WHERE id = $1`, [key.id]);
    const stale = (await lastUsed())!.getTime();
    await (await listKeys(apiKey(key.plaintext))).arrayBuffer();
    await expect.poll(async () => (await lastUsed())!.getTime()).toBeGreaterThan(stale);
  });

  it('DELETE revokes at once: 204, then the key is 401 and listed inactive; again is 204', async () => {
    const token = await tokenOf('revoker', 3);
    const key = await keyOf(t.mail, 'revoker');
    expect((await listKeys(apiKey(key.plaintext))).status).toBe(200);
    const res = await revoke(key.id, bearer(token));
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    await expectUnauthorized(await listKeys(apiKey(key.plaintext)), /not valid, has expired or has been revoked/);
    const listed = ((await (await listKeys(bearer(token))).json()) as ListedKey[]).find((k) => k.id === key.id)!;
    expect(listed.is_active).toBe(false);
    expect((await revoke(key.id, bearer(token))).status).toBe(204);
  });

  it('a key can revoke itself', async () => {
    const key = await keyOf(t.mail, 'self-revoker');
    expect((await revoke(key.id, apiKey(key.plaintext))).status).toBe(204);
    await expectUnauthorized(await listKeys(apiKey(key.plaintext)));
  });

  it('an expired key is 401 and listed inactive', async () => {
    const key = await keyOf(t.mail, 'expiring', { expires_in_days: 1 });
    await t.db.pool.query(`UPDATE mail_api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [key.id]);
    await expectUnauthorized(await listKeys(apiKey(key.plaintext)));
    const listed = (await (await listKeys(bearer(await tokenOf('expiring', 3)))).json()) as ListedKey[];
    expect(listed[0]).toMatchObject({ id: key.id, is_active: false });
  });

  it('a key with a known prefix and a wrong secret, or a malformed one, is 401', async () => {
    const key = await keyOf(t.mail, 'guessed');
    const last = key.plaintext.at(-1) === '0' ? '1' : '0';
    await expectUnauthorized(await listKeys(apiKey(key.plaintext.slice(0, -1) + last)));
    await expectUnauthorized(await listKeys(apiKey(key.plaintext.toUpperCase())));
    await expectUnauthorized(await listKeys(apiKey('tm_short_abc')));
  });

  it("another account's keys are invisible: not listed, and 404 on DELETE (as unknown and malformed ids)", async () => {
    const mine = bearer(await tokenOf('owner-a', 3));
    const theirs = await keyOf(t.mail, 'owner-b');
    await keyOf(t.mail, 'owner-a');
    const listed = (await (await listKeys(mine)).json()) as ListedKey[];
    expect(listed.map((k) => k.id)).not.toContain(theirs.id);
    for (const id of [theirs.id, '0190a000-0000-7000-8000-000000000000', 'not-a-uuid']) {
      const res = await revoke(id, mine);
      expect(res.status, id).toBe(404);
      expect((await problemOf(res)).code).toBe('not_found');
    }
    expect((await listKeys(apiKey(theirs.plaintext))).status).toBe(200);
  });

  it('neither a key, a JWT nor the secret reaches the log', async () => {
    captured.lines.length = 0;
    const token = await tokenOf('logged', 3);
    const res = await createKey(bearer(token), { label: 'logged' });
    const key = (await res.json()) as CreatedKey;
    await listKeys(apiKey(key.plaintext));
    await listKeys(apiKey(`${key.plaintext.slice(0, -1)}x`));
    await t.mail.call('/api/v1/inboxes', {
      body: { domain: 'inbox.test', webhook_url: 'https://hooks.example.com/x' },
      headers: apiKey(key.plaintext),
    });
    await revoke(key.id, apiKey(key.plaintext));
    await listKeys(apiKey(key.plaintext));
    await listKeys(bearer(token.slice(0, -2)));
    const text = captured.lines.join('\n');
    expect(captured.lines.length).toBeGreaterThanOrEqual(7);
    expect(text).toContain('/api/v1/api-keys');
    for (const secret of [key.plaintext.split('_')[2]!, token, token.split('.')[2]!, JWT_SECRET]) expect(text).not.toContain(secret);
  });
});

describe('JWTs verified with MAIL_JWKS_URL', () => {
  let jwks: Server;
  let fetches = 0;
  let mail: Mail;
  let keys: Awaited<ReturnType<typeof generateKeyPair>>;

  beforeAll(async () => {
    keys = await generateKeyPair('ES256');
    const published = { ...(await exportJWK(keys.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
    jwks = createServer((_req, res) => {
      fetches++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [published] }));
    });
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/.well-known/jwks.json`;
    mail = await startMail(t.db, { env: { MAIL_JWKS_URL: url } });
  });
  afterAll(async () => {
    await mail?.close();
    await new Promise((resolve) => jwks?.close(resolve));
  });

  it('accepts tokens signed with a published key (fetched once, then cached) and enforces tiers', async () => {
    const sign = (tier: number) => jwtFor({ sub: 'jwks-account', tier }, { key: keys.privateKey, alg: 'ES256', kid: 'k1' });
    const made = await mail.call('/api/v1/api-keys', { body: {}, headers: bearer(await sign(3)) });
    expect(made.status).toBe(201);
    expect((await mail.call('/api/v1/api-keys', { body: {}, headers: bearer(await sign(2)) })).status).toBe(403);
    expect((await mail.call('/api/v1/api-keys', { headers: bearer(await sign(0)) })).status).toBe(200);
    expect(fetches).toBe(1);
  });

  it('refuses a token signed with another key, an unknown kid, and an HS256 token keyed with the public key', async () => {
    const other = await generateKeyPair('ES256');
    const forged = await jwtFor({ sub: 'jwks-account', tier: 5 }, { key: other.privateKey, alg: 'ES256', kid: 'k1' });
    await expectUnauthorized(await mail.call('/api/v1/api-keys', { headers: bearer(forged) }), /signature/);
    const unknownKid = await jwtFor({ sub: 'jwks-account', tier: 5 }, { key: keys.privateKey, alg: 'ES256', kid: 'k2' });
    await expectUnauthorized(await mail.call('/api/v1/api-keys', { headers: bearer(unknownKid) }), /no key/);
    // Algorithm confusion: the public key (known to anyone) used as an HMAC secret.
    const pem = await exportSPKI(keys.publicKey);
    const confused = await jwtFor({ sub: 'jwks-account', tier: 5 }, { key: new TextEncoder().encode(pem), alg: 'HS256', kid: 'k1' });
    await expectUnauthorized(await mail.call('/api/v1/api-keys', { headers: bearer(confused) }), /algorithm/);
    await expectUnauthorized(await mail.call('/api/v1/api-keys', { headers: bearer(await tokenOf('jwks-account', 5)) }), /algorithm/);
  });

  it('a JWKS that cannot be fetched is 503, not a verdict on the token', async () => {
    const down = createServer();
    await new Promise<void>((resolve) => down.listen(0, '127.0.0.1', resolve));
    const port = (down.address() as AddressInfo).port;
    await new Promise((resolve) => down.close(resolve));
    const orphan = await startMail(t.db, { env: { MAIL_JWKS_URL: `http://127.0.0.1:${port}/jwks.json` } });
    try {
      const token = await jwtFor({ sub: 'x', tier: 3 }, { key: keys.privateKey, alg: 'ES256', kid: 'k1' });
      const res = await orphan.call('/api/v1/api-keys', { headers: bearer(token) });
      expect(res.status).toBe(503);
      expect((await problemOf(res)).code).toBe('service_unavailable');
    } finally {
      await orphan.close();
    }
  });
});
