// Fake Ahrefs API v3 (docs/providers.md): Bearer auth, `date` required on every request, batch-analysis for
// backlinks, site-explorer metrics / organic-keywords / top-pages for traffic, `{"error": …}` bodies.
// Billing as Ahrefs documents it ("Limits consumption"): each answered request costs API units, reported in its
// headers: `x-api-rows` (rows returned), `x-api-units-cost-row`, `x-api-units-cost-total` (what it should cost),
// `x-api-units-cost-total-actual` (what it consumed) and `x-api-cache` (hit, miss, no_cache). Every request costs
// 50 units, the smallest charge of one request, unless its target is `units-<n>.…` (n units); `cached.…` is
// served from Ahrefs' cache (consumes 0, should cost 50); `nounits.…` answers without the headers, and is billed
// all the same. Errors cost nothing and carry no units.
import { faultAnswer, faultOf, startFake, valueFor, type Fake, type FakeOptions, type Handled, type LoggedRequest } from './server.ts';

/** The units an answered request about `target` costs. */
export function ahrefsUnits(target: string): number {
  if (target.startsWith('cached.')) return 0;
  return listedUnits(target);
}

/** What a request about `target` should cost, cache or not. */
function listedUnits(target: string): number {
  const named = /^units-(\d+)\./.exec(target);
  return named ? Number(named[1]) : 50;
}

export function startAhrefsFake(options: FakeOptions & { apiKey: string; basePath?: string }): Promise<Fake> {
  const seen = new Map<string, number>();
  const base = options.basePath ?? '/v3';
  return startFake(
    (req) => {
      if (req.headers.authorization !== `Bearer ${options.apiKey}`) return { status: 401, body: { error: 'Invalid API key' } };
      if (!/^\d{4}-\d{2}-\d{2}$/.test(req.query.get('date') ?? ''))
        return { status: 400, body: { error: 'date is required (YYYY-MM-DD)' } };
      const path = req.path.startsWith(base) ? req.path.slice(base.length) : req.path;
      if (req.method === 'POST' && path === '/batch-analysis/batch-analysis') return billed(backlinks(req, seen), targetOf(req));
      if (req.method === 'GET' && path.startsWith('/site-explorer/')) {
        return billed(siteExplorer(path.slice('/site-explorer/'.length), req, seen), targetOf(req));
      }
      return { status: 404, body: { error: 'unknown endpoint' } };
    },
    options,
    (req) => ahrefsUnits(targetOf(req)),
  );
}

/** The domain a request is about: batch-analysis names it in its body, site-explorer in `target`. */
function targetOf(req: LoggedRequest): string {
  if (req.method === 'GET') return req.query.get('target') ?? '';
  try {
    return (JSON.parse(req.body) as { targets: { url: string }[] }).targets[0]?.url ?? '';
  } catch {
    return '';
  }
}

/** A JSON 2xx answer with its cost in units and its rows; other answers as they are (a proxy's page has no headers). */
function billed(answer: Handled, target: string): Handled {
  if (answer.status < 200 || answer.status >= 300 || answer.contentType) return answer;
  const units = ahrefsUnits(target);
  if (target.startsWith('nounits.')) return { ...answer, units };
  const body = answer.body as Record<string, unknown>;
  const list = [body.targets, body.keywords, body.pages].find(Array.isArray);
  const rows = list ? list.length : 1;
  const listed = listedUnits(target);
  const headers = {
    'x-api-rows': String(rows),
    'x-api-units-cost-row': String(Math.max(1, Math.floor(listed / Math.max(1, rows)))),
    'x-api-units-cost-total': String(listed),
    'x-api-units-cost-total-actual': String(units),
    'x-api-cache': target.startsWith('cached.') ? 'hit' : 'miss',
  };
  return { ...answer, units, headers: { ...answer.headers, ...headers } };
}

function backlinks(req: LoggedRequest, seen: Map<string, number>): Handled {
  const body = JSON.parse(req.body) as { select: string[]; targets: { url: string; mode: string; protocol: string }[] };
  const url = body.targets[0]?.url ?? '';
  const fault = faultOf(url);
  const generic = faultAnswer(fault, seen, `bl:${url}`);
  if (generic) return generic;
  if (fault === 'nodata') return { status: 404, body: { error: 'target not indexed' } };
  if (fault === 'malformed') return { status: 200, body: { targets: [{ index: 0, url, domain_rating: 'high' }] } };
  return {
    status: 200,
    body: {
      targets: body.targets.map((t, index) => {
        const backlinks = t.url.startsWith('zero.') ? 0 : valueFor(t.url, 'bl', 1, 900_000);
        return {
          index,
          url: t.url,
          domain_rating: valueFor(t.url, 'dr', 0, 1000) / 10,
          backlinks,
          backlinks_dofollow: Math.floor(backlinks * (valueFor(t.url, 'df', 0, 100) / 100)),
          refdomains: valueFor(t.url, 'rd', 0, 20_000),
        };
      }),
    },
  };
}

function siteExplorer(endpoint: string, req: LoggedRequest, seen: Map<string, number>): Handled {
  const target = req.query.get('target') ?? '';
  const fault = faultOf(target);
  // One key for the three endpoints a traffic task calls: "fails once" means once per task, as elsewhere.
  const generic = faultAnswer(fault, seen, `site-explorer:${target}`);
  if (generic) return generic;
  if (fault === 'nodata') return { status: 404, body: { error: 'target not indexed' } };
  const limit = Number(req.query.get('limit') ?? 10);
  switch (endpoint) {
    case 'metrics':
      if (fault === 'malformed') return { status: 200, body: { metrics: { org_traffic: 'lots' } } };
      return {
        status: 200,
        body: {
          metrics: {
            org_traffic: valueFor(target, 'ot', 0, 2_000_000),
            org_cost: valueFor(target, 'oc', 0, 90_000_000),
            org_keywords: valueFor(target, 'ok', 0, 80_000),
          },
        },
      };
    case 'organic-keywords':
      return {
        status: 200,
        body: {
          keywords: Array.from({ length: limit }, (_, i) => ({
            keyword: `${target} keyword ${i}`,
            volume: 1000 - i,
            best_position: i + 1,
            sum_traffic: 500 - i,
          })),
        },
      };
    case 'top-pages':
      return {
        status: 200,
        body: {
          pages: Array.from({ length: limit }, (_, i) => ({ url: `https://${target}/page-${i}`, sum_traffic: 900 - i, keywords: 40 - i })),
        },
      };
    default:
      return { status: 404, body: { error: 'unknown endpoint' } };
  }
}
