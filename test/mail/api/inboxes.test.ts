// Domains and anonymous generation over HTTP, per docs/decisions.md, "Mail service: domains, inboxes, messages".
import { beforeAll, describe, expect, it } from 'vitest';
import { putDomain } from '../../../src/mail/index.ts';
import { problemOf } from '../../helpers/http.ts';
import { useMail } from '../../helpers/mail.ts';

const t = useMail({ domains: ['inbox.test', 'second.test'], anonTtlSeconds: 600 });

beforeAll(async () => {
  await putDomain(t.db.pool, { name: 'private.test', isPublic: false, tierRequired: 0 });
  await putDomain(t.db.pool, { name: 'paid.test', isPublic: true, tierRequired: 3 });
});

const generate = (body?: unknown, headers?: Record<string, string>) =>
  t.mail.call('/api/v1/inboxes/generate', { method: 'POST', ...(body === undefined ? {} : { body }), ...(headers ? { headers } : {}) });

describe('GET /api/v1/domains/', () => {
  it('lists every domain in the order configured, with and without the trailing slash', async () => {
    for (const path of ['/api/v1/domains/', '/api/v1/domains']) {
      const res = await t.mail.call(path);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        domains: [
          { name: 'inbox.test', is_public: true, tier_required: 0 },
          { name: 'second.test', is_public: true, tier_required: 0 },
          { name: 'private.test', is_public: false, tier_required: 0 },
          { name: 'paid.test', is_public: true, tier_required: 3 },
        ],
      });
    }
  });
});

describe('POST /api/v1/inboxes/generate', () => {
  it('with an empty object, or no body at all: a random address on the first public domain, for the configured TTL', async () => {
    for (const res of [await generate({}), await generate()]) {
      expect(res.status).toBe(201);
      const inbox = (await res.json()) as Record<string, any>;
      expect(inbox.address).toMatch(/^[a-z0-9]{10}@inbox\.test$/);
      expect(res.headers.get('location')).toBe(`/api/v1/inboxes/${encodeURIComponent(inbox.address)}`);
      expect(inbox).toMatchObject({ message_count: 0, unread_count: 0, domain: 'inbox.test' });
      expect(inbox.id).toMatch(/^[0-9a-f-]{36}$/);
      const ttl = Date.parse(inbox.inbox_expires_at) - Date.parse(inbox.created_at);
      expect(ttl).toBe(600_000);
    }
  });

  it('random addresses do not repeat', async () => {
    const addresses = await Promise.all(Array.from({ length: 40 }, () => t.mail.inbox()));
    expect(new Set(addresses).size).toBe(40);
  });

  it('a chosen local part is lower-cased; the domain may be named', async () => {
    const res = await generate({ local_part: 'Alice.Smith+Tag', domain: 'SECOND.test' });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { address: string }).address).toBe('alice.smith+tag@second.test');
  });

  it('an address held by a live inbox is 409, in any case', async () => {
    expect((await generate({ local_part: 'taken' })).status).toBe(201);
    const again = await generate({ local_part: 'TAKEN' });
    expect(again.status).toBe(409);
    expect((await problemOf(again)).code).toBe('conflict');
    // The same local part on another domain is another address.
    expect((await generate({ local_part: 'taken', domain: 'second.test' })).status).toBe(201);
  });

  it('two requests racing for one address: exactly one wins', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => generate({ local_part: 'race' })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
  });

  it.each([
    ['postmaster', 'reserved'],
    ['Abuse', 'reserved'],
    ['admin+x', 'reserved'],
    ['', 'empty'],
    ['a'.repeat(65), 'longer than 64'],
    ['two..dots', 'dot-atom'],
    ['.leading', 'dot-atom'],
    ['trailing.', 'dot-atom'],
    ['has space', 'dot-atom'],
    ['at@sign', 'dot-atom'],
    ['quoted"', 'dot-atom'],
    ['ünïcode', 'dot-atom'],
  ])('local_part %j is refused (400, names /local_part: %s)', async (localPart, words) => {
    const res = await generate({ local_part: localPart });
    const problem = await problemOf(res);
    expect(res.status).toBe(400);
    expect(problem.code).toBe('validation_failed');
    expect(problem.errors).toEqual([expect.objectContaining({ path: '/local_part', message: expect.stringContaining(words) })]);
  });

  it('an unknown domain is 400 naming /domain; a private or paid one is 403 tier_required', async () => {
    const unknown = await generate({ domain: 'elsewhere.example' });
    expect(unknown.status).toBe(400);
    expect((await problemOf(unknown)).errors).toEqual([expect.objectContaining({ path: '/domain' })]);
    for (const domain of ['private.test', 'paid.test']) {
      const res = await generate({ domain });
      expect(res.status).toBe(403);
      expect((await problemOf(res)).code).toBe('tier_required');
    }
  });

  it.each([
    ['an unknown field', { local_part: 'x1', colour: 'red' }, 400],
    ['a number as local_part', { local_part: 5 }, 400],
    ['an array body', [], 400],
    ['malformed JSON', '{"local_part": ', 400],
  ])('%s is a 400 problem', async (_what, body, status) => {
    const res = await generate(body);
    expect(res.status).toBe(status);
    await problemOf(res);
  });

  it('a body that is not JSON is 415', async () => {
    const res = await t.mail.call('/api/v1/inboxes/generate', {
      method: 'POST',
      body: 'local_part=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(415);
    await problemOf(res);
  });
});

describe('GET /api/v1/inboxes/{address}', () => {
  it('answers in any case; unknown addresses are 404 problems', async () => {
    const address = await t.mail.inbox('Reader');
    const res = await t.mail.call(`/api/v1/inboxes/${encodeURIComponent('READER@Inbox.Test')}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ address, message_count: 0, unread_count: 0, label: null, webhook_url: null });
    for (const path of [
      '/api/v1/inboxes/nobody@inbox.test',
      '/api/v1/inboxes/not-an-address',
      '/api/v1/inboxes/nobody@inbox.test/messages',
      '/api/v1/inboxes/nobody@inbox.test/stats',
    ]) {
      const missing = await t.mail.call(path);
      expect(missing.status, path).toBe(404);
      expect((await problemOf(missing)).code).toBe('not_found');
    }
    for (const path of ['/api/v1/inboxes/nobody@inbox.test/clear', '/api/v1/inboxes/nobody@inbox.test/mark-all-read']) {
      expect((await t.mail.call(path, { method: 'POST' })).status, path).toBe(404);
    }
  });
});
