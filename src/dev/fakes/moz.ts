// Fake Moz Links API v2 url_metrics (docs/providers.md): up to 50 targets a call, results in request order,
// `x-moz-token` or HTTP Basic auth, spam_score -1 for unknown. A batch with a faulty domain fails whole, as
// one call would; `mismatch.*` returns the results in reverse order. Moz meters rows: an answered call bills
// one row per target (nothing for a refused one), and says nothing of it in the answer.
import { faultAnswer, faultOf, startFake, valueFor, type Fake, type FakeOptions } from './server.ts';

export function startMozFake(options: FakeOptions & { token: string; accessId?: string; secretKey?: string }): Promise<Fake> {
  const seen = new Map<string, number>();
  const basic = options.accessId ? `Basic ${Buffer.from(`${options.accessId}:${options.secretKey}`).toString('base64')}` : undefined;
  return startFake(
    (req) => {
      if (req.method !== 'POST' || req.path !== '/v2/url_metrics')
        return { status: 404, body: { name: 'NotFound', message: 'no such endpoint' } };
      if (req.headers['x-moz-token'] !== options.token && (!basic || req.headers.authorization !== basic)) {
        return { status: 401, body: { name: 'Unauthorized', message: 'invalid token' } };
      }
      let targets: string[];
      try {
        targets = (JSON.parse(req.body) as { targets: string[] }).targets;
      } catch {
        return { status: 400, body: { name: 'BadRequest', message: 'body must be JSON' } };
      }
      if (!Array.isArray(targets) || targets.length === 0 || targets.length > 50)
        return { status: 400, body: { name: 'BadRequest', message: '1 to 50 targets' } };
      for (const target of targets) {
        const generic = faultAnswer(faultOf(target), seen, target);
        if (generic) return generic;
      }
      if (targets.some((t) => faultOf(t) === 'malformed'))
        return { status: 200, body: { results: targets.map((t) => ({ page: `${t}/` })) } };
      const results = targets.map((t) => {
        const unknown = faultOf(t) === 'nodata';
        return {
          page: `${t}/`,
          subdomain: t,
          root_domain: t.split('.').slice(-2).join('.'),
          domain_authority: unknown ? 1 : valueFor(t, 'da', 1, 100),
          page_authority: unknown ? 1 : valueFor(t, 'pa', 1, 100),
          spam_score: unknown ? -1 : valueFor(t, 'spam', 0, 17),
          root_domains_to_root_domain: unknown ? 0 : valueFor(t, 'rd', 0, 90_000),
          external_pages_to_root_domain: unknown ? 0 : valueFor(t, 'ep', 0, 5_000_000),
          pages_to_root_domain: unknown ? 0 : valueFor(t, 'pages', 0, 9_000_000),
          last_crawled: '2026-11-01',
        };
      });
      if (targets.some((t) => t.startsWith('mismatch.'))) results.reverse();
      return { status: 200, body: { results } };
    },
    options,
    rowsOf,
  );
}

/** The rows an answered call bills: its targets. */
function rowsOf(req: { body: string }): number {
  try {
    const { targets } = JSON.parse(req.body) as { targets: unknown };
    return Array.isArray(targets) ? targets.length : 0;
  } catch {
    return 0;
  }
}
