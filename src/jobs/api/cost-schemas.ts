// The schemas of what jobs cost at the providers: a result row's `cost`, a job's `cost` by source, and
// `GET /v1/usage` (docs/api/README.md, "Cost and usage"). Units are the sources' billing units.
import { Type, type Static, type TSchema } from 'typebox';
import type { SourceRegistry } from '../sources/index.ts';

const Nullable = <T extends TSchema>(schema: T, options = {}) => Type.Union([schema, Type.Null()], options);

/** The longest period one usage request may cover. */
export const MAX_USAGE_DAYS = 366;

function unitOf(sources: SourceRegistry) {
  const units = [...new Set(sources.descriptors.map((d) => d.billing.unit).filter((u) => u !== null))];
  return Nullable(Type.String(), {
    description: `the unit the source's provider bills in (${units.join(', ')}); null for sources nobody pays for (cost 0)`,
  });
}

export function costSchemas(sources: SourceRegistry) {
  const Unit = unitOf(sources);
  const Source = Type.Enum([...sources.names]);

  const rowCostObject = Type.Object(
    {
      amount: Type.Number({ minimum: 0, description: "what the row's upstream requests cost, in unit" }),
      unit: Unit,
      basis: Type.Enum(['reported', 'computed', 'cached'], {
        description:
          'reported: the provider said what every billed request cost; computed: some of it is from its published price; ' +
          'cached: copied from an earlier result (cached_from), no request made, amount 0',
      }),
      calls: Type.Integer({
        minimum: 0,
        description: "upstream requests made for the row, retries included (a batch's call counts on its first row)",
      }),
    },
    { $id: 'RowCost' },
  );
  const rowCost = Nullable(Type.Ref('RowCost'), { description: 'null on rows finished before costs were recorded' });

  const sourceCost = Type.Object({ amount: Type.Number({ minimum: 0 }), unit: Unit }, { $id: 'SourceCost' });
  const jobCost = Type.Object(Object.fromEntries(sources.names.map((name) => [name, Type.Optional(Type.Ref('SourceCost'))])), {
    description: "what the job's finished rows cost so far, for each of its job_types: the sum of the rows' cost",
  });

  const usageQuery = Type.Object(
    {
      from: Type.Optional(
        Type.String({ maxLength: 40, description: 'start, included: a date (2026-01-31, midnight UTC) or a date-time with zone' }),
      ),
      to: Type.Optional(Type.String({ maxLength: 40, description: 'end, excluded: a date or a date-time with zone; now when omitted' })),
      granularity: Type.Optional(Type.Enum(['total', 'day'], { description: 'day adds the usage of each UTC day (default total)' })),
    },
    { additionalProperties: false },
  );

  const sourceUsage = Type.Object(
    {
      source: Source,
      unit: Unit,
      amount: Type.Number({ minimum: 0, description: "the sum of the cost of the source's rows fetched in the period" }),
      calls: Type.Integer({ minimum: 0, description: 'upstream requests made for those rows' }),
      rows: Type.Integer({ minimum: 0, description: 'result rows fetched in the period' }),
    },
    { $id: 'SourceUsage' },
  );
  const usage = Type.Object(
    {
      from: Type.String({ format: 'date-time' }),
      to: Type.String({ format: 'date-time' }),
      sources: Type.Array(Type.Ref('SourceUsage'), { description: 'each source with rows in the period, in source order' }),
      days: Type.Optional(
        Type.Array(Type.Object({ date: Type.String({ format: 'date' }), sources: Type.Array(Type.Ref('SourceUsage')) }), {
          description: 'with granularity=day: each UTC day that has rows, oldest first',
        }),
      ),
    },
    { $id: 'Usage' },
  );

  const sourceEstimate = Type.Object(
    {
      rows: Type.Integer({ minimum: 0, description: "the source's rows: one per domain" }),
      to_fetch: Type.Integer({ minimum: 0, description: 'rows that would call the provider' }),
      from_cache: Type.Integer({ minimum: 0, description: 'rows a fresh result would fill (max_age), at no cost' }),
      calls: Type.Integer({ minimum: 0, description: 'upstream requests the rows to fetch should take' }),
      cost: Type.Ref('SourceCost', { description: "the rows to fetch at the source's published price" }),
      seconds: Nullable(Type.Number({ minimum: 0 }), {
        description: "calls ÷ the source's configured rate (JOBS_<NAME>_RATE); null when it has no rate (the provider sets the pace)",
      }),
      budget: Nullable(Type.Ref('BudgetLeft'), { description: "this month's budget of the source, when the tenant has one" }),
    },
    { $id: 'SourceEstimate' },
  );
  const budgetLeft = Type.Object(
    {
      month: Type.String({ description: 'the UTC calendar month, YYYY-MM' }),
      monthly_limit: Type.Number({ minimum: 0 }),
      left: Type.Number({ description: 'the limit less what was spent and is being spent this month (≤ 0: nothing left)' }),
    },
    { $id: 'BudgetLeft' },
  );
  const dryRun = Type.Object(
    {
      dry_run: Type.Literal(true),
      domain_count: Type.Integer(),
      job_types: Type.Array(Source),
      max_age: Type.Integer({ minimum: 0, description: 'seconds: how old a reused result may be (0: every row is fetched)' }),
      rows: Type.Object({ total: Type.Integer(), to_fetch: Type.Integer(), from_cache: Type.Integer() }),
      sources: Type.Object(Object.fromEntries(sources.names.map((name) => [name, Type.Optional(Type.Ref('SourceEstimate'))]))),
      seconds: Nullable(Type.Number({ minimum: 0 }), {
        description: "the slowest source's seconds (sources run side by side); null when a source to fetch has no rate",
      }),
      within_budget: Type.Boolean({
        description: "false when a source's estimate is over what its budget has left: creating the job would be refused",
      }),
    },
    { $id: 'DryRun' },
  );

  return {
    dryRun,
    sourceEstimate,
    budgetLeft,
    rowCost,
    jobCost,
    usageQuery,
    rowCostObject,
    sourceCost,
    sourceUsage,
    /** The named schemas, for the document's components. */
    components: [rowCostObject, sourceCost, usage, sourceUsage, dryRun, sourceEstimate, budgetLeft],
  };
}

type CostSchemas = ReturnType<typeof costSchemas>;
export type RowCostView = Static<CostSchemas['rowCostObject']> | null;
export type JobCostView = Record<string, Static<CostSchemas['sourceCost']>>;
export type UsageQuery = Static<CostSchemas['usageQuery']>;
type SourceUsageView = Static<CostSchemas['sourceUsage']>;
/** `Usage`, its references resolved. */
export type UsageView = { from: string; to: string; sources: SourceUsageView[]; days?: { date: string; sources: SourceUsageView[] }[] };
type SourceEstimateView = Omit<Static<CostSchemas['sourceEstimate']>, 'cost' | 'budget'> & {
  cost: Static<CostSchemas['sourceCost']>;
  budget: Static<CostSchemas['budgetLeft']> | null;
};
/** `DryRun`, its references resolved. */
export type DryRunView = Omit<Static<CostSchemas['dryRun']>, 'sources'> & { sources: Record<string, SourceEstimateView> };
