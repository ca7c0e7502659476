// ahrefs_backlinks and ahrefs_traffic: Ahrefs API v3 with `Authorization: Bearer` and the `date` every request
// needs (docs/providers.md, "Ahrefs"). Traffic makes three calls: metrics (typed columns), then top keywords and
// top pages, which go into `raw`. Ahrefs reports each request's cost in API units in a response header.
import { Type, type TSchema } from 'typebox';
import type { Outbound } from '../../platform/net/index.ts';
import { Tally, type Price } from './cost.ts';
import type { SettingReader, SourceDescriptor } from './descriptor.ts';
import type { FetchContext, Outcome, SourceAdapter } from './source.ts';
import { byStatus, call, fail, isFailure, parseBody, type Failure } from './upstream.ts';

const Count = Type.Integer({ minimum: 0 });
const BacklinksReply = Type.Object({
  targets: Type.Array(Type.Object({ domain_rating: Type.Number(), backlinks: Count, backlinks_dofollow: Count, refdomains: Count }), {
    minItems: 1,
  }),
});
const MetricsReply = Type.Object({
  metrics: Type.Object({ org_traffic: Type.Number({ minimum: 0 }), org_cost: Type.Number({ minimum: 0 }) }),
});
const KeywordsReply = Type.Object({ keywords: Type.Array(Type.Unknown()) });
const PagesReply = Type.Object({ pages: Type.Array(Type.Unknown()) });

/**
 * Ahrefs bills API units per request (max(50, per-row cost × rows)) and reports the charge in its answer:
 * `x-api-units-cost-total-actual` is what the request consumed (0 when Ahrefs served it from its cache),
 * `x-api-units-cost-total` what it would cost. An answer with neither (a proxy that drops headers) is counted at
 * the smallest charge of a request, 50 units.
 */
const PRICE: Price = {
  unit: 'ahrefs_units',
  price: { units: 50, per: 'request' },
  reportedIn: ['x-api-units-cost-total-actual', 'x-api-units-cost-total'],
};

interface AhrefsSettings {
  apiKey: string | undefined;
  baseUrl: string;
}

/** Both Ahrefs sources use the same account and address. */
function readSettings(read: SettingReader): AhrefsSettings {
  return { apiKey: read.secret('AHREFS_API_KEY'), baseUrl: read.url('AHREFS_BASE_URL', 'https://api.ahrefs.com/v3') };
}

export const ahrefsBacklinks: SourceDescriptor<AhrefsSettings> = {
  name: 'ahrefs_backlinks',
  provider: 'ahrefs',
  batchSize: 1,
  columns: [
    { name: 'domain_rating', type: 'double precision' },
    { name: 'backlinks', type: 'bigint' },
    { name: 'ref_domains', type: 'bigint' },
    { name: 'dofollow_pct', type: 'double precision' },
  ],
  // Bounded by concurrency; 429s are honoured.
  defaults: { concurrency: 2, rate: 0 },
  billing: { ...PRICE, requests: { count: 1, per: 'domain' } },
  readSettings,
  createAdapter: (settings, deps) => ahrefsBacklinksAdapter(settings, deps.providerHttp),
};

export const ahrefsTraffic: SourceDescriptor<AhrefsSettings> = {
  name: 'ahrefs_traffic',
  provider: 'ahrefs',
  batchSize: 1,
  columns: [
    { name: 'organic_traffic', type: 'bigint' },
    { name: 'traffic_value', type: 'double precision' },
  ],
  // As backlinks, with slots and a rate window of its own.
  defaults: { concurrency: 2, rate: 0 },
  // Metrics, top keywords, top pages.
  billing: { ...PRICE, requests: { count: 3, per: 'domain' } },
  readSettings,
  createAdapter: (settings, deps) => ahrefsTrafficAdapter(settings, deps.providerHttp),
};

export function ahrefsBacklinksAdapter(settings: AhrefsSettings, http: Outbound): SourceAdapter {
  async function one(domain: string, context: FetchContext, tally: Tally): Promise<Outcome> {
    if (!settings.apiKey) return fail('source_not_configured', 'AHREFS_API_KEY is not set');
    const body = {
      select: ['domain_rating', 'backlinks', 'backlinks_dofollow', 'refdomains'],
      targets: [{ url: domain, mode: 'subdomains', protocol: 'both' }],
    };
    const got = await get(settings, http, context, tally, 'POST', '/batch-analysis/batch-analysis', {}, BacklinksReply, body);
    if (!got.ok) return got;
    const t = got.value.targets[0]!;
    return {
      ok: true,
      columns: {
        domain_rating: t.domain_rating,
        backlinks: t.backlinks,
        ref_domains: t.refdomains,
        dofollow_pct: t.backlinks === 0 ? null : Math.round((10_000 * t.backlinks_dofollow) / t.backlinks) / 100,
      },
      raw: got.raw,
    };
  }
  return { fetch: (domains, context) => Promise.all(domains.map((d) => metered(d, context, one))) };
}

export function ahrefsTrafficAdapter(settings: AhrefsSettings, http: Outbound): SourceAdapter {
  async function one(domain: string, context: FetchContext, tally: Tally): Promise<Outcome> {
    if (!settings.apiKey) return fail('source_not_configured', 'AHREFS_API_KEY is not set');
    const metrics = await get(
      settings,
      http,
      context,
      tally,
      'GET',
      '/site-explorer/metrics',
      { target: domain, mode: 'subdomains' },
      MetricsReply,
    );
    if (!metrics.ok) return metrics;
    const top = { target: domain, order_by: 'sum_traffic:desc', limit: '10' };
    const keywords = await get(
      settings,
      http,
      context,
      tally,
      'GET',
      '/site-explorer/organic-keywords',
      { ...top, select: 'keyword,volume,best_position,sum_traffic' },
      KeywordsReply,
    );
    if (!keywords.ok) return keywords;
    const pages = await get(
      settings,
      http,
      context,
      tally,
      'GET',
      '/site-explorer/top-pages',
      { ...top, select: 'url,sum_traffic,keywords' },
      PagesReply,
    );
    if (!pages.ok) return pages;
    const m = metrics.value.metrics;
    return {
      ok: true,
      // org_cost is in US cents.
      columns: { organic_traffic: Math.round(m.org_traffic), traffic_value: Math.round(m.org_cost) / 100 },
      raw: { metrics: metrics.raw, keywords: keywords.raw, pages: pages.raw },
    };
  }
  return { fetch: (domains, context) => Promise.all(domains.map((d) => metered(d, context, one))) };
}

/** One domain's task with what its requests cost: a traffic task that fails half-way has still paid for the first calls. */
async function metered(
  domain: string,
  context: FetchContext,
  one: (domain: string, context: FetchContext, tally: Tally) => Promise<Outcome>,
): Promise<Outcome> {
  const tally = new Tally(PRICE);
  const outcome = await one(domain, context, tally);
  return { ...outcome, spend: tally.spend };
}

/** One Ahrefs call with the date parameter, status rules, and a schema check of the body; its cost goes to `tally`. */
async function get<T extends TSchema>(
  settings: AhrefsSettings,
  http: Outbound,
  context: FetchContext,
  tally: Tally,
  method: 'GET' | 'POST',
  path: string,
  query: Record<string, string>,
  schema: T,
  body?: unknown,
) {
  const url = new URL(`${settings.baseUrl.replace(/\/+$/, '')}${path}`);
  url.search = new URLSearchParams({ ...query, date: new Date().toISOString().slice(0, 10) }).toString();
  await context.permit();
  const res = await call(http, url.toString(), {
    method,
    headers: {
      authorization: `Bearer ${settings.apiKey}`,
      accept: 'application/json',
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
    signal: context.signal,
  });
  tally.request(isFailure(res) ? undefined : res);
  if (isFailure(res)) return res;
  const refused: Failure | undefined = byStatus(res, 'Ahrefs');
  if (refused) return refused;
  return parseBody('Ahrefs', res.text, schema);
}
