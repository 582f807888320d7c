import type { SqlColumn } from '../compile/sql-schema.ts';
import type { ApiRecord, Position, TransitionWrite, Value } from './store.ts';

/**
 * What both stores compute the same way around their SQL: the changes a write makes, the record it
 * leaves, what a delete removes, and the keyset condition of a list page. Dialects differ only in
 * how they quote names and bind values, which the callers pass in.
 */

/** The fields a write changes (given and different), and the record as it would leave it. */
export function plannedWrite(
  fieldColumns: readonly SqlColumn[],
  current: ApiRecord,
  values: Record<string, Value>,
  transition: TransitionWrite | null,
  at: string,
): { changes: Record<string, Value>; record: ApiRecord } {
  const changes: Record<string, Value> = {};
  for (const column of fieldColumns) {
    const value = values[column.name];
    if (value !== undefined && value !== current[column.name]) changes[column.name] = value;
  }
  const record: ApiRecord = {
    ...current,
    ...changes,
    ...(transition ? { state: transition.to } : {}),
    updated_at: at,
  };
  return { changes, record };
}

/** A deleted record's fields (and state) as they were: its last history entry's `before`. */
export function lastValues(
  fieldColumns: readonly SqlColumn[],
  hasState: boolean,
  record: ApiRecord,
): Record<string, Value> {
  const values: Record<string, Value> = Object.fromEntries(fieldColumns.map((c) => [c.name, record[c.name] ?? null]));
  if (hasState) values.state = record.state ?? null;
  return values;
}

/** `LIKE` treats `%` and `_` as wildcards; with `ESCAPE '\'` these match themselves. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, '\\$&');
}

/**
 * The records after `after` in the order `sort, id`, NULLs first ascending and last descending
 * (SQLite's order, which PostgreSQL is told to keep). A row-value comparison with a NULL is never
 * true, so NULLs are handled apart. `bind` adds a parameter and answers its placeholder.
 */
export function keysetCondition(
  sort: SqlColumn,
  descending: boolean,
  after: Position,
  quote: (name: string) => string,
  bind: (value: unknown) => string,
): string {
  const op = descending ? '<' : '>';
  if (sort.name === 'id') return `"id" ${op} ${bind(after.id)}`;
  const c = quote(sort.name);
  if (after.value === null) {
    return descending
      ? `(${c} IS NULL AND "id" < ${bind(after.id)})`
      : `((${c} IS NULL AND "id" > ${bind(after.id)}) OR ${c} IS NOT NULL)`;
  }
  const row = `(${c}, "id") ${op} (${bind(after.value)}, ${bind(after.id)})`;
  return descending && !sort.notNull ? `(${row} OR ${c} IS NULL)` : row;
}
