// What every source is to the engine: a named fetcher of one batch of domains, whose outcome per domain is
// either typed columns with the upstream payload, or a classified error, with what its requests cost.
import type { Billing, Spend } from './cost.ts';

/** Error classes of result rows: docs/api/README.md, "Errors"; which answer gets which, docs/providers.md. */
export type ErrorCode =
  | 'source_not_configured'
  | 'upstream_auth'
  | 'upstream_quota'
  | 'upstream_no_data'
  | 'upstream_rate_limited'
  | 'upstream_unavailable'
  | 'upstream_bad_response'
  | 'internal_error';

/**
 * Errors that say nothing about the domain, only about the moment: the provider was unreachable, failing or
 * throttling, or our worker was lost. Asking again later may well succeed, so `POST /v1/jobs/{id}/retry`
 * re-runs these by default. The others need someone to act first (credentials, plan, quota: `upstream_auth`,
 * `upstream_quota`, `source_not_configured`) or are the provider's answer about the domain (`upstream_no_data`,
 * `upstream_bad_response`): asking again unchanged would pay for the same answer, so only `errors: "all"` does.
 */
export const TRANSIENT_ERRORS: readonly ErrorCode[] = ['upstream_unavailable', 'upstream_rate_limited', 'internal_error'];

export type Outcome = (
  | { ok: true; columns: Record<string, unknown>; raw: unknown }
  | {
      ok: false;
      code: ErrorCode;
      message: string;
      raw?: unknown;
      /** Worth another try later (timeouts, 429, 5xx); `retryAfterMs` when the upstream said how long. */
      transient?: { retryAfterMs?: number };
    }
) & {
  /**
   * What this domain's upstream requests cost (cost.ts: `requestCost`, and `splitSpend` for its share of a
   * batch call), whatever the outcome: a failed request may still have been billed. Absent: no request made.
   */
  spend?: Spend;
};

export interface FetchContext {
  /** Aborted when the worker stops; a source passes it to its requests. */
  signal: AbortSignal;
  /**
   * Waits until the source's shared request rate allows one more upstream request. A source calls it before
   * each request it makes (a task may need several, or none).
   */
  permit(): Promise<void>;
}

/** How a source gets its numbers: its provider adapter. */
export interface SourceAdapter {
  /** One outcome per domain, in the order given. Throws only on bugs; upstream trouble is an outcome. */
  fetch(domains: string[], context: FetchContext): Promise<Outcome[]>;
}

/** A source as a worker runs it: its descriptor's name and batch size, and its adapter. */
export interface Source extends SourceAdapter {
  name: string;
  /** Domains per upstream call (Moz: 10; the others: 1). */
  batchSize: number;
  /** Its descriptor's billing: what a batch is estimated to cost, held against a budget before the call. */
  billing: Billing;
}
