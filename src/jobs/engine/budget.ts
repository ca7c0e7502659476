// What an entry of a billed source spends: before each call, for a tenant with a budget on the source, the
// batch's estimated cost is held against this month's budget (refused when it does not fit); the entry's settle
// replaces its holds with what the calls cost, added to the month's spending (budget or not). Free sources
// (no billing unit) do none of this.
import type { Pool, Queryable } from '../../platform/db/index.ts';
import { estimateCost, type Outcome, type Source } from '../sources/index.ts';
import { budgetLimit, releaseHolds, reserveBudget, settleSpending, type PendingTask, type TaskResult } from '../store/index.ts';

/** The error code of rows a budget left unfetched. */
export const BUDGET_EXCEEDED = 'budget_exceeded';

interface Owner {
  pool: Pool;
  source: Source;
  tenantId: string;
  entryId: string;
  jobId: string;
  /** How long a hold counts unless the worker's heartbeat renews it. */
  leaseSeconds: number;
}

export class EntrySpending {
  readonly #owner: Owner;
  #limited: boolean;
  readonly #holds: string[] = [];
  #amount = 0;

  private constructor(owner: Owner, limited: boolean) {
    this.#owner = owner;
    this.#limited = limited;
  }

  /** Undefined for a free source; otherwise one read of the tenant's budget on the source. */
  static async open(owner: Owner): Promise<EntrySpending | undefined> {
    if (owner.source.billing.unit === null) return undefined;
    return new EntrySpending(owner, (await budgetLimit(owner.pool, owner.tenantId, owner.source.name)) !== undefined);
  }

  /** Whether calls of this entry hold budget they have not settled yet. */
  get holding(): boolean {
    return this.#holds.length > 0;
  }

  /** Holds the estimate of a call for `domains` domains; a message saying why when the budget cannot take it. */
  async reserve(domains: number): Promise<string | undefined> {
    if (!this.#limited) return undefined;
    const { pool, source, tenantId, entryId, jobId, leaseSeconds } = this.#owner;
    const amount = estimateCost(source, domains);
    const held = await reserveBudget(pool, { tenantId, source: source.name, amount, entryId, jobId, leaseSeconds });
    if (held === undefined) {
      this.#limited = false; // removed meanwhile
      return undefined;
    }
    if (held.held) {
      this.#holds.push(held.holdId);
      return undefined;
    }
    return (
      `the monthly budget of ${source.name} for ${held.month} is reached: limit ${held.limit} ${source.billing.unit}, ` +
      `${held.spent} spent, ${held.reserved} held by calls in flight, this call estimated at ${amount}`
    );
  }

  /** Adds what a call's outcomes cost (each domain's share, failed attempts included). */
  spent(outcomes: readonly Outcome[]): void {
    for (const outcome of outcomes) this.#amount += outcome.spend?.amount ?? 0;
  }

  /** In the settle's transaction: the holds give way to what was spent. */
  async settle(tx: Queryable): Promise<void> {
    if (this.#holds.length === 0 && this.#amount === 0) return;
    const { tenantId, source } = this.#owner;
    await settleSpending(tx, { tenantId, source: source.name, holdIds: this.#holds, amount: this.#amount });
  }

  /** The settle failed (nothing of the run was kept): the holds go now rather than at the end of their lease. */
  async release(): Promise<void> {
    await releaseHolds(this.#owner.pool, this.#holds);
  }
}

/** Error rows for tasks a budget left unfetched; `attempts` is what earlier attempts of the rows made. */
export function budgetExceeded(tasks: readonly PendingTask[], message: string, attempts: number): TaskResult[] {
  const now = new Date().toISOString();
  return tasks.map((task) => ({
    position: task.position,
    state: 'error',
    attempts,
    fetched_at: now,
    duration_ms: 0,
    error_code: BUDGET_EXCEEDED,
    error_message: message,
    raw: null,
  }));
}
