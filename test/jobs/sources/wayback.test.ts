// The wayback adapter against its fake (src/dev/fakes/wayback.ts): paging by resume key, counts, faults.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fake } from '../../../src/dev/fakes/server.ts';
import { allowEverything, createOutbound } from '../../../src/platform/net/index.ts';
import { captureTimestamp, startWaybackFake } from '../../../src/dev/fakes/wayback.ts';
import type { Outcome } from '../../../src/jobs/sources/source.ts';
import { waybackAdapter } from '../../../src/jobs/sources/wayback.ts';

let fake: Fake;
// The provider client, as roles.ts builds it.
const http = createOutbound({ policy: allowEverything });
let permits = 0;
const ctx = {
  signal: new AbortController().signal,
  permit: async () => {
    permits++;
  },
};
const fetchOne = async (d: string, baseUrl = fake.url): Promise<Outcome> => (await waybackAdapter({ baseUrl }, http).fetch([d], ctx))[0]!;
const iso = (stamp: string) =>
  `${stamp.slice(0, 4)}-${stamp.slice(4, 6)}-${stamp.slice(6, 8)}T${stamp.slice(8, 10)}:${stamp.slice(10, 12)}:${stamp.slice(12, 14)}.000Z`;

beforeAll(async () => {
  fake = await startWaybackFake({ pageSize: 1000 });
});
afterAll(async () => {
  await fake.close();
  await http.close();
});

describe('wayback adapter', () => {
  it('counts 2,345 captures over three resume-key pages, with the first and last timestamps', async () => {
    const before = fake.requests.length;
    permits = 0;
    const o = await fetchOne('captures-2345.example.com');
    const reqs = fake.requests.slice(before);
    expect(reqs).toHaveLength(3);
    expect(permits).toBe(3);
    expect(Object.fromEntries(reqs[0]!.query)).toEqual({
      url: 'captures-2345.example.com',
      output: 'json',
      fl: 'timestamp,statuscode',
      gzip: 'false',
      limit: '5000',
      showResumeKey: 'true',
    });
    expect(reqs.map((r) => r.query.get('resumeKey'))).toEqual([null, '1000', '2000']);
    expect(o).toMatchObject({
      ok: true,
      columns: { snapshot_count: 2345, first_snapshot_at: iso(captureTimestamp(0)), last_snapshot_at: iso(captureTimestamp(2344)) },
    });
    if (o.ok) expect((o.raw as { pages: { captures: number }[] }).pages.map((p) => p.captures)).toEqual([1000, 1000, 345]);
    expect(Math.max(...reqs.map((r) => r.concurrent))).toBe(1);
  });

  it('no capture ([]) is a count of 0 with null timestamps', async () => {
    expect(await fetchOne('nodata.example.com')).toMatchObject({
      ok: true,
      columns: { snapshot_count: 0, first_snapshot_at: null, last_snapshot_at: null },
    });
  });

  it.each([
    ['ratelimit.example.com', 'upstream_rate_limited', true],
    ['malformed.example.com', 'upstream_bad_response', false],
    ['garbage.example.com', 'upstream_bad_response', false],
  ])('%s → %s (transient: %s)', async (domain, code, transient) => {
    const o = await fetchOne(domain);
    expect(o).toMatchObject({ ok: false, code });
    expect(!o.ok && o.transient !== undefined).toBe(transient);
  });

  it('429 honours Retry-After; 500 is transient then succeeds', async () => {
    expect(await fetchOne('ratelimit.b.example.com')).toMatchObject({ transient: { retryAfterMs: 1000 } });
    expect(await fetchOne('flaky.example.com')).toMatchObject({ ok: false, code: 'upstream_unavailable', transient: {} });
    expect(await fetchOne('flaky.example.com')).toMatchObject({ ok: true });
  });

  it('a refused connection holds the source for a minute (treated as blocked)', async () => {
    expect(await fetchOne('example.com', 'http://127.0.0.1:9')).toMatchObject({
      ok: false,
      code: 'upstream_unavailable',
      transient: { retryAfterMs: 60_000 },
    });
  });
});
