// A dry run: what a job would do, answered without storing or queueing anything. The rows a fresh result would
// fill are counted by the same lookup creation uses (store/reuse.ts), the rest are estimated by the sources'
// published prices (sources/cost.ts) and timed by their configured rates.
import type { Pool } from '../platform/db/index.ts';
import { estimateCalls, estimateCost, type SourceLimits, type SourceRegistry } from './sources/index.ts';
import { countReusable, type Reuse } from './store/index.ts';

export interface SourceEstimate {
  rows: number;
  toFetch: number;
  fromCache: number;
  calls: number;
  cost: number;
  unit: string | null;
  /** Calls ÷ the source's rate; null when no rate is set (its speed is then the provider's, unknown before). */
  seconds: number | null;
}

export interface JobEstimate {
  sources: Map<string, SourceEstimate>;
  /** The slowest source's time (sources run side by side); null when any source with rows to fetch has no rate. */
  seconds: number | null;
}

export async function estimateJob(
  pool: Pool,
  registry: SourceRegistry,
  limits: Readonly<Record<string, SourceLimits>>,
  request: { domains: string[]; jobTypes: string[]; reuse?: Reuse | undefined },
): Promise<JobEstimate> {
  const cached = request.reuse ? await countReusable(pool, request.domains, request.jobTypes, request.reuse) : [];
  const sources = new Map<string, SourceEstimate>();
  let seconds: number | null = 0;
  for (const name of request.jobTypes) {
    const source = registry.get(name)!;
    const fromCache = cached.find((r) => r.source === name)?.cached ?? 0;
    const toFetch = request.domains.length - fromCache;
    const calls = toFetch === 0 ? 0 : estimateCalls(source, toFetch);
    const rate = limits[name]?.rate ?? source.defaults.rate;
    const own = calls === 0 ? 0 : rate > 0 ? calls / rate : null;
    seconds = seconds === null || own === null ? null : Math.max(seconds, own);
    sources.set(name, {
      rows: request.domains.length,
      toFetch,
      fromCache,
      calls,
      cost: estimateCost(source, toFetch),
      unit: source.billing.unit,
      seconds: own,
    });
  }
  return { sources, seconds };
}
