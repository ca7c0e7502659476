// The seokicks adapter against its fake (src/dev/fakes/seokicks.ts): mapping, request shape, fault classes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSeokicksFake } from '../../../src/dev/fakes/seokicks.ts';
import type { Fake } from '../../../src/dev/fakes/server.ts';
import { allowEverything, createOutbound } from '../../../src/platform/net/index.ts';
import { seokicksAdapter } from '../../../src/jobs/sources/seokicks.ts';
import type { Outcome } from '../../../src/jobs/sources/source.ts';

let fake: Fake;
// The provider client, as roles.ts builds it.
const http = createOutbound({ policy: allowEverything });
const KEY = 'sk-test-123';
const fetchOne = async (domain: string, settings = { apiKey: KEY as string | undefined, baseUrl: fake.url }): Promise<Outcome> =>
  (await seokicksAdapter(settings, http).fetch([domain], { signal: new AbortController().signal, permit: async () => undefined }))[0]!;

beforeAll(async () => {
  fake = await startSeokicksFake({ apiKey: KEY });
});
afterAll(async () => {
  await fake.close();
  await http.close();
});

describe('seokicks adapter', () => {
  it('maps the overview (strings of digits) to integer columns and keeps the whole body in raw', async () => {
    const outcome = await fetchOne('example.com');
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    const raw = outcome.raw as { Overview: Record<string, string>; Results: unknown[] };
    expect(outcome.columns).toEqual({
      linkpop: Number(raw.Overview.linkpop),
      domainpop: Number(raw.Overview.domainpop),
      ip_pop: Number(raw.Overview.ippop),
      classc_pop: Number(raw.Overview.netpop),
    });
    expect(Object.values(outcome.columns).every((v) => Number.isInteger(v))).toBe(true);
    expect(raw.Results).toHaveLength(50);
  });

  it('sends the key as appid with the documented parameters', async () => {
    await fetchOne('params.example.com');
    const req = fake.requests.at(-1)!;
    expect(req.method).toBe('GET');
    expect(req.path).toBe('/SEOkicksService/V1/inlinkData');
    expect(Object.fromEntries(req.query)).toEqual({ appid: KEY, query: 'params.example.com', details: '2', results: '50', output: 'json' });
  });

  it.each([
    ['auth-fail.example.com', 'upstream_auth', false],
    ['quota.example.com', 'upstream_quota', false],
    ['credits.example.com', 'upstream_quota', false],
    ['ratelimit.example.com', 'upstream_rate_limited', true],
    ['malformed.example.com', 'upstream_bad_response', false],
    ['garbage.example.com', 'upstream_bad_response', false],
  ])('%s → %s (transient: %s)', async (domain, code, transient) => {
    const outcome = await fetchOne(domain);
    expect(outcome).toMatchObject({ ok: false, code });
    expect(!outcome.ok && outcome.transient !== undefined).toBe(transient);
    expect(!outcome.ok && outcome.raw).toBeTruthy();
  });

  it('honours Retry-After on 429', async () => {
    const outcome = await fetchOne('ratelimit.two.example.com');
    expect(!outcome.ok && outcome.transient?.retryAfterMs).toBe(1000);
  });

  it('a 500 is transient, and the next try succeeds', async () => {
    expect(await fetchOne('flaky.example.com')).toMatchObject({ ok: false, code: 'upstream_unavailable', transient: {} });
    expect(await fetchOne('flaky.example.com')).toMatchObject({ ok: true });
  });

  it('a wrong key is upstream_auth; no key is source_not_configured without any request', async () => {
    expect(await fetchOne('example.org', { apiKey: 'wrong', baseUrl: fake.url })).toMatchObject({ ok: false, code: 'upstream_auth' });
    const before = fake.requests.length;
    expect(await fetchOne('example.org', { apiKey: undefined, baseUrl: fake.url })).toMatchObject({
      ok: false,
      code: 'source_not_configured',
    });
    expect(fake.requests.length).toBe(before);
  });

  it('an unreachable service is a transient upstream_unavailable', async () => {
    const outcome = await fetchOne('example.com', { apiKey: KEY, baseUrl: 'http://127.0.0.1:9' });
    expect(outcome).toMatchObject({ ok: false, code: 'upstream_unavailable', transient: {} });
  });
});
