// Result rows as the API shows them: common fields, the typed columns of the row's source, and `raw`; or CSV.
import { stringify } from 'csv-stringify/sync';
import type { SourceRegistry } from '../sources/index.ts';
import type { ResultRow } from '../store/index.ts';
import type { RowCostView } from './cost-schemas.ts';
import type { ResultView } from './schemas.ts';

export function resultView(row: ResultRow, sources: SourceRegistry): ResultView {
  const result: ResultView = {
    domain: row.domain,
    source: row.source,
    status: row.state,
    error: row.errorCode ? { code: row.errorCode, message: row.errorMessage ?? '' } : null,
    fetched_at: iso(row.fetchedAt),
    duration_ms: row.durationMs,
    cost: rowCost(row, sources),
    cached_from: row.cachedFrom,
    raw: row.raw ?? null,
  };
  for (const column of sources.columnsOf(row.source)) result[column.name] = typed(row[column.name]);
  return result;
}

/** What a row's requests cost, in its source's unit; null for rows finished before costs were recorded. */
function rowCost(row: ResultRow, sources: SourceRegistry): RowCostView {
  if (row.cost === null || row.costBasis === null) return null;
  return { amount: Number(row.cost), unit: sources.get(row.source)?.billing.unit ?? null, basis: row.costBasis, calls: row.calls ?? 0 };
}

/**
 * One CSV line per row, one column per typed field of the job's sources in the fixed source order (empty where
 * not the row's own), then the row's cost (`cost`, `cost_unit`, `cost_basis`, `calls`) and `cached_from`: after
 * every other column, so the columns of earlier versions keep their places; `raw` is not in the CSV.
 */
export function resultsCsv(jobTypes: readonly string[], rows: ResultRow[], sources: SourceRegistry): string {
  const typedColumns = [
    ...new Set(sources.names.filter((s) => jobTypes.includes(s)).flatMap((s) => sources.columnsOf(s).map((c) => c.name))),
  ];
  const header = [
    'domain',
    'source',
    'status',
    'error_code',
    'error_message',
    'fetched_at',
    'duration_ms',
    ...typedColumns,
    ...LATER_COLUMNS,
  ];
  const records = rows.map((row) => {
    const own = new Set(sources.columnsOf(row.source).map((c) => c.name));
    return [
      row.domain,
      row.source,
      row.state,
      row.errorCode ?? '',
      row.errorMessage ?? '',
      iso(row.fetchedAt) ?? '',
      row.durationMs ?? '',
      ...typedColumns.map((c) => (own.has(c) ? csvValue(typed(row[c])) : '')),
      ...costCells(rowCost(row, sources)),
      row.cachedFrom ?? '',
    ];
  });
  return stringify([header, ...records], { record_delimiter: '\r\n', cast: { boolean: (v) => String(v) } });
}

const LATER_COLUMNS = ['cost', 'cost_unit', 'cost_basis', 'calls', 'cached_from'];

function costCells(cost: RowCostView): (string | number)[] {
  return cost ? [cost.amount, cost.unit ?? '', cost.basis, cost.calls] : ['', '', '', ''];
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
