// seokicks: GET {base}/SEOkicksService/V1/inlinkData with the key as `appid` (docs/providers.md). The four counts
// arrive as strings of digits; the body is JSON whatever its Content-Type says.
import { Type } from 'typebox';
import type { Outbound } from '../../platform/net/index.ts';
import { requestCost, unbilled, type Price, type Spend } from './cost.ts';
import type { SourceDescriptor } from './descriptor.ts';
import type { Outcome, SourceAdapter } from './source.ts';
import { byStatus, call, digits, fail, isFailure, parseBody } from './upstream.ts';

const Reply = Type.Object({
  Overview: Type.Object({ linkpop: Type.Unknown(), domainpop: Type.Unknown(), ippop: Type.Unknown(), netpop: Type.Unknown() }),
  Results: Type.Optional(Type.Array(Type.Unknown())),
});

/**
 * SEOkicks sells credits and does not say in an answer what it took; we count one credit per answered query
 * (docs/providers.md, "Cost"), none for an answer saying the key or the credits are the problem.
 */
const PRICE: Price = { unit: 'seokicks_credits', price: { units: 1, per: 'request' } };

interface SeokicksSettings {
  apiKey: string | undefined;
  baseUrl: string;
}

export const seokicks: SourceDescriptor<SeokicksSettings> = {
  name: 'seokicks',
  provider: 'seokicks',
  batchSize: 1,
  columns: [
    { name: 'linkpop', type: 'bigint' },
    { name: 'domainpop', type: 'bigint' },
    { name: 'ip_pop', type: 'bigint' },
    { name: 'classc_pop', type: 'bigint' },
  ],
  // SEOkicks publishes no rate; two requests at most in flight.
  defaults: { concurrency: 2, rate: 0 },
  billing: { ...PRICE, requests: { count: 1, per: 'domain' } },
  readSettings: (read) => ({
    apiKey: read.secret('SEOKICKS_API_KEY'),
    baseUrl: read.url('SEOKICKS_BASE_URL', 'https://en.seokicks.de'),
  }),
  createAdapter: (settings, deps) => seokicksAdapter(settings, deps.providerHttp),
};

export function seokicksAdapter(settings: SeokicksSettings, http: Outbound): SourceAdapter {
  async function one(domain: string, permit: () => Promise<void>, signal: AbortSignal): Promise<Outcome> {
    if (!settings.apiKey) return fail('source_not_configured', 'SEOKICKS_API_KEY is not set');
    const url = new URL('/SEOkicksService/V1/inlinkData', settings.baseUrl);
    url.search = new URLSearchParams({ appid: settings.apiKey, query: domain, details: '2', results: '50', output: 'json' }).toString();
    await permit();
    const res = await call(http, url.toString(), { signal });
    const spend: Spend = requestCost(PRICE, isFailure(res) ? undefined : res);
    if (isFailure(res)) return { ...res, spend };
    const refused = byStatus(res, 'SEOkicks');
    if (refused) return { ...refused, spend };
    const parsed = parseBody('SEOkicks', res.text, Reply);
    if (!parsed.ok) {
      // The service reports key and credit problems in a 200 body instead of a status; those queries cost nothing.
      if (/quota|credit/i.test(res.text))
        return { ...fail('upstream_quota', 'SEOkicks reports the credits or quota are used up', parsed.raw), spend: unbilled(spend) };
      if (/key|appid/i.test(res.text)) return { ...fail('upstream_auth', 'SEOkicks refused the key', parsed.raw), spend: unbilled(spend) };
      return { ...parsed, spend };
    }
    const o = parsed.value.Overview;
    const columns = { linkpop: digits(o.linkpop), domainpop: digits(o.domainpop), ip_pop: digits(o.ippop), classc_pop: digits(o.netpop) };
    if (Object.values(columns).some((v) => v === undefined)) {
      return { ...fail('upstream_bad_response', 'SEOkicks counts are not numbers', parsed.raw), spend };
    }
    return { ok: true, columns, raw: parsed.raw, spend };
  }
  return { fetch: (domains, context) => Promise.all(domains.map((d) => one(d, context.permit, context.signal))) };
}
