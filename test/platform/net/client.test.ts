// The outbound client against real local servers: what it refuses never gets a connection.
import { createServer, type Server } from 'node:http';
import type { LookupFunction } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowEverything, createOutbound, isPublicAddress, policyFor, type OutboundError } from '../../../src/platform/net/index.ts';

let server: Server;
let base: string;
let connections = 0;
const received: { method: string; url: string; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, body });
      const url = new URL(req.url!, 'http://x');
      if (url.pathname === '/ok') return res.end('hello');
      if (url.pathname === '/big') return res.end(Buffer.alloc(1024 * 1024, 97));
      if (url.pathname === '/hang') return; // never answers
      if (url.pathname === '/redirect') {
        res.writeHead(302, { location: url.searchParams.get('to')! });
        return res.end();
      }
      if (url.pathname === '/loop') {
        res.writeHead(301, { location: '/loop' });
        return res.end();
      }
      res.writeHead(404).end();
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

async function failure(promise: Promise<unknown>): Promise<OutboundError> {
  try {
    await promise;
  } catch (err) {
    return err as OutboundError;
  }
  throw new Error('expected the request to fail');
}

describe('ALLOW_PRIVATE_NETWORK', () => {
  it('selects the public-only policy unless set to true', async () => {
    const { loadConfig } = await import('../../../src/config.ts');
    expect(policyFor(loadConfig({}).allowPrivateNetwork)('127.0.0.1')).toBe(false);
    expect(policyFor(loadConfig({ ALLOW_PRIVATE_NETWORK: 'true' }).allowPrivateNetwork)('127.0.0.1')).toBe(true);
    expect(policyFor(false)).toBe(isPublicAddress);
  });
});

describe('with the public-only policy', () => {
  const client = createOutbound({ policy: policyFor(false) });
  afterAll(() => client.close());

  it.each([
    ['loopback literal', () => `${base}/ok`],
    ['a name resolving to loopback (localhost)', () => `${base.replace('127.0.0.1', 'localhost')}/ok`],
    ['IPv6 loopback', () => `${base.replace('127.0.0.1', '[::1]')}/ok`],
    ['IPv4-mapped loopback', () => `${base.replace('127.0.0.1', '[::ffff:127.0.0.1]')}/ok`],
    ['unspecified', () => `${base.replace('127.0.0.1', '0.0.0.0')}/ok`],
    ['private', () => 'http://10.20.30.40/'],
    ['cloud metadata', () => 'http://169.254.169.254/latest/meta-data/'],
    ['CGNAT', () => 'http://100.64.1.1/'],
    ['IPv6 ULA', () => 'http://[fd00::1]/'],
    ['IPv6 link-local', () => 'https://[fe80::1]/'],
    ['NAT64 of metadata', () => 'http://[64:ff9b::a9fe:a9fe]/'],
  ])('refuses %s without connecting', async (_name, url) => {
    const before = connections;
    const err = await failure(client.request(url(), { timeoutMs: 2000 }));
    expect(err.kind).toBe('refused_address');
    expect(connections).toBe(before);
  });

  it('refuses a name whose every address is refused, from a custom resolver too', async () => {
    const lookup: LookupFunction = (_host, _opts, cb) =>
      (cb as (e: null, a: unknown) => void)(null, [{ address: '192.168.7.7', family: 4 }]);
    const custom = createOutbound({ policy: isPublicAddress, lookup });
    const err = await failure(custom.request('http://intranet.example.com/', { timeoutMs: 2000 }));
    expect(err.kind).toBe('refused_address');
    expect(err.message).toContain('192.168.7.7');
    await custom.close();
  });

  it('refuses non-http(s) URLs', async () => {
    expect((await failure(client.request('file:///etc/passwd', { timeoutMs: 1000 }))).kind).toBe('invalid_url');
  });
});

describe('redirects', () => {
  // Only this test server's address counts as allowed, standing in for one public host.
  const client = createOutbound({ policy: (a) => a === '127.0.0.1' || a === '::ffff:127.0.0.1' });
  afterAll(() => client.close());

  it('checks every hop: a redirect to a private address is refused', async () => {
    const err = await failure(
      client.request(`${base}/redirect?to=${encodeURIComponent('http://10.9.8.7/admin')}`, { timeoutMs: 2000, maxRedirects: 5 }),
    );
    expect(err.kind).toBe('refused_address');
    expect(err.chain).toEqual([{ url: `${base}/redirect?to=${encodeURIComponent('http://10.9.8.7/admin')}`, status: 302 }]);
  });

  it('a redirect to a name that resolves to a private address is refused', async () => {
    const lookup: LookupFunction = (_host, _opts, cb) =>
      (cb as (e: null, a: unknown) => void)(null, [{ address: '192.168.5.5', family: 4 }]);
    const custom = createOutbound({ policy: (a) => a === '127.0.0.1', lookup });
    const err = await failure(custom.request(`${base}/redirect?to=http://router.internal.test/`, { timeoutMs: 2000, maxRedirects: 5 }));
    expect(err.kind).toBe('refused_address');
    expect(err.chain).toHaveLength(1);
    await custom.close();
  });

  it('follows allowed redirects up to the limit and records the chain', async () => {
    const res = await client.request(`${base}/redirect?to=/ok`, { timeoutMs: 2000, maxRedirects: 5 });
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('hello');
    expect(res.chain.map((h) => h.status)).toEqual([302]);
    expect(res.url).toBe(`${base}/ok`);
    expect((await failure(client.request(`${base}/loop`, { timeoutMs: 2000, maxRedirects: 5 }))).kind).toBe('too_many_redirects');
  });

  it('does not follow redirects unless asked (webhooks)', async () => {
    const res = await client.request(`${base}/redirect?to=/ok`, { timeoutMs: 2000 });
    expect(res.status).toBe(302);
  });
});

describe('with ALLOW_PRIVATE_NETWORK (allow everything)', () => {
  const client = createOutbound({ policy: allowEverything });
  afterAll(() => client.close());

  it('reaches loopback and sends the exact body', async () => {
    const body = Buffer.from('{"ü":"✓"}');
    const res = await client.request(`${base}/ok`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
      timeoutMs: 2000,
    });
    expect(res.status).toBe(200);
    expect(received.at(-1)).toEqual({ method: 'POST', url: '/ok', body: '{"ü":"✓"}' });
    expect(res.firstByteMs).toBeGreaterThanOrEqual(0);
  });

  it('reads at most 64 KiB of a response body', async () => {
    const res = await client.request(`${base}/big`, { timeoutMs: 5000 });
    expect(res.body.length).toBe(64 * 1024);
    expect(res.truncated).toBe(true);
  });

  it('classifies a hanging server as a timeout', async () => {
    expect((await failure(client.request(`${base}/hang`, { timeoutMs: 300 }))).kind).toBe('timeout');
  });

  it('classifies a closed port as a connect failure', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    expect((await failure(client.request(`http://127.0.0.1:${port}/`, { timeoutMs: 2000 }))).kind).toBe('connect');
  });

  it('classifies an unresolvable name as dns', async () => {
    const lookup: LookupFunction = (host, _opts, cb) =>
      (cb as (e: Error) => void)(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }));
    const custom = createOutbound({ policy: allowEverything, lookup });
    expect((await failure(custom.request('http://no-such-name.invalid/', { timeoutMs: 2000 }))).kind).toBe('dns');
    await custom.close();
  });
});
