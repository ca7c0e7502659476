// The sources a worker runs, built from settings. Adding a provider is one file here and one line below.
import type { LookupFunction } from 'node:net';
import type { Config, JobSource } from '../../config.ts';
import type { Outbound } from '../../platform/net/index.ts';
import { pingSource } from './ping.ts';
import { ahrefsBacklinksSource, ahrefsTrafficSource } from './ahrefs.ts';
import { mozSource } from './moz.ts';
import { seokicksSource } from './seokicks.ts';
import { waybackSource } from './wayback.ts';
import type { Source } from './source.ts';
import { measured } from './upstream.ts';

export { failAll, type ErrorCode, type FetchContext, type Outcome, type Source } from './source.ts';
export { pingSource, type PingOptions } from './ping.ts';

export interface SourceDeps {
  /** Credentials and base addresses of the providers. */
  providers: Config['providers'];
  /** The outbound client for user-chosen targets (ping), under the address policy. */
  outbound: Outbound;
  /** The outbound client for the providers, whose hosts the operator sets (any address). */
  providerHttp: Outbound;
  userAgent: string;
  lookup?: LookupFunction;
  pingUrls?: (domain: string) => string[];
}

export function createSources(deps: SourceDeps): Map<JobSource, Source> {
  const sources = new Map<JobSource, Source>();
  const ahrefs = measured(deps.providerHttp, 'ahrefs');
  const ping = measured(deps.outbound, 'ping');
  sources.set('ping', pingSource({ outbound: ping, lookup: deps.lookup, urls: deps.pingUrls, userAgent: deps.userAgent }));
  sources.set('seokicks', seokicksSource(deps.providers.seokicks, measured(deps.providerHttp, 'seokicks')));
  sources.set('moz', mozSource(deps.providers.moz, measured(deps.providerHttp, 'moz')));
  sources.set('ahrefs_backlinks', ahrefsBacklinksSource(deps.providers.ahrefs, ahrefs));
  sources.set('ahrefs_traffic', ahrefsTrafficSource(deps.providers.ahrefs, ahrefs));
  sources.set('wayback', waybackSource(deps.providers.wayback, measured(deps.providerHttp, 'wayback')));
  return sources;
}
