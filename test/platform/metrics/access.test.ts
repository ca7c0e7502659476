// Who may read /metrics: the METRICS_ALLOW rule on its own (every form of address a peer or a proxy writes),
// then over real sockets on an app of the platform: loopback in, a forwarded outside client out (403 problem),
// `none`, `all`, a CIDR list, and the route kept out of the OpenAPI document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/platform/log.ts';
import { isMetricsClientAllowed, parseMetricsAllow, PRIVATE_NETWORKS, type MetricsAccess } from '../../../src/platform/metrics/index.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { bareApp, problemOf, serve, type Served } from '../../helpers/http.ts';

function rule(text: string): MetricsAccess {
  const parsed = parseMetricsAllow(text);
  if ('problem' in parsed) throw new Error(parsed.problem);
  return parsed.value;
}

const allowed = (access: MetricsAccess, peer: string | undefined, headers: Record<string, string[]> = {}) =>
  isMetricsClientAllowed(access, peer, headers);

describe('the access rule', () => {
  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '::1',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    'fd12:3456::1',
    'fc00::1',
    'fe80::1',
    'fe80::1%eth0',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:192.168.0.9',
  ])('private lets %s in', (peer) => {
    expect(allowed(PRIVATE_NETWORKS, peer)).toBe(true);
  });

  it.each([
    '203.0.113.9',
    '8.8.8.8',
    '172.32.0.1',
    '100.64.0.1',
    '2001:db8::1',
    '::ffff:203.0.113.9',
    '0.0.0.0',
    '::',
    '64:ff9b::a00:1',
    'nonsense',
  ])('private keeps %s out', (peer) => {
    expect(allowed(PRIVATE_NETWORKS, peer)).toBe(false);
  });

  it('keeps a request out when any client named by Forwarded, X-Forwarded-For or X-Real-IP fails, or cannot be read', () => {
    const ok = (headers: Record<string, string[]>) => allowed(PRIVATE_NETWORKS, '127.0.0.1', headers);
    expect(ok({ 'x-forwarded-for': ['10.0.0.1, 192.168.1.2'] })).toBe(true);
    expect(ok({ 'x-forwarded-for': ['10.0.0.1, 203.0.113.9'] })).toBe(false);
    expect(ok({ 'x-forwarded-for': ['10.0.0.1', '203.0.113.9'] })).toBe(false);
    expect(ok({ 'x-forwarded-for': ['10.0.0.1:4711, [fd00::1]:80, fd00::2'] })).toBe(true);
    expect(ok({ 'x-forwarded-for': ['unknown'] })).toBe(false);
    expect(ok({ 'x-forwarded-for': ['127.1'] })).toBe(false);
    expect(ok({ 'x-real-ip': ['192.168.0.7'] })).toBe(true);
    expect(ok({ 'x-real-ip': ['198.51.100.1'] })).toBe(false);
    expect(ok({ forwarded: ['for=10.0.0.1;proto=https, for="[fd00::5]:8443"'] })).toBe(true);
    expect(ok({ forwarded: ['for=10.0.0.1, for=203.0.113.9'] })).toBe(false);
    expect(ok({ forwarded: ['For="203.0.113.9:1234"'] })).toBe(false);
    expect(ok({ forwarded: ['for=unknown'] })).toBe(false);
    expect(ok({ forwarded: ['for=_hidden'] })).toBe(false);
    expect(ok({ forwarded: ['garbage'] })).toBe(false);
    expect(ok({ forwarded: ['proto=https;host=example.com'] })).toBe(true);
    // The headers only narrow: they never let in a peer the rule keeps out.
    expect(allowed(PRIVATE_NETWORKS, '203.0.113.9', { 'x-forwarded-for': ['127.0.0.1'] })).toBe(false);
    expect(allowed(PRIVATE_NETWORKS, undefined)).toBe(false);
  });

  it('reads all, none and CIDR lists (with private among them, bare addresses, IPv4-mapped CIDRs)', () => {
    expect(allowed(rule('all'), '203.0.113.9', { 'x-forwarded-for': ['garbage'] })).toBe(true);
    expect(allowed(rule(' NONE '), '127.0.0.1')).toBe(false);
    const list = rule('192.0.2.0/24, 2001:db8::/32,198.51.100.7');
    expect(allowed(list, '192.0.2.200')).toBe(true);
    expect(allowed(list, '::ffff:192.0.2.1')).toBe(true);
    expect(allowed(list, '2001:db8:1::1')).toBe(true);
    expect(allowed(list, '198.51.100.7')).toBe(true);
    expect(allowed(list, '198.51.100.8')).toBe(false);
    expect(allowed(list, '127.0.0.1')).toBe(false);
    expect(allowed(rule('private,100.64.0.0/10'), '100.64.1.1')).toBe(true);
    expect(allowed(rule('private,100.64.0.0/10'), '10.0.0.1')).toBe(true);
    expect(allowed(rule('::ffff:10.0.0.0/104'), '10.9.9.9')).toBe(true);
  });

  it.each(['', ',', 'some', '10.0.0.0/33', '10.0.0/8', 'fd00::/129', '10.0.0.0/', '10.0.0.0/8,all', 'localhost'])('refuses %j', (text) => {
    expect(parseMetricsAllow(text)).toHaveProperty('problem');
  });
});

describe('/metrics on an app', () => {
  let db: TestDatabase;
  const served: Record<string, Served> = {};
  const log = createLogger({ level: 'silent' });

  beforeAll(async () => {
    db = await createTestDatabase();
    for (const [name, access] of Object.entries({
      private: PRIVATE_NETWORKS,
      none: rule('none'),
      all: rule('all'),
      outside: rule('10.0.0.0/8'),
      loopback: rule('127.0.0.0/8,::1'),
    })) {
      const app = await bareApp({ log, pool: db.pool, metricsAccess: access });
      served[name] = await serve(app);
    }
  });
  afterAll(async () => {
    await Promise.all(Object.values(served).map((s) => s.close()));
    await db?.pool.end();
  });

  const scrape = (name: string, headers: Record<string, string> = {}) => fetch(`${served[name]!.url}/metrics`, { headers });

  it('serves loopback clients by default, as Prometheus text', async () => {
    const res = await scrape('private');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await res.text()).toContain('# TYPE domainkit_http_requests_total counter');
  });

  it('refuses, with a 403 problem, a loopback proxy that forwards an outside client', async () => {
    const forwarded: Record<string, string>[] = [
      { 'x-forwarded-for': '203.0.113.9' },
      { forwarded: 'for=203.0.113.9' },
      { 'x-real-ip': '203.0.113.9' },
      { 'x-forwarded-for': 'not-an-address' },
    ];
    for (const headers of forwarded) {
      const res = await scrape('private', headers);
      expect(res.status).toBe(403);
      expect((await problemOf(res)).code).toBe('forbidden');
    }
    expect((await scrape('private', { 'x-forwarded-for': '10.1.2.3' })).status).toBe(200);
  });

  it('METRICS_ALLOW=none refuses everyone, all lets everyone in, a CIDR list only its ranges', async () => {
    expect((await scrape('none')).status).toBe(403);
    expect((await scrape('all', { 'x-forwarded-for': '203.0.113.9' })).status).toBe(200);
    expect((await scrape('outside')).status).toBe(403);
    expect((await scrape('loopback')).status).toBe(200);
    expect((await scrape('loopback', { 'x-forwarded-for': '10.0.0.1' })).status).toBe(403);
  });

  it('is left out of the OpenAPI document', async () => {
    const doc = (await (await fetch(`${served.private!.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).not.toContain('/metrics');
    expect(Object.keys(doc.paths)).toContain('/healthz');
  });
});
