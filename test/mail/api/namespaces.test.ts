// Namespaces (docs/api/README.md, "Namespaces"): an account claims <name>.*@<domain>; the first mail to an address
// of it makes the inbox, owned by the account with the namespace's settings; the owner lists it, another account
// gets 404 on a private namespace's inbox; the 409 rules; deleting the namespace deletes its inboxes.
import { describe, expect, it } from 'vitest';
import { apiKey, bearer, JWT_SECRET, keyOf, tokenOf } from '../../helpers/accounts.ts';
import { problemOf } from '../../helpers/http.ts';
import { DOMAIN, useMail } from '../../helpers/mail.ts';
import { SmtpClient } from '../../helpers/smtp.ts';

const t = useMail({ anonTtlSeconds: 600, env: { MAIL_JWT_SECRET: JWT_SECRET } });

interface Namespace {
  id: string;
  name: string;
  domain: string;
  address_pattern: string;
  private: boolean;
  inbox_ttl_seconds: number | null;
  label: string | null;
  webhook_url: string | null;
  inbox_count: number;
  created_at: string;
  webhook_secret?: string | null;
}

interface Inbox {
  id: string;
  address: string;
  private: boolean;
  namespace: string | null;
  label: string | null;
  inbox_expires_at: string | null;
  created_at: string;
  message_count: number;
  webhook_secret?: string | null;
  webhook_url: string | null;
}

const as = async (account: string, tier = 3) => bearer(await tokenOf(account, tier));

async function claim(account: string, body: Record<string, unknown>): Promise<Response> {
  return t.mail.call('/api/v1/namespaces', { body: { domain: DOMAIN, ...body }, headers: await as(account) });
}

async function claimed(account: string, body: Record<string, unknown>): Promise<Namespace> {
  const res = await claim(account, body);
  if (res.status !== 201) throw new Error(`namespaces answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Namespace;
}

async function sendTo(to: string, subject = 'hello'): Promise<number> {
  const smtp = await SmtpClient.connect(t.mail.smtpPort);
  try {
    return (await smtp.send({ from: 'app@sender.test', to: [to] }, Buffer.from(`Subject: ${subject}\r\n\r\nhi\r\n`))).code;
  } finally {
    await smtp.quit();
  }
}

const namespacesOf = async (account: string) =>
  ((await (await t.mail.call('/api/v1/namespaces', { headers: await as(account, 0) })).json()) as { namespaces: Namespace[] }).namespaces;

const inboxesOf = async (account: string, query = '') =>
  (await (await t.mail.call(`/api/v1/inboxes${query}`, { headers: await as(account, 0) })).json()) as {
    inboxes: Inbox[];
    next_cursor: string | null;
  };

describe('POST /api/v1/namespaces', () => {
  it('claims a namespace: 201 with the view and the webhook secret once', async () => {
    const ns = await claimed('owner-a', {
      name: 'ci',
      private: true,
      ttl_seconds: 3600,
      label: 'CI runs',
      webhook_url: 'https://hooks.example.com/ci',
    });
    expect(ns).toMatchObject({
      name: 'ci',
      domain: DOMAIN,
      address_pattern: `ci.*@${DOMAIN}`,
      private: true,
      inbox_ttl_seconds: 3600,
      label: 'CI runs',
      webhook_url: 'https://hooks.example.com/ci',
      inbox_count: 0,
    });
    expect(ns.webhook_secret).toMatch(/^[0-9a-f]{48}$/);
    const listed = await namespacesOf('owner-a');
    expect(listed.map((n) => n.id)).toEqual([ns.id]);
    expect(listed[0]).not.toHaveProperty('webhook_secret');
  });

  it('defaults: not private, the anonymous life, no label, no webhook', async () => {
    const ns = await claimed('owner-b', { name: 'plain' });
    expect(ns).toMatchObject({ private: false, inbox_ttl_seconds: 600, label: null, webhook_url: null, webhook_secret: null });
    expect((await claimed('owner-b', { name: 'forever', ttl_seconds: null })).inbox_ttl_seconds).toBeNull();
  });

  it('needs tier 3 and credentials; refuses bad names, role names and unknown domains with 400', async () => {
    const low = await t.mail.call('/api/v1/namespaces', { body: { domain: DOMAIN, name: 'low' }, headers: await as('low', 2) });
    expect(low.status).toBe(403);
    expect((await t.mail.call('/api/v1/namespaces', { body: { domain: DOMAIN, name: 'anon' } })).status).toBe(401);
    for (const name of ['Upper', '-dash', 'dash-', 'a.b', 'a_b', 'x'.repeat(33), '', 'admin', 'postmaster']) {
      const res = await claim('owner-c', { name });
      expect(res.status, name).toBe(400);
      expect((await problemOf(res)).code).toBe('validation_failed');
    }
    const unknown = await claim('owner-c', { name: 'fine', domain: 'elsewhere.test' });
    expect(unknown.status).toBe(400);
    expect(((await problemOf(unknown)).errors as { path: string }[])[0]!.path).toBe('/domain');
  });

  it('409 when the name is taken on the domain, by anyone, the same account included', async () => {
    await claimed('owner-d', { name: 'taken' });
    for (const account of ['owner-d', 'owner-e']) {
      const res = await claim(account, { name: 'taken' });
      expect(res.status).toBe(409);
      expect((await problemOf(res)).code).toBe('conflict');
    }
  });

  it("409 when live inboxes of others already have its addresses; the account's own do not count", async () => {
    await t.mail.inbox('squat.one');
    const res = await claim('owner-f', { name: 'squat' });
    expect(res.status).toBe(409);
    expect((await problemOf(res)).detail).toContain(`squat.*@${DOMAIN}`);
    const own = await t.mail.call('/api/v1/inboxes', { body: { domain: DOMAIN, local_part: 'mine.one' }, headers: await as('owner-f') });
    expect(own.status).toBe(201);
    expect((await claim('owner-f', { name: 'mine' })).status).toBe(201);
  });
});

describe('addresses of a namespace', () => {
  it("the first mail makes the inbox, owned, with the namespace's settings; the owner sees it, others get 404", async () => {
    const ns = await claimed('owner-g', { name: 'e2e', private: true, label: 'from ns', ttl_seconds: 7200 });
    expect(await sendTo(`e2e.alice+run1@${DOMAIN}`, 'first')).toBe(250);
    expect(await sendTo(`E2E.Alice@${DOMAIN}`, 'second')).toBe(250);
    const row = (
      await t.db.pool.query(
        'SELECT account_id, is_private, namespace_id, label, expires_at - created_at AS life FROM inboxes WHERE address = $1',
        [`e2e.alice@${DOMAIN}`],
      )
    ).rows[0];
    expect(row).toMatchObject({ account_id: 'owner-g', is_private: true, namespace_id: ns.id, label: 'from ns' });
    expect(row.life.hours).toBe(2);

    const { inboxes } = await inboxesOf('owner-g');
    expect(inboxes.map((i) => [i.address, i.private, i.namespace, i.message_count])).toEqual([[`e2e.alice@${DOMAIN}`, true, 'e2e', 2]]);
    expect((await namespacesOf('owner-g'))[0]!.inbox_count).toBe(1);
    const messages = await t.mail.call(`/api/v1/inboxes/e2e.alice@${DOMAIN}/messages`, { headers: await as('owner-g', 0) });
    expect(((await messages.json()) as { tag: string | null }[]).map((m) => m.tag)).toEqual([null, 'run1']);

    for (const headers of [{}, await as('someone-else')]) {
      const res = await t.mail.call(`/api/v1/inboxes/e2e.alice@${DOMAIN}`, { headers });
      expect(res.status).toBe(404);
      expect((await problemOf(res)).detail).toBe(`no inbox e2e.alice@${DOMAIN} (unknown, or expired)`);
    }
    expect((await inboxesOf('someone-else')).inboxes).toEqual([]);
  });

  it('an address of no claimed namespace is unknown; the same name on another domain is not claimed', async () => {
    expect(await sendTo(`nons.bob@${DOMAIN}`)).toBe(550);
    await claimed('owner-h', { name: 'solo' });
    expect(await sendTo(`solo.x@${DOMAIN}`)).toBe(250);
    expect(await sendTo(`solo.x@other.test`)).toBe(550);
  });

  it('anonymous generation and another account cannot take an address of it (409); the owner can, and it joins', async () => {
    const ns = await claimed('owner-i', { name: 'held', private: true, webhook_url: 'https://hooks.example.com/held' });
    const anonymous = await t.mail.call('/api/v1/inboxes/generate', { body: { local_part: 'held.x' } });
    expect(anonymous.status).toBe(409);
    expect((await problemOf(anonymous)).detail).toContain('namespace');
    const other = await t.mail.call('/api/v1/inboxes', { body: { domain: DOMAIN, local_part: 'held.y' }, headers: await as('owner-j') });
    expect(other.status).toBe(409);

    const key = await keyOf(t.mail, 'owner-i');
    const own = await t.mail.call('/api/v1/inboxes', { body: { domain: DOMAIN, local_part: 'held.z' }, headers: apiKey(key.plaintext) });
    expect(own.status).toBe(201);
    const inbox = (await own.json()) as Inbox;
    expect(inbox).toMatchObject({
      private: true,
      namespace: 'held',
      webhook_url: 'https://hooks.example.com/held',
      webhook_secret: ns.webhook_secret,
    });
    // The body's own fields win over the namespace's.
    const open = await t.mail.call('/api/v1/inboxes', {
      body: { domain: DOMAIN, local_part: 'held.open', private: false, webhook_url: null, label: 'mine' },
      headers: apiKey(key.plaintext),
    });
    expect((await open.json()) as Inbox).toMatchObject({
      private: false,
      namespace: 'held',
      webhook_url: null,
      webhook_secret: null,
      label: 'mine',
    });
  });

  it('DELETE removes the namespace with its inboxes and their messages; another account gets 404', async () => {
    const ns = await claimed('owner-k', { name: 'gone' });
    expect(await sendTo(`gone.a@${DOMAIN}`)).toBe(250);
    expect(await sendTo(`gone.b@${DOMAIN}`)).toBe(250);
    expect((await inboxesOf('owner-k')).inboxes).toHaveLength(2);

    const foreign = await t.mail.call(`/api/v1/namespaces/${ns.id}`, { method: 'DELETE', headers: await as('owner-l') });
    expect(foreign.status).toBe(404);
    expect((await t.mail.call('/api/v1/namespaces/not-a-uuid', { method: 'DELETE', headers: await as('owner-k') })).status).toBe(404);

    const res = await t.mail.call(`/api/v1/namespaces/${ns.id}`, { method: 'DELETE', headers: await as('owner-k', 0) });
    expect(res.status).toBe(204);
    expect((await inboxesOf('owner-k')).inboxes).toEqual([]);
    expect(await namespacesOf('owner-k')).toEqual([]);
    const left = await t.db.pool.query("SELECT count(*)::int AS n FROM messages WHERE to_address LIKE 'gone.%'");
    expect(left.rows[0].n).toBe(0);
    // Its addresses are unknown again, and free for anyone.
    expect(await sendTo(`gone.c@${DOMAIN}`)).toBe(550);
    // This receiver remembered gone.a's deleted inbox (RCPT hits are kept 30 s): what it accepts for it now is
    // stored nowhere, and once the address is another inbox's, that one gets its mail.
    await sendTo(`gone.a@${DOMAIN}`, 'into the void');
    expect((await t.db.pool.query("SELECT count(*)::int AS n FROM messages WHERE to_address = 'gone.a@inbox.test'")).rows[0].n).toBe(0);
    expect((await t.mail.call('/api/v1/inboxes/generate', { body: { local_part: 'gone.a' } })).status).toBe(201);
    expect(await sendTo(`gone.a@${DOMAIN}`, 'to the new one')).toBe(250);
    const listed = await t.mail.call(`/api/v1/inboxes/gone.a@${DOMAIN}/messages`);
    expect(((await listed.json()) as { subject: string }[]).map((m) => m.subject)).toEqual(['to the new one']);
  });
});
