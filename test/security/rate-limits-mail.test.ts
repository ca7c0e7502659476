// Mail API request rates across two real `domainkit mail-api` processes over one database. The default profile
// (mvp) is the mail API document's MVP: no limit and no RateLimit field on any answer. The production profile
// limits anonymous callers per client address (inbox creation counted apart, lower), and a Developer account
// per account, higher. Each client is a loopback address of its own (127.0.0.x), as the server sees it.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressKey } from '../../src/mail/api/rate-limits.ts';
import { bearer, JWT_SECRET, tokenOf } from '../helpers/accounts.ts';
import { startCli, type RunningCli } from '../helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { openFrom } from '../helpers/from-address.ts';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request from `from` (a loopback address) to process `p`. */
function call(p: RunningCli, from: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) {
  const body = init.body === undefined ? undefined : JSON.stringify(init.body);
  return new Promise<Answer>((resolve, reject) => {
    const req = httpRequest(
      `${p.addresses['mail-api']}${path}`,
      {
        method: init.method ?? 'GET',
        localAddress: from,
        agent: false,
        headers: { ...init.headers, ...(body ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const generate = (p: RunningCli, from: string, headers: Record<string, string> = {}) =>
  call(p, from, '/api/v1/inboxes/generate', { method: 'POST', body: {}, headers });
const remaining = (a: Answer) => String(a.headers.ratelimit ?? '').replace(/;t=\d+/g, '');

let db: TestDatabase;
const base = { MAIL_PORT: '0', HOST: '127.0.0.1', MAIL_DOMAINS: 'inbox.test', MAIL_JWT_SECRET: JWT_SECRET };

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.pool.end();
});

describe('the production profile, over two processes', () => {
  let a: RunningCli;
  let b: RunningCli;
  beforeAll(async () => {
    // The profile's own values, lowered so a test reaches them; windows of an hour so none resets meanwhile.
    const env = {
      ...base,
      DATABASE_URL: db.url,
      RATE_LIMIT_PROFILE: 'production',
      MAIL_RATE_LIMIT_ANONYMOUS: '6/1h',
      MAIL_RATE_LIMIT_ANONYMOUS_CREATE: '3/1h',
      MAIL_RATE_LIMIT_DEVELOPER: '12/1h',
    };
    [a, b] = await Promise.all([startCli(['mail-api'], env), startCli(['mail-api'], env)]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('anonymous generate beyond the limit is 429 (one budget over both processes), with the fields', async () => {
    const made = [];
    for (const p of [a, b, a]) made.push(await generate(p, '127.0.0.2'));
    expect(made.map((r) => r.status)).toEqual([201, 201, 201]);
    expect(made[0]!.headers['ratelimit-policy']).toBe('"anonymous";q=6;w=3600, "anonymous-create";q=3;w=3600');
    expect(made.map(remaining)).toEqual([
      '"anonymous";r=5, "anonymous-create";r=2',
      '"anonymous";r=4, "anonymous-create";r=1',
      '"anonymous";r=3, "anonymous-create";r=0',
    ]);
    const refused = await generate(b, '127.0.0.2');
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(refused.body)).toMatchObject({ code: 'rate_limited', violated_policies: ['anonymous-create'] });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Reading is still served (its own budget has 2 left), then refused through either process.
    const reads = [];
    for (const p of [a, b, a]) reads.push(await call(p, '127.0.0.2', '/api/v1/domains/'));
    expect(reads.map((r) => r.status)).toEqual([200, 200, 429]);
    expect(remaining(reads[0]!)).toBe('"anonymous";r=1');
    expect(JSON.parse(reads[2]!.body)).toMatchObject({ code: 'rate_limited', violated_policies: ['anonymous'] });
    // Another address is served as before.
    expect((await generate(b, '127.0.0.3')).status).toBe(201);
  });

  it('a live stream carries the fields too (its headers are written by the route itself)', async () => {
    const { address } = JSON.parse((await generate(a, '127.0.0.40')).body) as { address: string };
    const stream = await openFrom('127.0.0.40', `${b.addresses['mail-api']}/api/v1/sse/inbox/${address}`);
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(stream.headers['ratelimit-policy']).toBe('"anonymous";q=6;w=3600');
      expect(String(stream.headers.ratelimit).replace(/;t=\d+/, '')).toBe('"anonymous";r=4');
    } finally {
      stream.close();
    }
  });

  it('a Developer account is counted per account, higher than anonymous, from any address', async () => {
    const developer = bearer(await tokenOf('dev-account', 3));
    const statuses = [];
    for (let i = 0; i < 12; i++) {
      const from = `127.0.0.${10 + (i % 3)}`; // the account's budget, whichever address it calls from
      statuses.push((await call(i % 2 ? a : b, from, '/api/v1/domains/', { headers: developer })).status);
    }
    expect(statuses).toEqual(Array(12).fill(200)); // twice what an anonymous address may
    const refused = await call(a, '127.0.0.13', '/api/v1/domains/', { headers: developer });
    expect(refused.status).toBe(429);
    expect(refused.headers['ratelimit-policy']).toBe('"developer";q=12;w=3600');
    expect(JSON.parse(refused.body)).toMatchObject({ violated_policies: ['developer'] });
    // The address it called from has its anonymous budget intact.
    expect(remaining(await call(b, '127.0.0.13', '/api/v1/domains/'))).toBe('"anonymous";r=5');
  });

  it('an account below Developer has the anonymous limits, counted per account; refused credentials count as the address', async () => {
    const free = bearer(await tokenOf('free-account', 1));
    expect(remaining(await call(a, '127.0.0.20', '/api/v1/domains/', { headers: free }))).toBe('"anonymous";r=5');
    expect(remaining(await call(b, '127.0.0.21', '/api/v1/domains/', { headers: free }))).toBe('"anonymous";r=4');
    const forged = bearer('not.a.jwt');
    expect(remaining(await call(a, '127.0.0.22', '/api/v1/domains/', { headers: forged }))).toBe('"anonymous";r=5');
  });
});

describe('the default profile (mvp)', () => {
  let p: RunningCli;
  beforeAll(async () => {
    p = await startCli(['mail-api'], { ...base, DATABASE_URL: db.url });
  });
  afterAll(async () => {
    await p?.stop();
  });

  it('limits nothing and says nothing: many anonymous and Developer requests, no 429, no RateLimit field', async () => {
    const developer = bearer(await tokenOf('mvp-dev', 3));
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        i % 3 === 0 ? generate(p, '127.0.0.30') : call(p, '127.0.0.30', '/api/v1/domains/', i % 3 === 1 ? {} : { headers: developer }),
      ),
    );
    expect(answers.filter((r) => r.status !== 200 && r.status !== 201)).toEqual([]);
    expect(answers.filter((r) => 'ratelimit' in r.headers || 'ratelimit-policy' in r.headers)).toEqual([]);
  });
});

describe('the anonymous key of an address', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['2001:db8:0:1:aaaa:bbbb:cccc:dddd', '2001:db8:0:1::/64'],
    ['2001:DB8::1', '2001:db8:0:0::/64'],
    ['2001:db8:0:1::', '2001:db8:0:1::/64'],
    ['::1', '0:0:0:0::/64'],
  ])('%s counts as %s (an IPv6 client by its /64)', (ip, key) => {
    expect(addressKey(ip)).toBe(key);
  });
});
