// An account's inboxes (docs/api/README.md, "Account inboxes"): GET /api/v1/inboxes pages through the live ones,
// newest first, without repeating or skipping, filtered by namespace; DELETE /api/v1/inboxes/{address} deletes an
// anonymous inbox for anyone and an account's for its owner only.
import { describe, expect, it } from 'vitest';
import { apiKey, bearer, JWT_SECRET, keyOf, tokenOf } from '../../helpers/accounts.ts';
import { problemOf } from '../../helpers/http.ts';
import { DOMAIN, useMail } from '../../helpers/mail.ts';

const t = useMail({ env: { MAIL_JWT_SECRET: JWT_SECRET } });

interface Inbox {
  id: string;
  address: string;
  namespace: string | null;
  private: boolean;
  message_count: number;
}
interface Page {
  inboxes: Inbox[];
  next_cursor: string | null;
}

const as = async (account: string, tier = 3) => bearer(await tokenOf(account, tier));

async function make(account: string, body: Record<string, unknown> = {}): Promise<Inbox> {
  const res = await t.mail.call('/api/v1/inboxes', { body: { domain: DOMAIN, ...body }, headers: await as(account) });
  if (res.status !== 201) throw new Error(`create answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Inbox;
}

async function page(account: string, query: string): Promise<Page> {
  const res = await t.mail.call(`/api/v1/inboxes${query}`, { headers: await as(account, 0) });
  if (res.status !== 200) throw new Error(`list answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Page;
}

describe('GET /api/v1/inboxes', () => {
  it('pages through the live inboxes of the account, newest first, none repeated or skipped', async () => {
    const made: Inbox[] = [];
    for (let i = 0; i < 5; i++) made.push(await make('lister'));
    await make('not-the-lister');
    await t.mail.inbox();
    // An expired one is gone, even before the sweeper runs.
    const expired = await make('lister');
    await t.db.pool.query("UPDATE inboxes SET expires_at = now() - interval '1 second' WHERE id = $1", [expired.id]);

    const first = await page('lister', '?limit=2');
    expect(first.inboxes.map((i) => i.id)).toEqual([made[4]!.id, made[3]!.id]);
    // One made meanwhile comes first in a new listing, not on the later pages.
    const later = await make('lister');
    const second = await page('lister', `?limit=2&cursor=${first.next_cursor}`);
    const third = await page('lister', `?limit=2&cursor=${second.next_cursor}`);
    expect(second.inboxes.map((i) => i.id)).toEqual([made[2]!.id, made[1]!.id]);
    expect(third).toEqual({ inboxes: [expect.objectContaining({ id: made[0]!.id, private: false, namespace: null })], next_cursor: null });
    expect((await page('lister', '')).inboxes.map((i) => i.id)).toEqual([later.id, ...made.map((i) => i.id).reverse()]);
  });

  it('takes an API key too; another account sees none of them', async () => {
    await make('keyed-lister');
    const key = await keyOf(t.mail, 'keyed-lister');
    const res = await t.mail.call('/api/v1/inboxes', { headers: apiKey(key.plaintext) });
    expect(((await res.json()) as Page).inboxes).toHaveLength(1);
    expect((await page('nobody-made-any', '')).inboxes).toEqual([]);
  });

  it('filters by namespace name', async () => {
    await t.mail.call('/api/v1/namespaces', { body: { domain: DOMAIN, name: 'flt' }, headers: await as('filterer') });
    const inside = await make('filterer', { local_part: 'flt.one' });
    await make('filterer', { local_part: 'outside' });
    expect((await page('filterer', '?namespace=flt')).inboxes.map((i) => [i.id, i.namespace])).toEqual([[inside.id, 'flt']]);
    expect((await page('filterer', '?namespace=other')).inboxes).toEqual([]);
    expect((await page('filterer', '')).inboxes).toHaveLength(2);
  });

  it('refuses a cursor it did not make (400 invalid_cursor), bad limits (400) and no credentials (401)', async () => {
    for (const cursor of ['nonsense', Buffer.from('12.not-a-uuid').toString('base64url'), Buffer.from('x.y.z').toString('base64url')]) {
      const res = await t.mail.call(`/api/v1/inboxes?cursor=${cursor}`, { headers: await as('lister', 0) });
      expect(res.status, cursor).toBe(400);
      expect((await problemOf(res)).code).toBe('invalid_cursor');
    }
    for (const limit of ['0', '201', 'x']) {
      expect((await t.mail.call(`/api/v1/inboxes?limit=${limit}`, { headers: await as('lister', 0) })).status).toBe(400);
    }
    expect((await t.mail.call('/api/v1/inboxes')).status).toBe(401);
  });
});

describe('DELETE /api/v1/inboxes/{address}', () => {
  const del = (address: string, headers: Record<string, string> = {}) =>
    t.mail.call(`/api/v1/inboxes/${encodeURIComponent(address)}`, { method: 'DELETE', headers });

  it('deletes an anonymous inbox for anyone, with its messages; then the address is unknown', async () => {
    const address = await t.mail.inbox();
    await t.mail.send({ from: 'a@sender.test', to: address, subject: 'x', text: 'x' });
    expect((await del(address.toUpperCase())).status).toBe(204);
    expect((await t.mail.call(`/api/v1/inboxes/${address}`)).status).toBe(404);
    expect((await del(address)).status).toBe(404);
    const { rows } = await t.db.pool.query('SELECT count(*)::int AS n FROM messages WHERE to_address = $1', [address]);
    expect(rows[0].n).toBe(0);
  });

  it("an account's inbox: 403 for anyone but its owner, who deletes it with a JWT or an API key", async () => {
    const byJwt = await make('deleter');
    const byKey = await make('deleter');
    for (const headers of [{}, await as('intruder'), apiKey(`tm_abcdefgh_${'0'.repeat(48)}`)]) {
      const res = await del(byJwt.address, headers);
      expect(res.status).toBe(403);
      expect((await problemOf(res)).code).toBe('forbidden');
    }
    expect((await del(byJwt.address, await as('deleter', 0))).status).toBe(204);
    const key = await keyOf(t.mail, 'deleter');
    expect((await del(byKey.address, apiKey(key.plaintext))).status).toBe(204);
    expect((await page('deleter', '')).inboxes).toEqual([]);
  });

  it('an unknown address is 404', async () => {
    const res = await del(`never-made@${DOMAIN}`);
    expect(res.status).toBe(404);
    expect((await problemOf(res)).detail).toBe(`no inbox never-made@${DOMAIN} (unknown, or expired)`);
  });
});
