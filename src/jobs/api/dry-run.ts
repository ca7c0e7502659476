// POST /v1/jobs with "dry_run": true: the estimate of jobs/estimate.ts as the API shows it (`DryRun`).
import { estimateJob, type BudgetLeft } from '../estimate.ts';
import type { Reuse } from '../store/index.ts';
import type { DryRunView } from './cost-schemas.ts';
import type { JobsAppDeps } from './deps.ts';

export async function dryRunView(
  deps: JobsAppDeps,
  planned: { tenantId: string; domains: string[]; jobTypes: string[]; reuse: Reuse | undefined },
  maxAgeSeconds: number,
): Promise<DryRunView> {
  const estimate = await estimateJob(deps.pool, deps.sources, deps.limits, planned);
  const sources: DryRunView['sources'] = {};
  let toFetch = 0;
  let fromCache = 0;
  for (const [name, e] of estimate.sources) {
    toFetch += e.toFetch;
    fromCache += e.fromCache;
    sources[name] = {
      rows: e.rows,
      to_fetch: e.toFetch,
      from_cache: e.fromCache,
      calls: e.calls,
      cost: { amount: e.cost, unit: e.unit },
      seconds: e.seconds,
      budget: budgetView(estimate.budgets.get(name)),
    };
  }
  return {
    dry_run: true,
    domain_count: planned.domains.length,
    job_types: planned.jobTypes,
    max_age: maxAgeSeconds,
    rows: { total: toFetch + fromCache, to_fetch: toFetch, from_cache: fromCache },
    sources,
    seconds: estimate.seconds,
    within_budget: estimate.shortfall === undefined,
  };
}

function budgetView(budget: BudgetLeft | undefined): DryRunView['sources'][string]['budget'] {
  return budget ? { month: budget.month, monthly_limit: budget.limit, left: budget.left } : null;
}
