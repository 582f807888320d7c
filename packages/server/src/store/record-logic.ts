import type { ApiRecord, CountQuery, Value } from '../compile/record-types.ts';
import type { RowPath } from '../compile/row-access.ts';
import type { SqlColumn } from '../compile/sql-schema.ts';
import type { ListFilter, ListQuery, Position, Summary, SummaryGroup, SummaryQuery, TransitionWrite } from './store.ts';

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

/** How a dialect writes a list query's conditions: names quoted, values bound and converted. */
export interface ConditionDialect {
  quote(name: string): string;
  /** Adds a parameter and answers its placeholder. */
  bind(value: unknown): string;
  /** A value as the database stores it in this column (SQLite: booleans as 0 or 1). */
  toDb(column: SqlColumn, value: Value): unknown;
  /** Case-insensitive for ASCII letters: SQLite's LIKE is, PostgreSQL needs ILIKE. */
  like: 'LIKE' | 'ILIKE';
}

/** How a dialect writes a summary: its conditions, and a number column's total (`RecordsDialect.sum`). */
export interface SummaryDialect extends ConditionDialect {
  sum(column: SqlColumn): string;
}

/**
 * The decimal places a sum of this column keeps: a decimal field's own, or 9 for one that declares
 * none; null for an integer column, whose sums are exact.
 */
export function sumPlaces(column: SqlColumn): number | null {
  if (column.type !== 'decimal') return null;
  return column.scale ?? 9;
}

/**
 * The conditions a list query's filters, search and owner put on its rows (the count's too); the
 * page's keyset comes apart (`keysetCondition`), since the count does not take it. `columnOf`
 * checks each name against the table.
 */
export function listConditions(
  query: Pick<ListQuery, 'filters' | 'search' | 'owner'>,
  columnOf: (name: string) => SqlColumn,
  d: ConditionDialect,
): string[] {
  const where: string[] = query.filters.map((filter) => filterCondition(filter, columnOf, d));
  if (query.search) {
    const pattern = `%${escapeLike(query.search.text)}%`;
    const columns = query.search.columns.map(columnOf);
    where.push(`(${columns.map((c) => `${d.quote(c.name)} ${d.like} ${d.bind(pattern)} ESCAPE '\\'`).join(' OR ')})`);
  }
  if (query.owner) {
    const { userId, grants } = query.owner;
    const covered = grants.map((grant) => {
      const parts: string[] = [];
      if (grant.states !== null) {
        const state = d.quote(columnOf('state').name);
        parts.push(
          grant.states.length === 0 ? '1 = 0' : `${state} IN (${grant.states.map((s) => d.bind(s)).join(', ')})`,
        );
      }
      if (grant.paths !== null) {
        const paths = grant.paths.map((path) => pathCondition(path, userId, columnOf, d));
        parts.push(paths.length === 0 ? '1 = 0' : `(${paths.join(' OR ')})`);
      }
      return parts.length === 0 ? '1 = 1' : parts.join(' AND ');
    });
    where.push(covered.length === 0 ? '1 = 0' : `(${covered.map((c) => `(${c})`).join(' OR ')})`);
  }
  return where;
}

/** One filter of a list query as SQL; a group's conditions joined by OR. Values are bound, names quoted. */
function filterCondition(filter: ListFilter, columnOf: (name: string) => SqlColumn, d: ConditionDialect): string {
  if (filter.op === 'any') {
    return filter.filters.length === 0
      ? '1 = 0'
      : `(${filter.filters.map((f) => filterCondition(f, columnOf, d)).join(' OR ')})`;
  }
  if ((filter.op === undefined || filter.op === 'equal') && filter.path) {
    return filter.value === null ? '1 = 0' : pathCondition(filter.path, filter.value, columnOf, d);
  }
  const column = columnOf(filter.column);
  const c = d.quote(column.name);
  switch (filter.op) {
    case 'among':
      return filter.values.length === 0
        ? '1 = 0'
        : `${c} IN (${filter.values.map((v) => d.bind(d.toDb(column, v))).join(', ')})`;
    case 'notAmong':
      // "Is not" keeps the records with no value: they are not that value either.
      return filter.values.length === 0
        ? '1 = 1'
        : `(${c} IS NULL OR ${c} NOT IN (${filter.values.map((v) => d.bind(d.toDb(column, v))).join(', ')}))`;
    case 'contains':
      return `${c} ${d.like} ${d.bind(`%${escapeLike(filter.text)}%`)} ESCAPE '\\'`;
    case 'from':
    case 'to':
    case 'after':
    case 'before': {
      const op = { from: '>=', to: '<=', after: '>', before: '<' }[filter.op];
      return `${c} ${op} ${d.bind(d.toDb(column, filter.value))}`;
    }
    case 'empty':
      return `${c} ${filter.empty ? 'IS NULL' : 'IS NOT NULL'}`;
    default:
      return filter.value === null ? `${c} IS NULL` : `${c} = ${d.bind(d.toDb(column, filter.value))}`;
  }
}

/**
 * Rows whose chain of references leads to `value`: `"doctor" IN (SELECT "id" FROM "doctors" WHERE
 * "account" = ?)`. Tables and columns come from the compiled model and are quoted; the value is bound.
 */
function pathCondition(
  path: RowPath,
  value: Value,
  columnOf: (name: string) => SqlColumn,
  d: ConditionDialect,
): string {
  let tail = ` = ${d.bind(value)}`;
  for (const step of [...path.through].reverse()) {
    tail = ` IN (SELECT ${d.quote('id')} FROM ${d.quote(step.table)} WHERE ${d.quote(step.column)}${tail})`;
  }
  return `${d.quote(columnOf(path.column).name)}${tail}`;
}

/** A count's equal columns in one order (by column name), whatever order its limit names them in. */
export function sortedEqual(query: CountQuery): CountQuery['equal'] {
  return [...query.equal].sort((a, b) => (a.column < b.column ? -1 : a.column > b.column ? 1 : 0));
}

/**
 * The group a count reads, the same for every writer that counts it: the table, the equal columns
 * and values in `sortedEqual`'s order, and the period. PostgreSQL takes an advisory lock on it.
 */
export function countGroupKey(table: string, query: CountQuery): string {
  const within = query.within ? [query.within.column, query.within.from, query.within.to] : null;
  return JSON.stringify([table, sortedEqual(query).map((e) => [e.column, e.value]), within]);
}

/**
 * The conditions of a `TxReader.count` (equal columns in `sortedEqual`'s order, so one kind of
 * count is one statement). `columnOf` checks each name against the table; `stateAmong` writes
 * "state is one of these" in the dialect's way.
 */
export function countConditions(
  query: CountQuery,
  columnOf: (name: string) => SqlColumn,
  d: Omit<ConditionDialect, 'like'>,
  stateAmong: (states: readonly string[]) => string,
): string[] {
  const where: string[] = [];
  for (const { column: name, value } of sortedEqual(query)) {
    const column = columnOf(name);
    where.push(
      value === null ? `${d.quote(column.name)} IS NULL` : `${d.quote(column.name)} = ${d.bind(d.toDb(column, value))}`,
    );
  }
  if (query.states !== null) where.push(stateAmong(query.states));
  if (query.within) {
    const column = columnOf(query.within.column);
    if (column.type !== 'date' && column.type !== 'datetime') {
      throw new Error(`${query.entity}.${column.name} is not a date or date-time column`);
    }
    const c = d.quote(column.name);
    where.push(`${c} >= ${d.bind(query.within.from)}`);
    // Past year 9999 (`+010000-…`): no stored value is that late, and SQLite compares text.
    if (!query.within.to.startsWith('+')) where.push(`${c} < ${d.bind(query.within.to)}`);
  }
  if (query.excludeId !== null) where.push(`"id" <> ${d.bind(query.excludeId)}`);
  return where;
}

/**
 * A summary's SQL: one row per group (or one row), with `n` the count and `s0`, `s1`… the sums in
 * the order of `query.sums`, under the same filter and owner conditions as a list.
 */
export function summarySql(
  table: string,
  query: SummaryQuery,
  columnOf: (name: string) => SqlColumn,
  d: SummaryDialect,
): string {
  const where = listConditions(
    { filters: query.filters, search: query.search ?? null, owner: query.owner },
    columnOf,
    d,
  );
  const sums = query.sums.map((name, i) => `${d.sum(columnOf(name))} AS "s${i}"`);
  const by = query.by === null ? null : d.quote(columnOf(query.by).name);
  const select = [...(by ? [`${by} AS "g"`] : []), 'count(*) AS "n"', ...sums].join(', ');
  const whereSql = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
  return `SELECT ${select} FROM ${d.quote(table)}${whereSql}${by ? ` GROUP BY ${by}` : ''}`;
}

/**
 * A summary from `summarySql`'s rows: numbers as numbers (drivers answer big counts and NUMERIC
 * sums as text), groups largest first, totals over the groups. `value` turns a stored group value
 * into the API's (SQLite's 0 and 1 into booleans). A total over groups is added in floating point
 * here on every database, so it is rounded as the groups' sums are (`sumPlaces`).
 */
export function summaryOf(
  query: SummaryQuery,
  rows: readonly Record<string, unknown>[],
  value: (stored: unknown) => Value,
  columnOf: (name: string) => SqlColumn,
): Summary {
  const sumsOf = (row: Record<string, unknown>) =>
    Object.fromEntries(query.sums.map((name, i) => [name, Number(row[`s${i}`] ?? 0)]));
  if (query.by === null) {
    const row = rows[0] ?? {};
    return { count: Number(row.n ?? 0), sums: sumsOf(row), groups: null };
  }
  const groups: SummaryGroup[] = rows.map((row) => ({
    value: value(row.g ?? null),
    count: Number(row.n),
    sums: sumsOf(row),
  }));
  groups.sort((a, b) => b.count - a.count || String(a.value ?? '').localeCompare(String(b.value ?? '')));
  const sums = Object.fromEntries(
    query.sums.map((name) => {
      const total = groups.reduce((t, g) => t + (g.sums[name] ?? 0), 0);
      const places = sumPlaces(columnOf(name));
      return [name, places === null ? total : Number(total.toFixed(places))];
    }),
  );
  return { count: groups.reduce((t, g) => t + g.count, 0), sums, groups };
}
