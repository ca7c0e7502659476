// GET /v1/usage: what the tenant's jobs cost at the providers over a period, by source (and by day), summed
// from the result rows, so it always agrees with the rows' and the jobs' cost.
import { Type } from 'typebox';
import { invalid, problemResponses, type RoutePlugin, type ValidationIssue } from '../../platform/http/index.ts';
import type { SourceRegistry } from '../sources/index.ts';
import { usageBySource, type UsageRow } from '../store/index.ts';
import { callerOf, requireScope } from './auth.ts';
import { MAX_USAGE_DAYS, type UsageQuery, type UsageView } from './cost-schemas.ts';
import type { JobsAppDeps } from './deps.ts';
import { securedBy, type JobsSchemas } from './schemas.ts';

const DAY_MS = 86_400_000;

export function usageRoutes(deps: JobsAppDeps, schemas: JobsSchemas): RoutePlugin {
  return async (app) => {
    app.get(
      '/v1/usage',
      {
        onRequest: requireScope(deps.pool, deps.log, 'jobs:read'),
        schema: {
          tags: ['jobs'],
          summary: "What the tenant's jobs cost at the providers over a period, by source",
          description:
            'Sums the cost of the result rows fetched in [from, to), in each source’s billing unit, with the upstream requests ' +
            `made and the rows. Without \`from\`, the calendar month (UTC) up to \`to\`; without \`to\`, now. At most ${MAX_USAGE_DAYS} days.`,
          security: securedBy('jobs:read'),
          querystring: schemas.usageQuery,
          response: { 200: Type.Ref('Usage'), ...problemResponses(400, 401, 403) },
        },
      },
      async (request): Promise<UsageView> => {
        const { tenantId } = callerOf(request);
        const period = usagePeriod(request.query, new Date());
        if ('location' in period) throw invalid([period]);
        const byDay = request.query.granularity === 'day';
        const rows = await usageBySource(deps.pool, tenantId, period.from, period.to, byDay);
        return usageView(period, rows, byDay, deps.sources);
      },
    );
  };
}

interface Period {
  from: Date;
  to: Date;
}

/**
 * The period a query asks for: `to` (excluded) defaults to now, `from` (included) to the start of the UTC
 * calendar month `to` ends in, the month a monthly plan bills. Refused with the parameter to blame: a value
 * that is not a date or a date-time with zone, a `from` not before `to`, a period over MAX_USAGE_DAYS.
 */
export function usagePeriod(query: UsageQuery, now: Date): Period | ValidationIssue {
  const to = query.to === undefined ? now : instant(query.to);
  if (to === undefined) return issue('to', query.to);
  const last = new Date(to.getTime() - 1);
  const from = query.from === undefined ? new Date(Date.UTC(last.getUTCFullYear(), last.getUTCMonth(), 1)) : instant(query.from);
  if (from === undefined) return issue('from', query.from);
  if (from >= to) {
    const blamed = query.to === undefined ? 'from' : 'to';
    return {
      location: 'query',
      path: `/${blamed}`,
      message: `the period is empty: from ${from.toISOString()} is not before to ${to.toISOString()}`,
    };
  }
  if (to.getTime() - from.getTime() > MAX_USAGE_DAYS * DAY_MS) {
    return { location: 'query', path: '/from', message: `the period is longer than ${MAX_USAGE_DAYS} days; ask for it in parts` };
  }
  return { from, to };
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/** A date (midnight UTC) or a date-time with its zone; undefined for anything else (2026-02-30 included). */
function instant(text: string): Date | undefined {
  const match = DATE.exec(text) ?? DATE_TIME.exec(text);
  if (!match) return undefined;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const day = new Date(Date.UTC(y, m - 1, d));
  if (day.getUTCFullYear() !== y || day.getUTCMonth() !== m - 1 || day.getUTCDate() !== d) return undefined;
  const at = new Date(text);
  return Number.isNaN(at.getTime()) ? undefined : at;
}

function issue(name: 'from' | 'to', value: string | undefined): ValidationIssue {
  return {
    location: 'query',
    path: `/${name}`,
    message: `${JSON.stringify(value)} is not a date (2026-01-31) or a date-time with zone (2026-01-31T12:00:00Z)`,
  };
}

function usageView(period: Period, rows: UsageRow[], byDay: boolean, sources: SourceRegistry): UsageView {
  const bySource = (of: UsageRow[]) => {
    const totals = new Map<string, { amount: number; calls: number; rows: number }>();
    for (const row of of) {
      const total = totals.get(row.source) ?? { amount: 0, calls: 0, rows: 0 };
      totals.set(row.source, { amount: total.amount + Number(row.amount), calls: total.calls + row.calls, rows: total.rows + row.rows });
    }
    // Sources in the registry's order; one no longer in it (removed since) after them.
    const order = [...sources.names, ...[...totals.keys()].filter((s) => !sources.get(s)).sort()];
    return order.flatMap((source) => {
      const total = totals.get(source);
      return total ? [{ source, unit: sources.get(source)?.billing.unit ?? null, ...total }] : [];
    });
  };
  const view: UsageView = { from: period.from.toISOString(), to: period.to.toISOString(), sources: bySource(rows) };
  if (byDay) {
    const days = [...new Set(rows.map((r) => r.day!))].sort();
    view.days = days.map((date) => ({ date, sources: bySource(rows.filter((r) => r.day === date)) }));
  }
  return view;
}
