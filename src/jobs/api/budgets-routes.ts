// /v1/budgets: a tenant's monthly budget per billed source. An admin sets them; whoever reads jobs reads them,
// since what is left decides which jobs can run (the engine enforces them: engine/budget.ts).
import { Type } from 'typebox';
import { invalid, problemResponses, type RoutePlugin } from '../../platform/http/index.ts';
import { budgetRecord, budgetRefusal, putBudget, tenantBudgets, type Budget } from '../budgets.ts';
import { callerOf, requireScope } from './auth.ts';
import type { budgetSchemas, BudgetListView, BudgetView } from './budget-schemas.ts';
import type { JobsAppDeps } from './deps.ts';
import { securedBy } from './schemas.ts';

const TAGS = ['budgets'];

export function budgetsRoutes(deps: JobsAppDeps, schemas: ReturnType<typeof budgetSchemas>): RoutePlugin {
  return async (app) => {
    app.put(
      '/v1/budgets',
      {
        onRequest: requireScope(deps.pool, deps.log, 'keys:admin'),
        schema: {
          tags: TAGS,
          summary: "Set (or remove) the tenant's monthly budget of a source",
          description:
            'The limit is in the source’s billing unit and holds for each UTC calendar month. Jobs whose estimate is over what is ' +
            'left are refused (422 budget_exceeded); a running job that reaches it ends its remaining rows of the source as ' +
            'error rows budget_exceeded. Answers the budget as it stands this month.',
          security: securedBy('keys:admin'),
          body: schemas.putBudget,
          response: { 200: Type.Ref('Budget'), ...problemResponses(400, 401, 403, 413, 415) },
        },
      },
      async (request): Promise<BudgetView> => {
        const { tenantId } = callerOf(request);
        const { source, monthly_limit: limit } = request.body;
        const refused = budgetRefusal(deps.sources, source);
        if (refused) throw invalid([{ location: 'body', path: '/source', message: refused }]);
        return budgetView(await putBudget(deps.pool, deps.sources, tenantId, source, limit));
      },
    );

    app.get(
      '/v1/budgets',
      {
        onRequest: requireScope(deps.pool, deps.log, 'jobs:read'),
        schema: {
          tags: TAGS,
          summary: "The tenant's budgets, each with what was spent and what is left this month",
          security: securedBy('jobs:read'),
          response: { 200: Type.Ref('BudgetList'), ...problemResponses(401, 403) },
        },
      },
      async (request): Promise<BudgetListView> => {
        const { tenantId } = callerOf(request);
        return { budgets: (await tenantBudgets(deps.pool, deps.sources, tenantId)).map(budgetView) };
      },
    );
  };
}

function budgetView(b: Budget): BudgetView {
  return budgetRecord(b);
}
