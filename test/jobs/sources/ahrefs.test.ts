// The two Ahrefs adapters against their fake (src/dev/fakes/ahrefs.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAhrefsFake } from '../../../src/dev/fakes/ahrefs.ts';
import type { Fake } from '../../../src/dev/fakes/server.ts';
import { allowEverything, createOutbound } from '../../../src/platform/net/index.ts';
import { ahrefsBacklinksAdapter, ahrefsTrafficAdapter } from '../../../src/jobs/sources/ahrefs.ts';
import type { Outcome } from '../../../src/jobs/sources/source.ts';

let fake: Fake;
// The provider client, as roles.ts builds it.
const http = createOutbound({ policy: allowEverything });
const KEY = 'ahrefs-key-1';
const ctx = { signal: new AbortController().signal, permit: async () => undefined };
/** `null` for no key at all. */
const settings = (apiKey: string | null = KEY) => ({ apiKey: apiKey ?? undefined, baseUrl: `${fake.url}/v3` });
const backlinks = async (d: string, apiKey?: string | null): Promise<Outcome> =>
  (await ahrefsBacklinksAdapter(settings(apiKey), http).fetch([d], ctx))[0]!;
const traffic = async (d: string, apiKey?: string | null): Promise<Outcome> =>
  (await ahrefsTrafficAdapter(settings(apiKey), http).fetch([d], ctx))[0]!;
const today = () => new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  fake = await startAhrefsFake({ apiKey: KEY });
});
afterAll(async () => {
  await fake.close();
  await http.close();
});

describe('ahrefs_backlinks adapter', () => {
  it('posts the batch-analysis request with Bearer auth and date, and maps DR, backlinks, ref domains, dofollow %', async () => {
    const o = await backlinks('example.com');
    const req = fake.requests.at(-1)!;
    expect(req).toMatchObject({ method: 'POST', path: '/v3/batch-analysis/batch-analysis' });
    expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req.query.get('date')).toBe(today());
    expect(JSON.parse(req.body)).toEqual({
      select: ['domain_rating', 'backlinks', 'backlinks_dofollow', 'refdomains'],
      targets: [{ url: 'example.com', mode: 'subdomains', protocol: 'both' }],
    });
    expect(o.ok).toBe(true);
    if (!o.ok) return;
    const t = (o.raw as { targets: Record<string, number>[] }).targets[0]!;
    expect(o.columns).toEqual({
      domain_rating: t.domain_rating,
      backlinks: t.backlinks,
      ref_domains: t.refdomains,
      dofollow_pct: Math.round((10_000 * t.backlinks_dofollow!) / t.backlinks!) / 100,
    });
    expect(o.columns.dofollow_pct as number).toBeGreaterThanOrEqual(0);
    expect(o.columns.dofollow_pct as number).toBeLessThanOrEqual(100);
  });

  it('dofollow_pct is null when there are no backlinks', async () => {
    expect(await backlinks('zero.example.com')).toMatchObject({ ok: true, columns: { backlinks: 0, dofollow_pct: null } });
  });

  it.each([
    ['auth-fail.example.com', 'upstream_auth', false],
    ['quota.example.com', 'upstream_quota', false],
    ['nodata.example.com', 'upstream_no_data', false],
    ['ratelimit.example.com', 'upstream_rate_limited', true],
    ['malformed.example.com', 'upstream_bad_response', false],
    ['garbage.example.com', 'upstream_bad_response', false],
  ])('%s → %s (transient: %s)', async (domain, code, transient) => {
    const o = await backlinks(domain);
    expect(o).toMatchObject({ ok: false, code });
    expect(!o.ok && o.transient !== undefined).toBe(transient);
  });

  it('429 carries Retry-After; 500 is transient and then succeeds', async () => {
    expect(await backlinks('ratelimit.x.example.com')).toMatchObject({ transient: { retryAfterMs: 1000 } });
    expect(await backlinks('flaky.example.com')).toMatchObject({ ok: false, code: 'upstream_unavailable', transient: {} });
    expect(await backlinks('flaky.example.com')).toMatchObject({ ok: true });
  });

  it('a wrong key is upstream_auth; no key is source_not_configured without any request', async () => {
    expect(await backlinks('a.example.com', 'wrong')).toMatchObject({ ok: false, code: 'upstream_auth' });
    const before = fake.requests.length;
    expect(await backlinks('a.example.com', null)).toMatchObject({ ok: false, code: 'source_not_configured' });
    expect(fake.requests.length).toBe(before);
  });
});

describe('ahrefs_traffic adapter', () => {
  it('reads metrics (cents → dollars), then top keywords and top pages into raw, each with the date', async () => {
    const before = fake.requests.length;
    const o = await traffic('example.org');
    const reqs = fake.requests.slice(before);
    expect(reqs.map((r) => r.path)).toEqual([
      '/v3/site-explorer/metrics',
      '/v3/site-explorer/organic-keywords',
      '/v3/site-explorer/top-pages',
    ]);
    expect(reqs.every((r) => r.query.get('date') === today() && r.query.get('target') === 'example.org')).toBe(true);
    expect(reqs[0]!.query.get('mode')).toBe('subdomains');
    expect(Object.fromEntries(reqs[1]!.query)).toMatchObject({
      select: 'keyword,volume,best_position,sum_traffic',
      order_by: 'sum_traffic:desc',
      limit: '10',
    });
    expect(Object.fromEntries(reqs[2]!.query)).toMatchObject({
      select: 'url,sum_traffic,keywords',
      order_by: 'sum_traffic:desc',
      limit: '10',
    });
    expect(o.ok).toBe(true);
    if (!o.ok) return;
    const raw = o.raw as {
      metrics: { metrics: { org_traffic: number; org_cost: number } };
      keywords: { keywords: unknown[] };
      pages: { pages: unknown[] };
    };
    expect(o.columns).toEqual({ organic_traffic: raw.metrics.metrics.org_traffic, traffic_value: raw.metrics.metrics.org_cost / 100 });
    expect(raw.keywords.keywords).toHaveLength(10);
    expect(raw.pages.pages).toHaveLength(10);
  });

  it.each([
    ['auth-fail.example.org', 'upstream_auth'],
    ['quota.example.org', 'upstream_quota'],
    ['nodata.example.org', 'upstream_no_data'],
    ['ratelimit.example.org', 'upstream_rate_limited'],
    ['malformed.example.org', 'upstream_bad_response'],
  ])('%s → %s', async (domain, code) => {
    expect(await traffic(domain)).toMatchObject({ ok: false, code });
  });

  it('no key is source_not_configured without any request', async () => {
    const before = fake.requests.length;
    expect(await traffic('a.example.org', null)).toMatchObject({ ok: false, code: 'source_not_configured' });
    expect(fake.requests.length).toBe(before);
  });
});
