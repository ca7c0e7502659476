// What an upstream request costs, in the unit its provider bills (docs/providers.md, "Cost"). A source's
// descriptor says the unit and the price (`Billing`); this file turns a provider's answer into what it cost,
// adds the requests of one row together, shares a call made for several rows among them, and estimates a job
// before it runs. Everything that speaks of cost (the engine's rows, the API's views, estimates, budgets) uses
// these rules and no other.

/**
 * What a source spends at its provider, as docs/providers.md says it ("Cost"); the functions
 * below turn it into each request's cost. `requests` counts upstream requests: per domain, per call (a batch of
 * `batchSize` domains) or per page of an answer; `atMost` when fewer may do.
 */
export interface Billing {
  /**
   * The unit the provider bills in (`ahrefs_units`, `moz_rows`, `seokicks_credits`): the unit of every cost of
   * the source. `null` when nobody's account pays (sources without credentials): their cost is always 0.
   */
  unit: string | null;
  requests: { count: number; per: 'domain' | 'call' | 'page'; atMost?: true };
  /**
   * What an answered (2xx) request costs by the provider's published pricing: so many units per request, or per
   * domain the request asks about. A source whose provider reports each request's cost is estimated with it.
   */
  price: { units: number; per: 'request' | 'domain' };
  /**
   * The response headers in which the provider reports what a request cost, the most exact first; the first
   * present wins over `price`.
   */
  reportedIn?: readonly string[];
}

/** What the cost of one request is made from: a source's billing without its request counts. */
export type Price = Pick<Billing, 'unit' | 'price' | 'reportedIn'>;

/** How a row's cost is known: every request's cost said by the provider, or (for any part) our price. */
export type CostBasis = 'reported' | 'computed';

/** What the upstream requests of one row (or one call) cost: `amount` in the source's unit, `calls` requests. */
export interface Spend {
  amount: number;
  basis: CostBasis;
  calls: number;
}

/** The price of sources nobody pays for (no credentials): their requests are counted, at 0. */
export const FREE: Price = { unit: null, price: { units: 0, per: 'request' } };

/** No request made: a source without credentials, a cached row. */
export const NOTHING_SPENT: Spend = { amount: 0, basis: 'computed', calls: 0 };

/** An answer as the cost rules read it: its status and headers; `undefined` for a request that got none. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * One request: what the provider reports in its answer when the source's billing names a header and the
 * answer carries a number there; otherwise the published price when the answer is a 2xx, and nothing when the
 * provider refused or never answered (it bills answers, not refusals). `domains` is how many domains the
 * request asked about (a batch call), for prices per domain.
 */
export function requestCost(billing: Price, answer: Answer | undefined, domains = 1): Spend {
  if (billing.unit === null || answer === undefined) return { amount: 0, basis: 'computed', calls: 1 };
  const reported = billing.reportedIn?.map((name) => headerNumber(answer.headers[name])).find((n) => n !== undefined);
  if (reported !== undefined) return { amount: reported, basis: 'reported', calls: 1 };
  const answered = answer.status >= 200 && answer.status < 300;
  const amount = answered ? billing.price.units * (billing.price.per === 'domain' ? domains : 1) : 0;
  return { amount, basis: 'computed', calls: 1 };
}

/** The spending of one row (or one call) as its requests are made, request by request. */
export class Tally {
  spend: Spend = NOTHING_SPENT;
  readonly #price: Price;
  constructor(price: Price) {
    this.#price = price;
  }

  /** Adds one request and its answer (`undefined`: it got none). */
  request(answer: Answer | undefined, domains = 1): void {
    this.spend = addSpend(this.spend, requestCost(this.#price, answer, domains));
  }
}

/** A request the provider answered but did not bill (SEOkicks' 200 saying the credits are used up). */
export function unbilled(spend: Spend): Spend {
  return { ...spend, amount: 0, basis: 'computed' };
}

/**
 * Two parts of one row's spending. The basis says how the amount is known: `reported` while every part that
 * adds to it was reported; a part that adds nothing by our own rule (no request, a refusal) does not change it.
 * The engine's SQL (store/tasks.ts, ADD_SPEND) adds attempts by the same rule.
 */
export function addSpend(a: Spend, b: Spend): Spend {
  const basis = neutral(b) ? (neutral(a) ? 'computed' : a.basis) : neutral(a) ? b.basis : a.basis === b.basis ? a.basis : 'computed';
  return { amount: a.amount + b.amount, basis, calls: a.calls + b.calls };
}

function neutral(spend: Spend): boolean {
  return spend.calls === 0 || (spend.amount === 0 && spend.basis === 'computed');
}

/**
 * A call made for `n` rows (a batch), shared so that the rows add up to the call exactly: each row gets the
 * integer part of amount / n (and of calls / n), and what is left over goes one unit each to the first rows,
 * in batch order. A fractional amount (no provider bills one today) leaves its fraction on the first row.
 */
export function splitSpend(spend: Spend, n: number): Spend[] {
  const amounts = share(spend.amount, n);
  const calls = share(spend.calls, n);
  return amounts.map((amount, i) => ({ amount, basis: spend.basis, calls: calls[i]! }));
}

function share(total: number, n: number): number[] {
  const each = Math.floor(total / n);
  const whole = Math.floor(total - each * n);
  const fraction = total - each * n - whole;
  return Array.from({ length: n }, (_, i) => each + (i < whole ? 1 : 0) + (i === 0 ? fraction : 0));
}

/**
 * What fetching `domains` domains of a source should cost by its published price: the planning figure of dry
 * runs and budgets. Requests that may be fewer (`atMost`) count in full, pages count one per domain, and a
 * source that reports its cost is estimated at its price (for Ahrefs, the charge of one request).
 */
export function estimateCost(source: { billing: Billing; batchSize: number }, domains: number): number {
  const { unit, price } = source.billing;
  if (unit === null || domains === 0) return 0;
  if (price.per === 'domain') return price.units * domains;
  return price.units * estimateCalls(source, domains);
}

/** The upstream requests fetching `domains` domains should take, counted as `estimateCost` counts them. */
export function estimateCalls(source: { billing: Billing; batchSize: number }, domains: number): number {
  const { requests } = source.billing;
  return requests.per === 'call' ? Math.ceil(domains / source.batchSize) * requests.count : requests.count * domains;
}

/** A header's value as a non-negative number, or undefined when absent or not one. */
function headerNumber(value: string | string[] | undefined): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text || !/^\d+(\.\d+)?$/.test(text)) return undefined;
  return Number(text);
}
