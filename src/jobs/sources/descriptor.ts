// What a source is, said once, next to its adapter: its name, batch size, typed columns, default limits, how
// it is billed, its own settings and how its adapter is built. The API's schemas, the engine's queues and
// slots, the task table's columns, result rows and CSV, and the JOBS_<NAME>_* settings all come from these.
import type { LookupFunction } from 'node:net';
import type { Outbound } from '../../platform/net/index.ts';
import type { Billing } from './cost.ts';
import type { SourceAdapter } from './source.ts';

export type { Billing };

/** The SQL types a typed column may have (as PostgreSQL's `format_type` names them, once mapped). */
export const COLUMN_TYPES = {
  integer: 'integer',
  bigint: 'bigint',
  'double precision': 'double precision',
  boolean: 'boolean',
  timestamptz: 'timestamp with time zone',
} as const;
export type ColumnType = keyof typeof COLUMN_TYPES;

/** A typed result column: a column of the `tasks` table, a field of the source's result rows and a CSV column. */
export interface TypedColumn {
  name: string;
  type: ColumnType;
}

/** In flight across every worker (`JOBS_<NAME>_CONCURRENCY`) and requests per second, 0 = none (`JOBS_<NAME>_RATE`). */
export interface SourceLimits {
  concurrency: number;
  rate: number;
}

/** How a source reads its own settings: with config.ts's reader, so a bad value stops the program in one line. */
export interface SettingReader {
  /** A credential: its text, or undefined when unset; never shown in an error. */
  secret(name: string): string | undefined;
  /** An absolute http(s) URL, or `fallback` when unset. */
  url(name: string, fallback: string): string;
  /** Refuses the settings with a one-line problem naming `name` (settings that go together). */
  fail(name: string, problem: string): never;
}

/** What a worker gives an adapter. Both clients record each request under the source's `provider`. */
export interface AdapterDeps {
  /** For the providers, whose hosts the operator sets (any address). */
  providerHttp: Outbound;
  /** For addresses users choose (ping), under the address policy. */
  outbound: Outbound;
  /** The resolver `outbound` uses too (default `dns.lookup`). */
  lookup?: LookupFunction | undefined;
  userAgent: string;
}

export interface SourceDescriptor<Settings = unknown> {
  /** In `job_types`, task rows, queue names (`task.<name>`) and settings (`JOBS_<NAME>_CONCURRENCY`): `[a-z][a-z0-9_]*`. */
  readonly name: string;
  /** Who answers: the `provider` label of its request metrics (both Ahrefs sources are `ahrefs`). */
  readonly provider: string;
  /** Domains per upstream call. */
  readonly batchSize: number;
  /** Its typed result columns, in the order results and CSV show them. */
  readonly columns: readonly TypedColumn[];
  readonly defaults: SourceLimits;
  readonly billing: Billing;
  /** Its settings beyond `JOBS_<NAME>_*`: credentials and base address (docs/providers.md). */
  readSettings(read: SettingReader): Settings;
  /** Its adapter in a worker, with the settings `readSettings` gave. */
  createAdapter(settings: Settings, deps: AdapterDeps): SourceAdapter;
}
