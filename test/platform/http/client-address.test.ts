// Who is calling (TRUSTED_PROXIES): request.ip is the socket's peer, and X-Forwarded-For names the client only
// when that peer is a trusted proxy, walked from the right past every trusted hop. Clients are played by
// distinct loopback addresses, so the server sees each one on the socket.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { getFrom } from '../../helpers/from-address.ts';
import { bareApp, serve, type Served } from '../../helpers/http.ts';
import { loadConfig, ConfigError } from '../../../src/config.ts';
import { normaliseAddress } from '../../../src/platform/http/index.ts';

let db: TestDatabase;
const served: Served[] = [];

/** An app whose one route answers with request.ip, trusting `trustedProxies`. */
async function whoAmI(trustedProxies: string[]): Promise<string> {
  const app = await bareApp({
    pool: db.pool,
    limits: { requestTimeoutMs: 30_000, maxConnections: 100, trustedProxies },
    routes: async (app) => {
      app.get('/ip', async (request) => ({ ip: request.ip }));
    },
  });
  const s = await serve(app);
  served.push(s);
  return `${s.url}/ip`;
}

async function ipSeen(url: string, from: string, forwardedFor?: string): Promise<string> {
  const answer = await getFrom(from, url, forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor });
  expect(answer.status).toBe(200);
  return (JSON.parse(answer.body) as { ip: string }).ip;
}

beforeAll(async () => {
  db = await createTestDatabase({ empty: true });
});
afterAll(async () => {
  await Promise.all(served.map((s) => s.close()));
  await db.pool.end();
});

describe('the client address of a request', () => {
  it('is the socket peer by default: a spoofed X-Forwarded-For is ignored', async () => {
    const url = await whoAmI([]);
    expect(await ipSeen(url, '127.0.0.2')).toBe('127.0.0.2');
    expect(await ipSeen(url, '127.0.0.2', '203.0.113.9')).toBe('127.0.0.2');
    expect(await ipSeen(url, '127.0.0.3', '203.0.113.9, 127.0.0.5')).toBe('127.0.0.3');
  });

  it('ignores X-Forwarded-For from a peer that is not in TRUSTED_PROXIES', async () => {
    const url = await whoAmI(['127.0.0.10', '127.0.1.0/24']);
    expect(await ipSeen(url, '127.0.0.2', '203.0.113.9')).toBe('127.0.0.2');
  });

  it('honours X-Forwarded-For from a trusted peer: the right-most address that is not a trusted proxy', async () => {
    const url = await whoAmI(['127.0.0.10', '127.0.1.0/24']);
    expect(await ipSeen(url, '127.0.0.10', '203.0.113.9')).toBe('203.0.113.9');
    // A client's own spoofed entry sits left of what the proxies appended: the walk stops before it.
    expect(await ipSeen(url, '127.0.0.10', '198.51.100.1, 203.0.113.9')).toBe('203.0.113.9');
    // Trusted hops (a chain of proxies) are walked past.
    expect(await ipSeen(url, '127.0.1.7', '198.51.100.1, 203.0.113.9, 127.0.0.10')).toBe('203.0.113.9');
    // A trusted proxy that forwards nothing: the proxy is the client.
    expect(await ipSeen(url, '127.0.0.10')).toBe('127.0.0.10');
    // IPv4-mapped IPv6 in the chain is the IPv4 address.
    expect(await ipSeen(url, '127.0.0.10', '::ffff:203.0.113.7')).toBe('203.0.113.7');
  });
});

describe('TRUSTED_PROXIES', () => {
  it('takes addresses and CIDRs, nobody when unset, and refuses anything else naming the setting', () => {
    expect(loadConfig({}).http.trustedProxies).toEqual([]);
    expect(loadConfig({ TRUSTED_PROXIES: '10.0.0.0/8, 192.168.1.7,fd00::/8' }).http.trustedProxies).toEqual([
      '10.0.0.0/8',
      '192.168.1.7',
      'fd00::/8',
    ]);
    for (const bad of ['10.0.0.0/33', 'proxy.internal', '10.0.0.1/8/2', '*']) {
      expect(() => loadConfig({ TRUSTED_PROXIES: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ TRUSTED_PROXIES: bad })).toThrow(/TRUSTED_PROXIES/);
    }
  });

  it('an IPv4 client of a dual-stack listener is its IPv4 address, not ::ffff:a.b.c.d', async () => {
    const app = await bareApp({
      pool: db.pool,
      routes: async (app) => {
        app.get('/ip', async (request) => ({ ip: request.ip, peer: request.socket.remoteAddress }));
      },
    });
    const url = await app.listen({ host: '::', port: 0 });
    served.push({ app, url, close: () => app.close() });
    const port = new URL(url).port;
    const answer = await getFrom('127.0.0.4', `http://127.0.0.1:${port}/ip`);
    expect(JSON.parse(answer.body)).toEqual({ ip: '127.0.0.4', peer: '::ffff:127.0.0.4' });
  });

  it('IPv4-mapped IPv6 addresses are given as IPv4', () => {
    expect(normaliseAddress('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(normaliseAddress('::FFFF:192.0.2.1')).toBe('192.0.2.1');
    expect(normaliseAddress('2001:db8::1')).toBe('2001:db8::1');
    expect(normaliseAddress('192.0.2.1')).toBe('192.0.2.1');
  });
});
