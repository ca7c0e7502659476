// POST /api/v1/inboxes (docs/api/README.md, "Credentials"; docs/api/mail-reference.md): tier 3 or higher, the
// domain's tier, private domains, ttl_seconds bounds and null for persistent, a label, a webhook secret shown
// once; mail arrives.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { putDomain } from '../../../src/mail/index.ts';
import { apiKey, bearer, JWT_SECRET, keyOf, tokenOf } from '../../helpers/accounts.ts';
import { problemOf } from '../../helpers/http.ts';
import { useMail } from '../../helpers/mail.ts';

const t = useMail({ domains: ['inbox.test'], anonTtlSeconds: 600, env: { MAIL_JWT_SECRET: JWT_SECRET } });

beforeAll(async () => {
  await putDomain(t.db.pool, { name: 'private.test', isPublic: false, tierRequired: 0 });
  await putDomain(t.db.pool, { name: 'premium.test', isPublic: false, tierRequired: 5 });
});

interface Created {
  id: string;
  address: string;
  domain: string;
  label: string | null;
  webhook_url: string | null;
  webhook_secret: string | null;
  inbox_expires_at: string | null;
  created_at: string;
  message_count: number;
  unread_count: number;
}

const create = async (body: unknown, tier = 3, account = 'dev') =>
  t.mail.call('/api/v1/inboxes', { body, headers: bearer(await tokenOf(account, tier)) });

async function created(body: unknown, tier = 3, account = 'dev'): Promise<Created> {
  const res = await create(body, tier, account);
  if (res.status !== 201) throw new Error(`create answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Created;
}

const read = async (address: string) => t.mail.call(`/api/v1/inboxes/${encodeURIComponent(address)}`);

describe('POST /api/v1/inboxes: tiers', () => {
  it.each([
    [0, 403],
    [2, 403],
    [3, 201],
    [5, 201],
  ])('an account of tier %i gets %i on a public domain', async (tier, status) => {
    const res = await create({ domain: 'inbox.test' }, tier, `tier-${tier}`);
    expect(res.status).toBe(status);
    if (status === 403) expect(await problemOf(res)).toMatchObject({ code: 'tier_required', required_tier: 3 });
  });

  it("a domain's tier_required must be reached; private domains are open to programmatic creation", async () => {
    const refused = await create({ domain: 'premium.test' }, 3);
    expect(refused.status).toBe(403);
    const problem = await problemOf(refused);
    expect(problem).toMatchObject({ code: 'tier_required', required_tier: 5 });
    expect(problem.detail).toContain('premium.test');
    expect((await created({ domain: 'Premium.Test.' }, 5)).address).toMatch(/^[a-z0-9]{10}@premium\.test$/);
    expect((await created({ domain: 'private.test' }, 3)).domain).toBe('private.test');
  });

  it('an API key creates with its account tier', async () => {
    const key = await keyOf(t.mail, 'keyed');
    const res = await t.mail.call('/api/v1/inboxes', { body: { domain: 'inbox.test' }, headers: apiKey(key.plaintext) });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as Created;
    expect((await t.db.pool.query('SELECT account_id FROM inboxes WHERE id = $1', [id])).rows[0].account_id).toBe('keyed');
    expect((await t.mail.call('/api/v1/inboxes', { body: { domain: 'premium.test' }, headers: apiKey(key.plaintext) })).status).toBe(403);
  });

  it('no credentials is 401', async () => {
    const res = await t.mail.call('/api/v1/inboxes', { body: { domain: 'inbox.test' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });
});

describe('POST /api/v1/inboxes: fields', () => {
  it('answers 201 with the inbox, the label, the webhook and its secret; records the account', async () => {
    const res = await create({
      domain: 'inbox.test',
      local_part: 'Dev.Box',
      label: 'signup tests',
      webhook_url: 'https://hooks.example.com/mail?x=1',
      ttl_seconds: 3600,
    });
    expect(res.status).toBe(201);
    const inbox = (await res.json()) as Created;
    expect(res.headers.get('location')).toBe(`/api/v1/inboxes/${encodeURIComponent('dev.box@inbox.test')}`);
    expect(inbox).toMatchObject({
      address: 'dev.box@inbox.test',
      domain: 'inbox.test',
      label: 'signup tests',
      webhook_url: 'https://hooks.example.com/mail?x=1',
      message_count: 0,
      unread_count: 0,
    });
    expect(Object.keys(inbox).sort()).toEqual([
      'address',
      'created_at',
      'domain',
      'id',
      'inbox_expires_at',
      'label',
      'message_count',
      'namespace',
      'private',
      'unread_count',
      'webhook_secret',
      'webhook_url',
    ]);
    expect(inbox.webhook_secret).toMatch(/^[0-9a-f]{48}$/);
    expect(Date.parse(inbox.inbox_expires_at!) - Date.parse(inbox.created_at)).toBe(3_600_000);
    const row = (await t.db.pool.query('SELECT account_id, webhook_secret, label FROM inboxes WHERE id = $1', [inbox.id])).rows[0];
    // Stored as is: webhooks are signed with it.
    expect(row).toEqual({ account_id: 'dev', webhook_secret: inbox.webhook_secret, label: 'signup tests' });
  });

  it('the secret is shown once: GET shows the label and the webhook_url, never the secret', async () => {
    const inbox = await created({ domain: 'inbox.test', label: 'round trip ✓', webhook_url: 'https://hooks.example.com/a' });
    for (const path of [
      `/api/v1/inboxes/${inbox.address}`,
      `/api/v1/inboxes/${inbox.address}/stats`,
      `/api/v1/inboxes/${inbox.address}/messages`,
    ]) {
      const res = await t.mail.call(path);
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).not.toContain(inbox.webhook_secret!);
      expect(text).not.toContain('webhook_secret');
    }
    const shown = (await (await read(inbox.address)).json()) as Record<string, unknown>;
    expect(shown).toMatchObject({ id: inbox.id, label: 'round trip ✓', webhook_url: 'https://hooks.example.com/a' });
  });

  it('without webhook_url (or with null) there is no secret; secrets differ between inboxes', async () => {
    expect((await created({ domain: 'inbox.test' })).webhook_secret).toBeNull();
    expect((await created({ domain: 'inbox.test', webhook_url: null, label: null })).webhook_secret).toBeNull();
    const a = await created({ domain: 'inbox.test', webhook_url: 'https://hooks.example.com/1' });
    const b = await created({ domain: 'inbox.test', webhook_url: 'https://hooks.example.com/1' });
    expect(a.webhook_secret).not.toBe(b.webhook_secret);
  });

  it('ttl_seconds: omitted is MAIL_ANON_TTL_SECONDS, 60 and 2,592,000 are the bounds, null is persistent', async () => {
    const life = (inbox: Created) => Date.parse(inbox.inbox_expires_at!) - Date.parse(inbox.created_at);
    expect(life(await created({ domain: 'inbox.test' }))).toBe(600_000);
    expect(life(await created({ domain: 'inbox.test', ttl_seconds: 60 }))).toBe(60_000);
    expect(life(await created({ domain: 'inbox.test', ttl_seconds: 2_592_000 }))).toBe(2_592_000_000);
    const persistent = await created({ domain: 'inbox.test', ttl_seconds: null });
    expect(persistent.inbox_expires_at).toBeNull();
    expect(((await (await read(persistent.address)).json()) as Created).inbox_expires_at).toBeNull();
    expect((await t.db.pool.query('SELECT expires_at FROM inboxes WHERE id = $1', [persistent.id])).rows[0].expires_at).toBeNull();
  });

  it.each([
    ['ttl_seconds 59', { ttl_seconds: 59 }, '/ttl_seconds', '>= 60'],
    ['ttl_seconds 2,592,001', { ttl_seconds: 2_592_001 }, '/ttl_seconds', '<= 2592000'],
    ['ttl_seconds 90.5', { ttl_seconds: 90.5 }, '/ttl_seconds', 'integer'],
    ['ttl_seconds "3600"', { ttl_seconds: '3600' }, '/ttl_seconds', 'integer'],
    ['an unknown domain', { domain: 'elsewhere.example' }, '/domain', 'not a domain of this service'],
    ['no domain', { domain: undefined }, '/domain', 'required'],
    ['a reserved local part', { local_part: 'postmaster' }, '/local_part', 'reserved'],
    ['a local part that is not a dot-atom', { local_part: 'two..dots' }, '/local_part', 'dot-atom'],
    ['a label over 200 characters', { label: 'x'.repeat(201) }, '/label', '200'],
    ['a label with NUL (PostgreSQL text cannot hold it)', { label: 'a\u0000b' }, '/label', 'NUL'],
    ['a webhook_url with a control character', { webhook_url: 'https://hooks.example.com/a\u0000b' }, '/webhook_url', 'control character'],
    ['a relative webhook_url', { webhook_url: '/hook' }, '/webhook_url', 'absolute'],
    ['an ftp webhook_url', { webhook_url: 'ftp://hooks.example.com/x' }, '/webhook_url', 'http'],
    ['a loopback webhook_url', { webhook_url: 'http://127.0.0.1:9/x' }, '/webhook_url', 'private or loopback'],
    ['a localhost webhook_url', { webhook_url: 'http://localhost/x' }, '/webhook_url', 'private or loopback'],
    ['a webhook_url over 2,048 characters', { webhook_url: `https://hooks.example.com/${'a'.repeat(2030)}` }, '/webhook_url', '2048'],
    ['an unknown field', { tier: 9 }, '/tier', 'not a known field'],
  ])('%s is 400 naming the field', async (_what, fields, path, words) => {
    const res = await create({ domain: 'inbox.test', ...fields });
    const problem = await problemOf(res);
    expect(res.status).toBe(400);
    expect(problem.code).toBe('validation_failed');
    expect(problem.errors).toEqual([expect.objectContaining({ path, message: expect.stringContaining(words) })]);
  });

  it('several field problems are listed together', async () => {
    const res = await create({ domain: 'nowhere.example', local_part: 'abuse', webhook_url: 'mailto:x@example.com' });
    expect(res.status).toBe(400);
    expect(((await problemOf(res)).errors as { path: string }[]).map((e) => e.path)).toEqual(['/domain', '/local_part', '/webhook_url']);
  });

  it('a chosen address held by a live inbox (anonymous or not) is 409', async () => {
    await created({ domain: 'inbox.test', local_part: 'shared' });
    const again = await create({ domain: 'inbox.test', local_part: 'SHARED' });
    expect(again.status).toBe(409);
    expect((await problemOf(again)).code).toBe('conflict');
    await t.mail.inbox('anon-held');
    expect((await create({ domain: 'inbox.test', local_part: 'anon-held' })).status).toBe(409);
  });
});

describe('mail for a programmatic inbox', () => {
  it('is received over SMTP like any other, also in a persistent inbox', async () => {
    const inbox = await created({ domain: 'private.test', ttl_seconds: null, label: 'smtp' });
    const info = await t.mail.send({
      from: 'sender@example.org',
      to: inbox.address,
      subject: 'Your code is 481516',
      text: 'Use 481516 to sign in.',
    });
    expect(info.response).toMatch(/^250 /);
    const list = (await (await t.mail.call(`/api/v1/inboxes/${inbox.address}/messages`)).json()) as Record<string, unknown>[];
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ from_address: 'sender@example.org', subject: 'Your code is 481516', has_otp: true });
    expect(await (await read(inbox.address)).json()).toMatchObject({
      message_count: 1,
      unread_count: 1,
      label: 'smtp',
      inbox_expires_at: null,
    });
  });
});

describe('/openapi.json', () => {
  it('documents the Developer routes with their schemas and both credentials', async () => {
    const doc = (await (await t.mail.call('/openapi.json')).json()) as Record<string, any>;
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['apiKey', 'bearer']);
    const create = doc.paths['/api/v1/inboxes'].post;
    expect(create.security).toEqual([{ bearer: [] }, { apiKey: [] }]);
    expect(Object.keys(create.requestBody.content['application/json'].schema.properties).sort()).toEqual([
      'domain',
      'label',
      'local_part',
      'private',
      'ttl_seconds',
      'webhook_url',
    ]);
    expect(create.responses['201'].content['application/json'].schema.$ref).toBe('#/components/schemas/CreatedInbox');
    expect(Object.keys(create.responses).sort()).toEqual(['201', '400', '401', '403', '409', '413', '415', '503']);
    expect(doc.components.schemas.CreatedInbox.properties.webhook_secret).toBeDefined();
    expect(doc.components.schemas.Inbox.properties.webhook_secret).toBeUndefined();
    for (const [path, method] of [
      ['/api/v1/api-keys', 'post'],
      ['/api/v1/api-keys', 'get'],
      ['/api/v1/api-keys/{id}', 'delete'],
    ] as const) {
      expect(doc.paths[path][method].security, `${method} ${path}`).toHaveLength(2);
    }
    expect(doc.components.schemas.ApiKey.properties).not.toHaveProperty('plaintext');
    expect(doc.components.schemas.CreatedApiKey.required).toContain('plaintext');
  });
});

describe('generated bodies', () => {
  const text = fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.constantFrom('', '\u0000', 'x\u0000y', '\ud800', 'a'.repeat(300)),
  );
  const body = fc.record(
    {
      domain: fc.oneof(fc.constantFrom('inbox.test', 'PRIVATE.test', 'premium.test', 'inbox.test.', 'nowhere.example'), text),
      local_part: fc.oneof(fc.constantFrom('ok', 'a.b', 'postmaster', '..'), text),
      label: fc.oneof(fc.constant(null), text),
      ttl_seconds: fc.oneof(fc.constant(null), fc.integer({ min: -10, max: 3_000_000 }), fc.double(), text),
      webhook_url: fc.oneof(fc.constant(null), fc.webUrl(), fc.constantFrom('http://10.0.0.1/x', 'https://[::1]/x'), text),
      extra: fc.jsonValue(),
    },
    { requiredKeys: [] },
  );

  it('300 shaped bodies and 100 arbitrary JSON values (by JWT and by API key): never a 5xx, every answer as documented', async () => {
    const key = await keyOf(t.mail, 'fuzzed');
    const headers = [bearer(await tokenOf('fuzzed', 4)), apiKey(key.plaintext)];
    const check = async (value: unknown, index: number) => {
      const res = await t.mail.call('/api/v1/inboxes', {
        body: JSON.stringify(value),
        headers: { 'content-type': 'application/json', ...headers[index % 2] },
      });
      expect(res.status, await res.clone().text()).toBeLessThan(500);
      if (res.status === 201) expect(Object.keys((await res.json()) as object)).toContain('webhook_secret');
      else expect([400, 403, 409]).toContain((await problemOf(res)).status);
    };
    await fc.assert(fc.asyncProperty(body, fc.nat(), check), { numRuns: 300, endOnFailure: true });
    await fc.assert(fc.asyncProperty(fc.jsonValue(), fc.nat(), check), { numRuns: 100, endOnFailure: true });
  });
});
