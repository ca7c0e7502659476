// The moz adapter against its fake (src/dev/fakes/moz.ts): batches, auth, mapping, name checks, faults.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMozFake } from '../../../src/dev/fakes/moz.ts';
import type { Fake } from '../../../src/dev/fakes/server.ts';
import { allowEverything, createOutbound } from '../../../src/platform/net/index.ts';
import { mozAdapter } from '../../../src/jobs/sources/moz.ts';
import type { Outcome } from '../../../src/jobs/sources/source.ts';

let fake: Fake;
// The provider client, as roles.ts builds it.
const http = createOutbound({ policy: allowEverything });
const TOKEN = 'moz-token-xyz';
const ctx = { signal: new AbortController().signal, permit: async () => undefined };
type Settings = Parameters<typeof mozAdapter>[0];
const settings = (over: Partial<Settings> = {}): Settings => ({
  token: TOKEN,
  accessId: undefined,
  secretKey: undefined,
  baseUrl: fake.url,
  ...over,
});
const fetchAll = (domains: string[], over: Partial<Settings> = {}): Promise<Outcome[]> =>
  mozAdapter(settings(over), http).fetch(domains, ctx);

beforeAll(async () => {
  fake = await startMozFake({ token: TOKEN, accessId: 'mozscape-abc', secretKey: 's3cret' });
});
afterAll(async () => {
  await fake.close();
  await http.close();
});

describe('moz adapter', () => {
  it('sends one POST for a batch, with the token header, and maps each result by request order', async () => {
    const domains = Array.from({ length: 10 }, (_, i) => `d${i}.example.com`);
    const outcomes = await fetchAll(domains);
    const req = fake.requests.at(-1)!;
    expect(req).toMatchObject({ method: 'POST', path: '/v2/url_metrics' });
    expect(req.headers['x-moz-token']).toBe(TOKEN);
    expect(JSON.parse(req.body)).toEqual({ targets: domains });
    outcomes.forEach((o, i) => {
      expect(o.ok).toBe(true);
      if (!o.ok) return;
      const r = (o.raw as { result: Record<string, number | string> }).result;
      expect(r.subdomain).toBe(domains[i]);
      expect(o.columns).toEqual({
        domain_authority: r.domain_authority,
        page_authority: r.page_authority,
        spam_score: r.spam_score,
        linking_domains: r.root_domains_to_root_domain,
        inbound_links: r.external_pages_to_root_domain,
      });
    });
  });

  it('supports HTTP Basic with access id and secret key', async () => {
    const [o] = await fetchAll(['basic.example.com'], { token: undefined, accessId: 'mozscape-abc', secretKey: 's3cret' });
    expect(o!.ok).toBe(true);
    expect(fake.requests.at(-1)!.headers.authorization).toBe(`Basic ${Buffer.from('mozscape-abc:s3cret').toString('base64')}`);
  });

  it('stores spam_score -1 (unknown) as null', async () => {
    const [o] = await fetchAll(['nodata.example.com']);
    expect(o).toMatchObject({ ok: true, columns: { spam_score: null, domain_authority: 1, linking_domains: 0 } });
  });

  it('catches results that do not name their target (reordered answer)', async () => {
    const outcomes = await fetchAll(['mismatch.example.com', 'other.example.com']);
    expect(outcomes.every((o) => !o.ok && o.code === 'upstream_bad_response')).toBe(true);
  });

  it.each([
    ['auth-fail.example.com', 'upstream_auth', false],
    ['quota.example.com', 'upstream_quota', false],
    ['ratelimit.example.com', 'upstream_rate_limited', true],
    ['malformed.example.com', 'upstream_bad_response', false],
    ['garbage.example.com', 'upstream_bad_response', false],
  ])('a batch with %s fails whole: %s (transient: %s)', async (bad, code, transient) => {
    const outcomes = await fetchAll(['fine.example.com', bad]);
    expect(outcomes).toHaveLength(2);
    for (const o of outcomes) {
      expect(o).toMatchObject({ ok: false, code });
      expect(!o.ok && o.transient !== undefined).toBe(transient);
    }
  });

  it('a 500 is transient and the retry succeeds', async () => {
    expect((await fetchAll(['flaky.example.com']))[0]).toMatchObject({ ok: false, code: 'upstream_unavailable', transient: {} });
    expect((await fetchAll(['flaky.example.com']))[0]).toMatchObject({ ok: true });
  });

  it('a wrong token is upstream_auth; no credentials is source_not_configured without any request', async () => {
    expect((await fetchAll(['a.example.com'], { token: 'nope' }))[0]).toMatchObject({ ok: false, code: 'upstream_auth' });
    const before = fake.requests.length;
    const outcomes = await fetchAll(['a.example.com', 'b.example.com'], { token: undefined });
    expect(outcomes.every((o) => !o.ok && o.code === 'source_not_configured')).toBe(true);
    expect(fake.requests.length).toBe(before);
  });
});
