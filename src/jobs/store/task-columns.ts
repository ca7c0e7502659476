// The typed columns of the tasks table come from the source descriptors: each role that runs the jobs service
// adds the ones the table lacks when it starts, after the migrations, so a new source needs no migration of
// its own (docs/decisions.md, "Jobs engine").
import { createHash } from 'node:crypto';
import { COLUMN_TYPES, type TypedColumn } from '../sources/index.ts';
import type { Queryable } from '../../platform/db/index.ts';

/** A prepared statement: its name and text. */
export interface Statement {
  name: string;
  text: string;
}

/**
 * Statements that name every typed column, made once per list of columns by `build` (given the quoted column
 * names and a digest of them). Their names must carry the digest: a prepared statement's name must always
 * stand for the same text on a connection.
 */
export function perColumnList<T>(build: (names: string[], digest: string) => T): (columns: readonly TypedColumn[]) => T {
  const made = new WeakMap<readonly TypedColumn[], T>();
  return (columns) => {
    let statements = made.get(columns);
    if (statements === undefined) {
      const names = columns.map((c) => `"${c.name}"`);
      statements = build(names, createHash('sha256').update(names.join(',')).digest('hex').slice(0, 8));
      made.set(columns, statements);
    }
    return statements;
  };
}

/** The typed columns the table lacks. One that exists with another type stops the start: its data would not fit. */
export async function missingTypedColumns(db: Queryable, columns: readonly TypedColumn[]): Promise<TypedColumn[]> {
  const { rows } = await db.query<{ name: string; type: string }>(
    `SELECT attname AS name, format_type(atttypid, atttypmod) AS type FROM pg_attribute
     WHERE attrelid = 'tasks'::regclass AND attnum > 0 AND NOT attisdropped AND attname = ANY ($1::text[])`,
    [columns.map((c) => c.name)],
  );
  const existing = new Map(rows.map((r) => [r.name, r.type]));
  for (const column of columns) {
    const type = existing.get(column.name);
    if (type !== undefined && type !== COLUMN_TYPES[column.type]) {
      throw new Error(`tasks.${column.name} is ${type}, but a source declares it ${COLUMN_TYPES[column.type]}`);
    }
  }
  return columns.filter((c) => !existing.has(c.name));
}

/** Adds typed columns (nullable, no default: a change of the catalogue only, whatever the table's size). */
export async function addTypedColumns(db: Queryable, columns: readonly TypedColumn[]): Promise<void> {
  if (columns.length === 0) return;
  const clauses = columns.map((c) => `ADD COLUMN IF NOT EXISTS "${c.name}" ${COLUMN_TYPES[c.type]}`);
  await db.query(`ALTER TABLE tasks ${clauses.join(', ')}`);
}
