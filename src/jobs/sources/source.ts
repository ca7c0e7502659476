// What every source is to the engine: a named fetcher of one batch of domains, whose outcome per domain is
// either typed columns with the upstream payload, or a classified error.

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

export type Outcome =
  | { ok: true; columns: Record<string, unknown>; raw: unknown }
  | {
      ok: false;
      code: ErrorCode;
      message: string;
      raw?: unknown;
      /** Worth another try later (timeouts, 429, 5xx); `retryAfterMs` when the upstream said how long. */
      transient?: { retryAfterMs?: number };
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
}
