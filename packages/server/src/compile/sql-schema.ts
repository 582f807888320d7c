import { collectionName, type Entity, type Field, type Model, USER_ENTITY } from '@ninepoint/spec';
import { SERVER_FIELD_KINDS, type SqlType } from './field-kinds.ts';

/**
 * The database schema of a model, independent of the database: one table per entity with its
 * system columns, its field columns and the indexes the runtime's queries need. A dialect renders
 * it (`store/sqlite/sqlite-ddl.ts`); a later migration step diffs two of them.
 */
export interface SqlSchema {
  tables: SqlTable[];
}

export interface SqlTable {
  /** snake_case plural of the entity: `ExpenseReport` → `expense_reports`. */
  name: string;
  entity: string;
  columns: SqlColumn[];
  indexes: SqlIndex[];
}

export type { SqlType };

export interface SqlColumn {
  name: string;
  /** The declared field the column holds, or null for a system column. */
  field: string | null;
  type: SqlType;
  primaryKey: boolean;
  notNull: boolean;
  /** A literal default written into the DDL; dynamic defaults (now, today, me) are filled in by the runtime. */
  default: string | number | boolean | null;
  /** For a reference: the entity referred to (`User` included) and its table, null for `User`. */
  references: { entity: string; table: string | null } | null;
  /** For a decimal field that declares its places (`decimal(2)`): how many. */
  scale?: number;
}

export type IndexReason = 'unique' | 'reference' | 'state' | 'sort' | 'limit' | 'filter';

export interface SqlIndex {
  name: string;
  columns: string[];
  unique: boolean;
  /** Why the index exists (the first reason, when several ask for the same columns). */
  reason: IndexReason;
}

/** The column every list is sorted by by default, with `id` as the tie-breaker. */
export const DEFAULT_SORT_COLUMNS = ['created_at', 'id'] as const;

/** The table that records each applied model, so a later start can diff against it. */
export const SCHEMA_TABLE = '_ninepoint_schema';

/** The table of every record's history: one row per create, update, delete and transition. */
export const HISTORY_TABLE = '_ninepoint_history';

/**
 * A counter every write of a record bumps; a record's ETag is made from it (`records/etag.ts`). Field
 * names start with a lower-case letter, so this name cannot collide with a declared field, and the
 * API never shows it as a field.
 */
export const VERSION_COLUMN = '_version';

/**
 * When a record entered its state: kept for entities whose machine has a transition the system
 * takes `after` a time in a state (`timers/`), which finds due records by it. Not a field: the
 * API never shows it. A transition into the state the record is in does not restart it.
 */
export const STATE_SINCE_COLUMN = '_state_since';

/** Thrown when a model cannot be laid out as tables; the message says what to rename. */
export class SqlSchemaError extends Error {
  override name = 'SqlSchemaError';
}

/** `ExpenseReport` → `expense_reports`. */
export function tableName(entity: string): string {
  return collectionName(entity).replaceAll('-', '_');
}

/** Lays out a checked model as tables, columns and indexes. Throws SqlSchemaError on name clashes. */
export function compileSqlSchema(model: Pick<Model, 'entities' | 'machines' | 'rules' | 'screens'>): SqlSchema {
  const machines = new Set(model.machines.map((m) => m.entity));
  const extra = new Map<string, { columns: string[]; reason: IndexReason }[]>();
  const ask = (entity: string, columns: string[], reason: IndexReason): void => {
    extra.set(entity, [...(extra.get(entity) ?? []), { columns, reason }]);
  };
  for (const rule of model.rules) {
    const c = rule.condition;
    // Equality first, the period's range last: one index seek finds the counted group.
    if (c.kind === 'limit') {
      ask(
        c.entity,
        [...c.per, ...(c.states.length > 0 ? ['state'] : []), ...(c.period ? [c.period.field] : [])],
        'limit',
      );
    }
  }
  for (const screen of model.screens) {
    if (screen.entity)
      for (const filter of screen.filters) ask(screen.entity, [filter.field, ...DEFAULT_SORT_COLUMNS], 'filter');
  }
  // A transition the system takes after a time in a state finds its records by state and entry time.
  const timed = new Set(
    model.machines.filter((m) => m.transitions.some((t) => t.automatic?.kind === 'after')).map((m) => m.entity),
  );
  for (const entity of timed) ask(entity, ['state', STATE_SINCE_COLUMN], 'state');
  const tables = model.entities.map((entity) =>
    compileTable(entity, machines.has(entity.name), extra.get(entity.name) ?? [], timed.has(entity.name)),
  );
  checkNames(tables);
  return { tables };
}

function compileTable(
  entity: Entity,
  hasState: boolean,
  extra: readonly { columns: string[]; reason: IndexReason }[],
  timed = false,
): SqlTable {
  const name = tableName(entity.name);
  const system = (column: string, type: SqlType, notNull: boolean, primaryKey = false): SqlColumn => ({
    name: column,
    field: null,
    type,
    primaryKey,
    notNull,
    default: null,
    references: null,
  });
  const columns: SqlColumn[] = [
    system('id', 'text', true, true),
    system('created_at', 'datetime', true),
    system('updated_at', 'datetime', true),
    // Null when a signed-out visitor (role `anyone`) created the record.
    { ...system('created_by', 'text', false), references: { entity: USER_ENTITY, table: null } },
    ...(hasState ? [system('state', 'text', true)] : []),
    { ...system(VERSION_COLUMN, 'integer', true), default: 1 },
    ...(hasState && timed ? [system(STATE_SINCE_COLUMN, 'datetime', false)] : []),
    ...entity.fields.map(fieldColumn),
  ];

  const indexes = new Map<string, SqlIndex>();
  const known = new Set(columns.map((c) => c.name));
  const add = (columnNames: string[], reason: IndexReason, unique = false): void => {
    if (!columnNames.every((c) => known.has(c))) return;
    const key = columnNames.join(',');
    const same = indexes.get(key);
    if (same) {
      same.unique ||= unique;
      return;
    }
    const suffix = unique ? 'key' : 'idx';
    indexes.set(key, { name: `${name}_${columnNames.join('_')}_${suffix}`, columns: columnNames, unique, reason });
  };
  // An index for equality on a column also carries the default sort, so a list filtered by it
  // (a book's loans, the loans in state out) is read in order from the index: no sort step, and
  // its cursor pages are as fast at the millionth record as at the first.
  const sorted = (column: string): string[] => [column, ...DEFAULT_SORT_COLUMNS];
  for (const field of entity.fields) if (field.unique) add([field.name], 'unique', true);
  for (const field of entity.fields) if (field.type.kind === 'reference') add(sorted(field.name), 'reference');
  add(sorted('created_by'), 'reference');
  if (hasState) add(sorted('state'), 'state');
  add([...DEFAULT_SORT_COLUMNS], 'sort');
  for (const { columns: wanted, reason } of extra) add(wanted, reason);
  return { name, entity: entity.name, columns, indexes: [...indexes.values()] };
}

function fieldColumn(field: Field): SqlColumn {
  const type = field.type;
  return {
    name: field.name,
    field: field.name,
    type: SERVER_FIELD_KINDS[type.kind].storage,
    primaryKey: false,
    notNull: field.required,
    default: field.default && 'literal' in field.default ? field.default.literal : null,
    references:
      type.kind === 'reference'
        ? { entity: type.entity, table: type.entity === USER_ENTITY ? null : tableName(type.entity) }
        : null,
    ...(type.kind === 'decimal' && type.scale !== null ? { scale: type.scale } : {}),
  };
}

/**
 * Databases compare identifiers without case, and SQLite reserves `sqlite_…`: two entities whose
 * tables collide (`Person` and `People`), or two fields differing only in case, cannot be stored.
 */
function checkNames(tables: SqlTable[]): void {
  const problems: string[] = [];
  const objects = new Map<string, string>();
  const claim = (name: string, what: string): void => {
    const key = name.toLowerCase();
    const first = objects.get(key);
    if (first) problems.push(`${what} and ${first} would both be stored as "${name}".`);
    else objects.set(key, what);
  };
  for (const table of tables) {
    if (table.name.startsWith('sqlite_')) {
      problems.push(`Entity ${table.entity} would be stored as "${table.name}", a name SQLite reserves.`);
    }
    claim(table.name, `entity ${table.entity}`);
    for (const index of table.indexes) claim(index.name, `an index of ${table.entity}`);
    const columns = new Map<string, string>();
    for (const column of table.columns) {
      const first = columns.get(column.name.toLowerCase());
      if (first) problems.push(`${table.entity}.${column.name} and ${table.entity}.${first} differ only in case.`);
      else columns.set(column.name.toLowerCase(), column.name);
    }
  }
  if (problems.length > 0) {
    throw new SqlSchemaError(`The spec's entities cannot be stored: ${problems.join(' ')} Rename one of them.`);
  }
}
