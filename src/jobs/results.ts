// Result rows as the API shows them: common fields, the typed columns of the row's source, and `raw`.
import { stringify } from 'csv-stringify/sync';
import { JOB_SOURCES, type JobSource } from '../config.ts';
import type { ResultRow } from './store.ts';

/** Each source's typed columns (units: docs/providers.md), in the order CSV prints them. */
export const TYPED_COLUMNS: Record<JobSource, readonly string[]> = {
  seokicks: ['linkpop', 'domainpop', 'ip_pop', 'classc_pop'],
  moz: ['domain_authority', 'page_authority', 'spam_score', 'linking_domains', 'inbound_links'],
  ahrefs_backlinks: ['domain_rating', 'backlinks', 'ref_domains', 'dofollow_pct'],
  ahrefs_traffic: ['organic_traffic', 'traffic_value'],
  wayback: ['snapshot_count', 'first_snapshot_at', 'last_snapshot_at'],
  ping: ['reachable', 'status_code', 'response_ms'],
};

export interface ApiResult extends Record<string, unknown> {
  domain: string;
  source: JobSource;
  status: 'ok' | 'error';
  error: { code: string; message: string } | null;
  fetched_at: string | null;
  duration_ms: number | null;
  raw: unknown;
}

export function toApiResult(row: ResultRow): ApiResult {
  const result: ApiResult = {
    domain: row.domain,
    source: row.source,
    status: row.state,
    error: row.errorCode ? { code: row.errorCode, message: row.errorMessage ?? '' } : null,
    fetched_at: iso(row.fetchedAt),
    duration_ms: row.durationMs,
    raw: row.raw ?? null,
  };
  for (const column of TYPED_COLUMNS[row.source]) result[column] = typed(row[column]);
  return result;
}

/** One CSV line per row, one column per typed field of the job's sources (empty where not the row's own). */
export function resultsCsv(jobTypes: readonly JobSource[], rows: ResultRow[]): string {
  const typedColumns = JOB_SOURCES.filter((s) => jobTypes.includes(s)).flatMap((s) => TYPED_COLUMNS[s]);
  const header = ['domain', 'source', 'status', 'error_code', 'error_message', 'fetched_at', 'duration_ms', ...typedColumns];
  const records = rows.map((row) => {
    const own = new Set(TYPED_COLUMNS[row.source]);
    return [
      row.domain,
      row.source,
      row.state,
      row.errorCode ?? '',
      row.errorMessage ?? '',
      iso(row.fetchedAt) ?? '',
      row.durationMs ?? '',
      ...typedColumns.map((c) => (own.has(c) ? csvValue(typed(row[c])) : '')),
    ];
  });
  return stringify([header, ...records], { record_delimiter: '\r\n', cast: { boolean: (v) => String(v) } });
}

function typed(value: unknown): unknown {
  return value instanceof Date ? value.toISOString() : (value ?? null);
}

function csvValue(value: unknown): string | number | boolean {
  return value === null || value === undefined ? '' : (value as string | number | boolean);
}

function iso(date: Date | null): string | null {
  return date ? date.toISOString() : null;
}
