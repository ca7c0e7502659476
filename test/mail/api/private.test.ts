// Private inboxes (docs/api/README.md, "Private inboxes"): every route that reads or changes an inbox or one of
// its messages answers anyone but the owner exactly as for an address or message that does not exist, whatever
// credentials they send; the owner's JWT and the owner's API key both work; SMTP delivers to them as to any
// inbox; and on inboxes that are not private, credentials are not even looked at (a bad key changes nothing).
import { v7 as uuidv7 } from 'uuid';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiKey, bearer, JWT_SECRET, jwtFor, keyOf, tokenOf } from '../../helpers/accounts.ts';
import { DOMAIN, useMail } from '../../helpers/mail.ts';
import { openStream } from '../../helpers/sse-fetch.ts';

const t = useMail({ env: { MAIL_JWT_SECRET: JWT_SECRET } });
const OWNER = 'private-owner';
const NIL = '00000000-0000-0000-0000-000000000000';

interface Route {
  name: string;
  method: string;
  path: (address: string, id: string) => string;
  /** What the owner gets. */
  ok: number;
}

const e = encodeURIComponent;
/** Every route that reads or changes an inbox or a message; the ones that destroy come last. */
const ROUTES: Route[] = [
  { name: 'GET inbox', method: 'GET', path: (a) => `/api/v1/inboxes/${e(a)}`, ok: 200 },
  { name: 'GET stats', method: 'GET', path: (a) => `/api/v1/inboxes/${e(a)}/stats`, ok: 200 },
  { name: 'GET messages', method: 'GET', path: (a) => `/api/v1/inboxes/${e(a)}/messages`, ok: 200 },
  { name: 'GET wait', method: 'GET', path: (a) => `/api/v1/inboxes/${e(a)}/wait?after=${NIL}&timeout=0`, ok: 200 },
  { name: 'GET sse', method: 'GET', path: (a) => `/api/v1/sse/inbox/${e(a)}`, ok: 200 },
  { name: 'GET message', method: 'GET', path: (_, id) => `/api/v1/messages/${id}`, ok: 200 },
  { name: 'GET raw', method: 'GET', path: (_, id) => `/api/v1/messages/${id}/raw`, ok: 200 },
  { name: 'GET otp', method: 'GET', path: (_, id) => `/api/v1/messages/${id}/otp`, ok: 200 },
  { name: 'GET links', method: 'GET', path: (_, id) => `/api/v1/messages/${id}/links`, ok: 200 },
  { name: 'POST mark-all-read', method: 'POST', path: (a) => `/api/v1/inboxes/${e(a)}/mark-all-read`, ok: 204 },
  { name: 'POST clear', method: 'POST', path: (a) => `/api/v1/inboxes/${e(a)}/clear`, ok: 204 },
  { name: 'DELETE message', method: 'DELETE', path: (_, id) => `/api/v1/messages/${id}`, ok: 204 },
  { name: 'DELETE inbox', method: 'DELETE', path: (a) => `/api/v1/inboxes/${e(a)}`, ok: 204 },
];

/** Calls a route; a stream is opened, its status read, and closed. */
async function call(route: Route, address: string, id: string, headers: Record<string, string>) {
  const url = `${t.mail.url}${route.path(address, id)}`;
  if (route.name === 'GET sse') {
    const stream = await openStream(url, headers);
    stream.close();
    return { status: stream.status, type: stream.contentType, body: undefined, authenticate: null };
  }
  const res = await fetch(url, { method: route.method, headers });
  const type = res.headers.get('content-type');
  const text = await res.text();
  return {
    status: res.status,
    type,
    body: type?.includes('json') && text ? JSON.parse(text) : undefined,
    authenticate: res.headers.get('www-authenticate'),
  };
}

/** A private inbox of OWNER holding one message (sent over SMTP), with the message's id. */
async function privateInbox(): Promise<{ address: string; id: string }> {
  const owner = bearer(await tokenOf(OWNER, 3));
  const res = await t.mail.call('/api/v1/inboxes', { body: { domain: DOMAIN, private: true }, headers: owner });
  expect(res.status).toBe(201);
  const { address, private: isPrivate } = (await res.json()) as { address: string; private: boolean };
  expect(isPrivate).toBe(true);
  const sent = await t.mail.send({
    from: 'shop@sender.test',
    to: address,
    subject: 'Your code',
    text: 'Your code is 482913. https://shop.test/verify',
  });
  expect(sent.response).toMatch(/^250 .*stored 1 copy/);
  const listed = await t.mail.call(`/api/v1/inboxes/${address}/messages`, { headers: owner });
  const [message] = (await listed.json()) as { id: string }[];
  return { address, id: message!.id };
}

let outsiders: [string, Record<string, string>][];
beforeAll(async () => {
  const otherKey = await keyOf(t.mail, 'someone-else');
  outsiders = [
    ['no credentials', {}],
    ["another account's JWT", bearer(await tokenOf('someone-else', 3))],
    ["another account's API key", apiKey(otherKey.plaintext)],
    ["the owner's expired JWT", bearer(await jwtFor({ sub: OWNER, tier: 3, exp: Math.floor(Date.now() / 1000) - 3600 }))],
    [
      'a JWT signed with another secret, naming the owner',
      bearer(await jwtFor({ sub: OWNER, tier: 3 }, { key: new TextEncoder().encode('x'.repeat(40)) })),
    ],
    ['a key that is not one', apiKey(`tm_abcdefgh_${'0'.repeat(48)}`)],
    ["the owner's key, revoked", apiKey((await revoked(OWNER)).plaintext)],
    ['a malformed Authorization header', { authorization: 'Basic b3duZXI6cGFzcw==' }],
    ["the owner's JWT and another's key at once", { ...bearer(await tokenOf(OWNER, 3)), ...apiKey(otherKey.plaintext) }],
  ];
});

/** A key of `account`, revoked. */
async function revoked(account: string) {
  const key = await keyOf(t.mail, account);
  const res = await t.mail.call(`/api/v1/api-keys/${key.id}`, { method: 'DELETE', headers: bearer(await tokenOf(account, 3)) });
  expect(res.status).toBe(204);
  return key;
}

describe('a private inbox', () => {
  it.each(ROUTES.map((r) => [r.name, r] as const))('%s: everyone but the owner gets the 404 of an unknown address', async (_, route) => {
    const { address, id } = await privateInbox();
    const absentAddress = `absent-${uuidv7().slice(-8)}@${DOMAIN}`;
    const absentId = uuidv7();
    const unknown = await call(route, absentAddress, absentId, {});
    expect(unknown.status).toBe(404);
    for (const [who, headers] of outsiders) {
      const got = await call(route, address, id, headers);
      expect(got.status, who).toBe(404);
      expect(got.type, who).toBe(unknown.type);
      expect(got.authenticate, who).toBeNull();
      if (unknown.body) {
        const expected = JSON.parse(JSON.stringify(unknown.body).replaceAll(absentAddress, address).replaceAll(absentId, id));
        expect(got.body, who).toEqual(expected);
      }
    }
    // Nothing was changed by them: the owner still finds the inbox and its message unread.
    const owner = bearer(await tokenOf(OWNER, 0));
    const messages = (await (await t.mail.call(`/api/v1/inboxes/${address}/messages`, { headers: owner })).json()) as {
      id: string;
      is_read: boolean;
    }[];
    expect(messages).toEqual([expect.objectContaining({ id, is_read: false })]);
  });

  it.each([
    ['JWT', async () => bearer(await tokenOf(OWNER, 0))],
    ['API key', async () => apiKey((await keyOf(t.mail, OWNER)).plaintext)],
  ])("every route works with the owner's %s", async (_, credentials) => {
    const headers = await credentials();
    for (const route of ROUTES) {
      const { address, id } = await privateInbox();
      const got = await call(route, address, id, headers);
      expect(got.status, route.name).toBe(route.ok);
      if (route.name === 'GET sse') expect(got.type).toMatch(/^text\/event-stream/);
      if (route.name === 'GET message') expect(got.body).toMatchObject({ id, subject: 'Your code' });
      if (route.name === 'GET otp') expect(got.body).toMatchObject({ otp: '482913' });
      if (route.name === 'GET wait') expect(got.body).toMatchObject({ status: 'message', cursor: id });
      if (route.name === 'GET inbox') expect(got.body).toMatchObject({ address, private: true });
    }
  });

  it("streams its messages live to the owner's fetch()", async () => {
    const { address } = await privateInbox();
    const stream = await openStream(`${t.mail.url}/api/v1/sse/inbox/${e(address)}`, bearer(await tokenOf(OWNER, 0)));
    await stream.until('connected', 1);
    await t.mail.send({ from: 'shop@sender.test', to: address, subject: 'live', text: 'hi' });
    // The message sent before the stream opened may come too (its notification can arrive after the subscription).
    await expect.poll(() => stream.events.map((ev) => ev.data.subject)).toContain('live');
    stream.close();
  });
});

describe('inboxes that are not private', () => {
  it.each([
    ['anonymous', false],
    ["an account's", true],
  ])('%s inbox: every route answers as before, whatever bad credentials come along', async (_, owned) => {
    for (const route of ROUTES) {
      let address: string;
      if (owned) {
        const res = await t.mail.call('/api/v1/inboxes', { body: { domain: DOMAIN }, headers: bearer(await tokenOf('open-owner', 3)) });
        address = ((await res.json()) as { address: string }).address;
      } else {
        address = await t.mail.inbox();
      }
      await t.mail.send({ from: 'shop@sender.test', to: address, subject: 'Your code', text: 'Your code is 482913.' });
      const [message] = (await (await t.mail.call(`/api/v1/inboxes/${address}/messages`)).json()) as { id: string }[];
      for (const headers of [apiKey(`tm_abcdefgh_${'0'.repeat(48)}`), bearer('not.a.jwt'), { authorization: 'Basic eA==' }]) {
        // Deleting someone's inbox needs their credentials; every other route is anyone's.
        const expected = owned && route.name === 'DELETE inbox' ? 403 : route.ok;
        expect((await call(route, address, message!.id, headers)).status, `${route.name} ${JSON.stringify(headers)}`).toBe(expected);
        if (route.ok === 204 && expected === 204) break; // destroyed: once is enough
      }
    }
  });
});
