// moz: POST {base}/v2/url_metrics with up to 10 targets a call (docs/providers.md, "Moz"). Results come back
// in request order; each is also checked by name, so a reordered answer is caught rather than misfiled. Moz
// meters rows: each target of an answered call is one, shared among the batch's rows.
import { Type } from 'typebox';
import type { Outbound } from '../../platform/net/index.ts';
import { requestCost, splitSpend, type Price } from './cost.ts';
import type { SourceDescriptor } from './descriptor.ts';
import type { Outcome, SourceAdapter } from './source.ts';
import { byStatus, call, fail, isFailure, parseBody } from './upstream.ts';

const Metric = Type.Union([Type.Number(), Type.Null()]);
const Reply = Type.Object({
  results: Type.Array(
    Type.Object({
      page: Type.Optional(Type.String()),
      subdomain: Type.Optional(Type.String()),
      root_domain: Type.Optional(Type.String()),
      domain_authority: Metric,
      page_authority: Metric,
      spam_score: Metric,
      root_domains_to_root_domain: Metric,
      external_pages_to_root_domain: Metric,
    }),
  ),
});

/** Moz plans meter rows (one per target of a url_metrics call) and do not report them per request. */
const PRICE: Price = { unit: 'moz_rows', price: { units: 1, per: 'domain' } };

interface MozSettings {
  token: string | undefined;
  accessId: string | undefined;
  secretKey: string | undefined;
  baseUrl: string;
}

export const moz: SourceDescriptor<MozSettings> = {
  name: 'moz',
  provider: 'moz',
  // Moz takes up to 50 targets; docs/api/README.md, "Limits", promises batches of 10.
  batchSize: 10,
  columns: [
    { name: 'domain_authority', type: 'double precision' },
    { name: 'page_authority', type: 'double precision' },
    { name: 'spam_score', type: 'double precision' },
    { name: 'linking_domains', type: 'bigint' },
    { name: 'inbound_links', type: 'bigint' },
  ],
  // Low Moz plans allow one request every 10 s.
  defaults: { concurrency: 1, rate: 0.1 },
  billing: { ...PRICE, requests: { count: 1, per: 'call' } },
  readSettings(read) {
    const settings = {
      token: read.secret('MOZ_TOKEN'),
      accessId: read.secret('MOZ_ACCESS_ID'),
      secretKey: read.secret('MOZ_SECRET_KEY'),
      baseUrl: read.url('MOZ_BASE_URL', 'https://lsapi.seomoz.com'),
    };
    if ((settings.accessId === undefined) !== (settings.secretKey === undefined)) {
      read.fail(
        settings.accessId === undefined ? 'MOZ_ACCESS_ID' : 'MOZ_SECRET_KEY',
        'MOZ_ACCESS_ID and MOZ_SECRET_KEY are set together or not at all',
      );
    }
    return settings;
  },
  createAdapter: (settings, deps) => mozAdapter(settings, deps.providerHttp),
};

export function mozAdapter(settings: MozSettings, http: Outbound): SourceAdapter {
  const auth: Record<string, string> | undefined = settings.token
    ? { 'x-moz-token': settings.token }
    : settings.accessId && settings.secretKey
      ? { authorization: `Basic ${Buffer.from(`${settings.accessId}:${settings.secretKey}`).toString('base64')}` }
      : undefined;

  return {
    async fetch(domains, context): Promise<Outcome[]> {
      if (!auth) return domains.map(() => fail('source_not_configured', 'MOZ_TOKEN (or MOZ_ACCESS_ID and MOZ_SECRET_KEY) is not set'));
      await context.permit();
      const res = await call(http, new URL('/v2/url_metrics', settings.baseUrl).toString(), {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ targets: domains }),
        signal: context.signal,
      });
      // One call for the batch: its cost is shared among the rows, which add up to it exactly.
      const shares = splitSpend(requestCost(PRICE, isFailure(res) ? undefined : res, domains.length), domains.length);
      return answer(domains, res).map((outcome, i) => ({ ...outcome, spend: shares[i]! }));
    },
  };
}

/** The batch's outcomes from Moz's answer, in request order. */
function answer(domains: string[], res: Awaited<ReturnType<typeof call>>): Outcome[] {
  const all = (outcome: Outcome) => domains.map(() => outcome);
  if (isFailure(res)) return all(res);
  const refused = byStatus(res, 'Moz');
  if (refused) return all(refused);
  const parsed = parseBody('Moz', res.text, Reply);
  if (!parsed.ok) return all(parsed);
  const { results } = parsed.value;
  if (results.length !== domains.length) {
    return all(fail('upstream_bad_response', `Moz answered ${results.length} results for ${domains.length} targets`, parsed.raw));
  }
  return domains.map((domain, i) => {
    const r = results[i]!;
    if (!namesMatch(domain, r)) {
      return fail('upstream_bad_response', `Moz result ${i} is for ${r.subdomain ?? r.page ?? '?'}, not ${domain}`, {
        request_index: i,
        result: r,
      });
    }
    return {
      ok: true,
      columns: {
        domain_authority: r.domain_authority,
        page_authority: r.page_authority,
        // -1 is Moz's "unknown".
        spam_score: r.spam_score === -1 ? null : r.spam_score,
        linking_domains: integer(r.root_domains_to_root_domain),
        inbound_links: integer(r.external_pages_to_root_domain),
      },
      raw: { request_index: i, result: r, batch: domains },
    };
  });
}

/** Whether a result names the target: its page, subdomain or root domain, without scheme, `www.` or slash. */
function namesMatch(domain: string, r: { page?: string; subdomain?: string; root_domain?: string }): boolean {
  const bare = (v: string) =>
    v
      .toLowerCase()
      .replace(/^https?:\/\//, '')
      .replace(/^www\./, '')
      .replace(/\/+$/, '');
  const want = bare(domain);
  return [r.page, r.subdomain, r.root_domain].some((v) => v !== undefined && bare(v) === want);
}

function integer(value: number | null): number | null {
  return value === null ? null : Math.round(value);
}
