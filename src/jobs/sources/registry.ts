// The set of sources a program runs, built from a list of descriptors and handed to whatever needs to know
// them (the API's schemas, job creation, the engine, result rows and CSV, the settings). The list's order is
// the fixed source order: of `job_types` in the document, of typed columns in results and CSV.
import type { SourceDescriptor, TypedColumn } from './descriptor.ts';

export interface SourceRegistry {
  readonly descriptors: readonly SourceDescriptor[];
  readonly names: readonly string[];
  /** Every typed column of every source, each name once, in source order: the `tasks` table's typed columns. */
  readonly columns: readonly TypedColumn[];
  get(name: string): SourceDescriptor | undefined;
  /** The typed columns of one source (none for a name it does not know). */
  columnsOf(name: string): readonly TypedColumn[];
}

const NAME = /^[a-z][a-z0-9_]*$/;
/** Columns of every task row, and fields of every result row: a typed column cannot take these names. */
const RESERVED = new Set([
  'job_id',
  'position',
  'domain',
  'source',
  'state',
  'status',
  'attempts',
  'started_at',
  'fetched_at',
  'duration_ms',
  'error',
  'error_code',
  'error_message',
  'raw',
  'cost',
  'cost_unit',
  'cost_basis',
  'calls',
]);

/** Checks the descriptors against each other (names, column names and types) and indexes them. */
export function sourceRegistry(descriptors: readonly SourceDescriptor[]): SourceRegistry {
  const byName = new Map<string, SourceDescriptor>();
  const columns = new Map<string, TypedColumn>();
  for (const descriptor of descriptors) {
    if (!NAME.test(descriptor.name)) throw new Error(`source name ${JSON.stringify(descriptor.name)} is not [a-z][a-z0-9_]*`);
    if (byName.has(descriptor.name)) throw new Error(`two sources are named ${descriptor.name}`);
    if (!Number.isInteger(descriptor.batchSize) || descriptor.batchSize < 1) {
      throw new Error(`source ${descriptor.name}: batchSize must be a positive integer`);
    }
    byName.set(descriptor.name, descriptor);
    for (const column of descriptor.columns) {
      if (!NAME.test(column.name) || RESERVED.has(column.name)) {
        throw new Error(`source ${descriptor.name}: ${JSON.stringify(column.name)} cannot name a typed column`);
      }
      const known = columns.get(column.name);
      // Sources may share a column (it is one column of the table), but then with one type.
      if (known && known.type !== column.type) {
        throw new Error(`typed column ${column.name} is ${known.type} in one source and ${column.type} in ${descriptor.name}`);
      }
      if (!known) columns.set(column.name, column);
    }
  }
  return {
    descriptors,
    names: descriptors.map((d) => d.name),
    columns: [...columns.values()],
    get: (name) => byName.get(name),
    columnsOf: (name) => byName.get(name)?.columns ?? [],
  };
}
