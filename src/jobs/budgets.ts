// Monthly budgets per tenant and source (docs/api/README.md, "Budgets"): what `PUT`/`GET /v1/budgets` and
// `domainkit jobs budgets …` share. The engine holds and settles against them (engine/budget.ts).
import { withTransaction, type Pool, type Queryable } from '../platform/db/index.ts';
import type { SourceRegistry } from './sources/index.ts';
import { budgetStates, setBudget, tenantIdByName, type BudgetState } from './store/index.ts';

/** The largest limit accepted: amounts stay exact as JSON numbers. */
export const MAX_MONTHLY_LIMIT = 1e15;

/** A source's budget this month, in the source's billing unit; `monthlyLimit` and `left` null without a budget. */
export interface Budget {
  source: string;
  unit: string;
  monthlyLimit: number | null;
  /** The UTC calendar month, YYYY-MM. */
  month: string;
  spent: number;
  reserved: number;
  /** The limit less what was spent and what calls in flight are expected to cost; ≤ 0 when nothing is left. */
  left: number | null;
}

/** Why a source takes no budget (unknown, or nobody pays for it), or undefined when it does. */
export function budgetRefusal(registry: SourceRegistry, source: string): string | undefined {
  const descriptor = registry.get(source);
  if (!descriptor) return `unknown source ${source}; known: ${registry.names.join(', ')}`;
  if (descriptor.billing.unit === null) {
    const billed = registry.descriptors.filter((d) => d.billing.unit !== null).map((d) => d.name);
    return `${source} costs nothing (it has no billing unit), so it takes no budget; sources with one: ${billed.join(', ')}`;
  }
  return undefined;
}

/** Sets (or with `null` removes) the tenant's budget of a billed source, and answers its state this month. */
export async function putBudget(
  pool: Pool,
  registry: SourceRegistry,
  tenantId: string,
  source: string,
  limit: number | null,
): Promise<Budget> {
  const refused = budgetRefusal(registry, source);
  if (refused) throw new Error(refused);
  return withTransaction(pool, async (tx) => {
    await setBudget(tx, tenantId, source, limit);
    const [state] = await budgetStates(tx, tenantId, [source]);
    return budgetOf(registry, state!);
  });
}

/** Every budget of the tenant this month, in source order. */
export async function tenantBudgets(db: Queryable, registry: SourceRegistry, tenantId: string): Promise<Budget[]> {
  const states = await budgetStates(db, tenantId, null);
  const order = (s: string) => (registry.names.includes(s) ? registry.names.indexOf(s) : registry.names.length);
  return states.sort((a, b) => order(a.source) - order(b.source) || a.source.localeCompare(b.source)).map((s) => budgetOf(registry, s));
}

function budgetOf(registry: SourceRegistry, state: BudgetState): Budget {
  return {
    source: state.source,
    // A budget's source always had a unit; one removed from the program since keeps its name as its unit.
    unit: registry.get(state.source)?.billing.unit ?? state.source,
    monthlyLimit: state.limit,
    month: state.month,
    spent: state.spent,
    reserved: state.reserved,
    left: state.limit === null ? null : state.limit - state.spent - state.reserved,
  };
}

/** `--limit`: an amount in the source's unit, or `none` to remove the budget. */
export function parseLimit(text: string): number | null {
  if (text.trim().toLowerCase() === 'none') return null;
  const limit = /^\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!(limit <= MAX_MONTHLY_LIMIT))
    throw new Error(`--limit takes an amount from 0 to ${MAX_MONTHLY_LIMIT} in the source's unit, or none`);
  return limit;
}

async function tenantNamed(pool: Pool, name: string): Promise<string> {
  const id = await tenantIdByName(pool, name.trim());
  // A typo must not set a budget nobody's jobs ever meet: the tenant must exist (its first key makes it).
  if (!id) throw new Error(`no tenant named ${JSON.stringify(name)} (a tenant is made with its first key: domainkit jobs keys create)`);
  return id;
}

/** `domainkit jobs budgets set`. */
export async function setTenantBudget(
  pool: Pool,
  registry: SourceRegistry,
  tenant: string,
  source: string,
  limit: string,
): Promise<Budget> {
  const refused = budgetRefusal(registry, source);
  if (refused) throw new Error(refused);
  const parsed = parseLimit(limit);
  return putBudget(pool, registry, await tenantNamed(pool, tenant), source, parsed);
}

/** `domainkit jobs budgets list`. */
export async function listTenantBudgets(pool: Pool, registry: SourceRegistry, tenant: string): Promise<Budget[]> {
  return tenantBudgets(pool, registry, await tenantNamed(pool, tenant));
}

/** A budget as the API and `--json` show it. */
export function budgetRecord(b: Budget) {
  return {
    source: b.source,
    unit: b.unit,
    monthly_limit: b.monthlyLimit,
    month: b.month,
    spent: b.spent,
    reserved: b.reserved,
    left: b.left,
  };
}

/** One line of `domainkit jobs budgets …`. */
export function formatBudget(b: Budget): string {
  if (b.monthlyLimit === null) return `${b.source} ${b.month}: no budget; spent ${b.spent} ${b.unit}`;
  return `${b.source} ${b.month}: limit ${b.monthlyLimit} ${b.unit}, spent ${b.spent}, reserved ${b.reserved}, left ${b.left}`;
}
