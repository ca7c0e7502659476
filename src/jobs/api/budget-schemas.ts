// The schemas of `PUT` and `GET /v1/budgets` (docs/api/README.md, "Budgets"): a tenant's monthly limit per billed
// source, in the source's billing unit.
import { Type, type Static, type TSchema } from 'typebox';
import { MAX_MONTHLY_LIMIT } from '../budgets.ts';
import type { SourceRegistry } from '../sources/index.ts';

const Nullable = <T extends TSchema>(schema: T, options = {}) => Type.Union([schema, Type.Null()], options);

export function budgetSchemas(sources: SourceRegistry) {
  const billed = sources.descriptors.filter((d) => d.billing.unit !== null);
  const units = billed.map((d) => `${d.name}: ${d.billing.unit}`).join(', ');

  const putBudget = Type.Object(
    {
      source: Type.Enum([...sources.names], {
        description: `a source with a billing unit (${units}); the others cost nothing and take no budget`,
      }),
      monthly_limit: Nullable(Type.Number({ minimum: 0, maximum: MAX_MONTHLY_LIMIT }), {
        description: 'what the source may cost per UTC calendar month, in its billing unit; null removes the budget',
      }),
    },
    { additionalProperties: false },
  );

  const budget = Type.Object(
    {
      source: Type.Enum(billed.map((d) => d.name)),
      unit: Type.String({ description: "the source's billing unit" }),
      monthly_limit: Nullable(Type.Number({ minimum: 0 }), { description: 'null: the source has no budget (after removing it)' }),
      month: Type.String({ description: 'the current UTC calendar month, YYYY-MM: the month GET /v1/usage defaults to' }),
      spent: Type.Number({
        minimum: 0,
        description: "what the tenant's calls to the source cost this month, budget or not (also before the budget was set)",
      }),
      reserved: Type.Number({
        minimum: 0,
        description: 'what calls in flight are expected to cost (their estimate), held until they settle',
      }),
      left: Nullable(Type.Number(), { description: 'monthly_limit − spent − reserved; ≤ 0 when nothing is left; null without a budget' }),
    },
    { $id: 'Budget' },
  );
  const budgetList = Type.Object(
    { budgets: Type.Array(Type.Ref('Budget'), { description: 'every budget of the tenant, in source order' }) },
    { $id: 'BudgetList' },
  );

  return { putBudget, budget, budgetList, components: [budget, budgetList] };
}

type BudgetSchemas = ReturnType<typeof budgetSchemas>;
export type PutBudgetBody = Static<BudgetSchemas['putBudget']>;
export type BudgetView = Static<BudgetSchemas['budget']>;
export type BudgetListView = { budgets: BudgetView[] };
