// Estimates: what a job would do (a dry run, answered without storing or queueing anything) and whether its
// sources' budgets have room for it (a dry run says so; creation refuses a job that does not fit). The rows a
// fresh result would fill are counted by the same lookup creation uses (store/reuse.ts), the rest are estimated
// by the sources' published prices (sources/cost.ts) and timed by their configured rates.
import type { Pool, Queryable } from '../platform/db/index.ts';
import { estimateCalls, estimateCost, type SourceLimits, type SourceRegistry } from './sources/index.ts';
import { budgetsLeft, countReusable, type Reuse } from './store/index.ts';

/** A source's budget this month as an estimate sees it. */
export interface BudgetLeft {
  limit: number;
  left: number;
  month: string;
}

/** A source whose estimate is over what its budget has left: what creation refuses (`budget_exceeded`). */
export interface Shortfall extends BudgetLeft {
  source: string;
  unit: string | null;
  estimate: number;
}

/** Creating the job would spend more than a source's budget has left (the first such source, in request order). */
export class BudgetExceeded extends Error {
  readonly shortfall: Shortfall;
  constructor(shortfall: Shortfall) {
    super(
      `${shortfall.source}: the estimate ${shortfall.estimate} is over the ${shortfall.left} left of its budget for ${shortfall.month}`,
    );
    this.shortfall = shortfall;
  }
}

/**
 * The budgets of the job's billed sources, and the first source whose estimate (its rows to fetch at the
 * published price) is over what is left. Read, not held: what holds the line when jobs run side by side is the
 * engine's hold before each call (engine/budget.ts); this refuses at once a job that cannot fit.
 */
export async function checkBudgets(
  db: Queryable,
  registry: SourceRegistry,
  tenantId: string,
  toFetch: ReadonlyMap<string, number>,
): Promise<{ budgets: Map<string, BudgetLeft>; shortfall?: Shortfall }> {
  const billed = [...toFetch.keys()].filter((name) => registry.get(name)?.billing.unit != null);
  const budgets = billed.length > 0 ? await budgetsLeft(db, tenantId, billed) : new Map<string, BudgetLeft>();
  for (const [source, budget] of budgets) {
    const descriptor = registry.get(source)!;
    const estimate = estimateCost(descriptor, toFetch.get(source) ?? 0);
    if (estimate > budget.left) return { budgets, shortfall: { source, unit: descriptor.billing.unit, estimate, ...budget } };
  }
  return { budgets };
}

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
  /** Each billed source's budget, when the tenant has one, and the first source the job would overspend. */
  budgets: Map<string, BudgetLeft>;
  shortfall?: Shortfall | undefined;
  /** The slowest source's time (sources run side by side); null when any source with rows to fetch has no rate. */
  seconds: number | null;
}

export async function estimateJob(
  pool: Pool,
  registry: SourceRegistry,
  limits: Readonly<Record<string, SourceLimits>>,
  request: { tenantId: string; domains: string[]; jobTypes: string[]; reuse?: Reuse | undefined },
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
  const toFetch = new Map([...sources].map(([name, e]) => [name, e.toFetch]));
  const { budgets, shortfall } = await checkBudgets(pool, registry, request.tenantId, toFetch);
  return { sources, seconds, budgets, shortfall };
}
