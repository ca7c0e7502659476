// Fake SEOkicks inlinkData API (docs/providers.md): appid auth, counts as strings of digits, a JavaScript
// content type on a JSON body, and errors the real service is known to give. It bills a credit per answered
// query (docs/providers.md, "Cost"), none for refusals or for its 200 saying the credits are used up.
import { faultAnswer, faultOf, startFake, valueFor, type Fake, type FakeOptions } from './server.ts';

export const SEOKICKS_PATH = '/SEOkicksService/V1/inlinkData';

export function startSeokicksFake(options: FakeOptions & { apiKey: string }): Promise<Fake> {
  const seen = new Map<string, number>();
  return startFake(
    (req) => {
      if (req.path !== SEOKICKS_PATH) return { status: 404, body: 'not found', contentType: 'text/plain' };
      if (req.query.get('appid') !== options.apiKey) return { status: 401, body: { error: 'invalid appid' } };
      const domain = req.query.get('query') ?? '';
      const fault = faultOf(domain);
      const generic = faultAnswer(fault, seen, domain);
      if (generic) return generic;
      // The real service answers some account problems with 200 and a message instead of data.
      if (domain.startsWith('credits.'))
        return { status: 200, body: { Error: 'Not enough credits left' }, contentType: 'text/javascript', units: 0 };
      if (fault === 'malformed') return { status: 200, body: { Results: [] }, contentType: 'text/javascript' };
      const count = (f: string, max: number) => String(fault === 'nodata' ? 0 : valueFor(domain, f, 0, max));
      const results = Number(req.query.get('results') ?? 50);
      return {
        status: 200,
        contentType: 'text/javascript; charset=utf-8',
        body: {
          Overview: {
            linkpop: count('linkpop', 50_000),
            domainpop: count('domainpop', 5_000),
            ippop: count('ippop', 4_000),
            netpop: count('netpop', 3_000),
          },
          Results:
            fault === 'nodata'
              ? []
              : Array.from({ length: Math.min(results, 50) }, (_, i) => ({
                  UrlFrom: `https://ref${i}.example.net/page`,
                  AnchorText: `link ${i}`,
                })),
        },
      };
    },
    options,
    () => 1,
  );
}
