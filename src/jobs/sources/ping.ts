// ping: our own reachability check (docs/providers.md, "ping"). https first, then http; names through the system
// resolver; every connection through the platform's outbound client, so private targets stay refused.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { OutboundError, type Outbound, type RedirectHop } from '../../platform/net/index.ts';
import { FREE, Tally } from './cost.ts';
import type { SourceDescriptor } from './descriptor.ts';
import type { FetchContext, Outcome, SourceAdapter } from './source.ts';

const TIMEOUT_MS = 8_000;
const MAX_REDIRECTS = 5;
const BODY_BYTES = 64 * 1024;

export const ping: SourceDescriptor<undefined> = {
  name: 'ping',
  provider: 'ping',
  batchSize: 1,
  columns: [
    { name: 'reachable', type: 'boolean' },
    { name: 'status_code', type: 'integer' },
    { name: 'response_ms', type: 'integer' },
  ],
  defaults: { concurrency: 50, rate: 0 },
  // Our own requests to the domain itself (https, then http when that gets no answer): no provider to pay.
  billing: { ...FREE, requests: { count: 2, per: 'domain', atMost: true } },
  readSettings: () => undefined,
  createAdapter: (_settings, deps) => pingAdapter({ outbound: deps.outbound, lookup: deps.lookup, userAgent: deps.userAgent }),
};

interface PingOptions {
  outbound: Outbound;
  /** The resolver the outbound client uses too (default `dns.lookup`). */
  lookup?: LookupFunction | undefined;
  /** The URLs tried, in order (default https://<domain>/ then http://<domain>/); tests point them at local ports. */
  urls?: (domain: string) => string[];
  userAgent: string;
}

interface Attempt {
  url: string;
  error?: string;
  message?: string;
  chain?: RedirectHop[];
}

export function pingAdapter(options: PingOptions): SourceAdapter {
  const lookup = options.lookup ?? (dnsLookup as LookupFunction);
  const urls = options.urls ?? ((d: string) => [`https://${d}/`, `http://${d}/`]);

  async function check(domain: string, context: FetchContext): Promise<Outcome> {
    const addresses = await resolve(lookup, domain);
    if (!Array.isArray(addresses)) {
      return unreachable({ addresses: [], attempts: [], error: 'dns', message: addresses.message });
    }
    const attempts: Attempt[] = [];
    const tally = new Tally(FREE);
    for (const url of urls(domain)) {
      await context.permit();
      tally.request(undefined);
      try {
        const res = await options.outbound.request(url, {
          method: 'GET',
          headers: { 'user-agent': options.userAgent, accept: '*/*' },
          timeoutMs: TIMEOUT_MS,
          maxRedirects: MAX_REDIRECTS,
          maxBodyBytes: BODY_BYTES,
          signal: context.signal,
        });
        attempts.push({ url, chain: res.chain });
        return {
          ok: true,
          columns: { reachable: true, status_code: res.status, response_ms: res.firstByteMs },
          raw: { addresses, attempts, final_url: res.url, status: res.status, error: null },
          spend: tally.spend,
        };
      } catch (err) {
        if (!(err instanceof OutboundError)) throw err;
        // Our own abort (a stopping worker, a cancelled job) says nothing of the site: not a finding.
        if (context.signal.aborted) return { ok: false, code: 'upstream_unavailable', message: 'the check was interrupted', transient: {} };
        attempts.push({ url, error: err.kind, message: err.message, chain: err.chain });
      }
    }
    const last = attempts.at(-1)!;
    return { ...unreachable({ addresses, attempts, error: last.error, message: last.message }), spend: tally.spend };
  }

  return { fetch: (domains, context) => Promise.all(domains.map((d) => check(d, context))) };
}

/** Not reachable is a finding, not a failure: the row is `ok` with `reachable: false` and the error class in raw. */
function unreachable(raw: Record<string, unknown>): Outcome {
  return { ok: true, columns: { reachable: false, status_code: null, response_ms: null }, raw };
}

function resolve(lookup: LookupFunction, domain: string): Promise<string[] | Error> {
  return new Promise((done) => {
    lookup(domain, { all: true }, (err, found) => {
      if (err) done(err);
      else done((found as unknown as LookupAddress[]).map((a) => a.address));
    });
  });
}
