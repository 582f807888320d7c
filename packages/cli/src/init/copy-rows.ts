import {
  type AccountsDatabase,
  compileApp,
  type ImportProgress,
  type ImportReport,
  importTable,
  type Position,
  type UserAccount,
} from '@ninepoint/server';
import type { Model } from '@ninepoint/spec';
import { SourceError, type SourceRows, type SourceTable } from './source-schema.ts';
import type { EntityPlan, FieldPlan } from './spec-from-schema.ts';

/** One entity's rows copied, or the import's report of why none were. */
export interface CopyOutcome {
  entity: EntityPlan;
  report: ImportReport;
}

export interface CopyOptions {
  source: SourceRows;
  tables: readonly SourceTable[];
  entities: readonly EntityPlan[];
  model: Model;
  db: AccountsDatabase;
  user: UserAccount;
  /** Told as each entity's rows are checked and written (for a progress bar). */
  progress?: (progress: ImportProgress) => void;
}

/**
 * Copies a source's rows into the app's database through `importTable`, the path `ninepoint
 * import` takes (each row passes what a create passes, history says `how: import`), an entity at a
 * time, referenced entities first. A reference cell carries the Ninepoint id of the record copied
 * from the row the source's key names (looked up after that entity was copied, by the field that
 * keeps the key); rows that refer to rows of their own table are copied in rounds, parents first.
 * Stops at the first entity with a refused row and returns the outcomes so far; the caller
 * discards the database then, so that nothing is half copied.
 */
export async function copyRows(options: CopyOptions): Promise<CopyOutcome[]> {
  const compiled = compileApp(options.model);
  const keys = new KeptKeys(options);
  const outcomes: CopyOutcome[] = [];
  for (const entity of copyOrder(options.entities)) {
    const table = options.tables.find((t) => t.name === entity.table);
    if (!table) continue;
    const fields = entity.fields.filter((f) => f.column !== '');
    // Nothing of the table could be translated (only a binary column, say): there is nothing to copy.
    if (fields.length === 0) continue;
    const indexes = fields.map((f) => table.columns.findIndex((c) => c.name === f.column));
    const selfColumns = fields.filter((f) => f.references?.table === entity.table);
    const cells = (row: (string | null)[]) => fields.map((f, i) => cellText(f, row[indexes[i] ?? -1] ?? null, keys));
    const run = async (rows: AsyncIterable<string[]>) =>
      importTable({
        compiled,
        store: options.db.store,
        auth: options.db.auth,
        user: options.user,
        entity: entity.entity,
        file: csv(
          fields.map((f) => f.name),
          rows,
        ),
        kind: 'csv',
        dryRun: false,
        ...(options.progress ? { progress: options.progress } : {}),
      });
    let report: ImportReport;
    if (selfColumns.length === 0) {
      report = await run(mapRows(options.source.rows(table), cells));
    } else {
      report = await copyInRounds(table, entity, fields, indexes, keys, options, cells, run);
    }
    outcomes.push({ entity, report });
    if (report.refused > 0) return outcomes;
    await keys.remember(entity);
  }
  return outcomes;
}

/** Entities in an order where every entity comes after those it refers to (itself aside). */
export function copyOrder(entities: readonly EntityPlan[]): EntityPlan[] {
  const done = new Set<string>();
  const ordered: EntityPlan[] = [];
  let left = [...entities];
  while (left.length > 0) {
    const ready = left.filter((e) =>
      e.fields.every((f) => !f.references || f.references.table === e.table || done.has(f.references.table)),
    );
    if (ready.length === 0) {
      const names = left.map((e) => e.entity).join(', ');
      throw new SourceError(
        `the rows cannot be copied: ${names} refer to each other in a circle, so none can be copied first. ` +
          'The spec was not written; run init without --import-data, then import the rows with ninepoint import.',
      );
    }
    for (const e of ready) {
      done.add(e.table);
      ordered.push(e);
    }
    left = left.filter((e) => !ready.includes(e));
  }
  return ordered;
}

/** A table whose rows refer to its own rows: copied in rounds, each the rows whose parents are in. */
async function copyInRounds(
  table: SourceTable,
  entity: EntityPlan,
  fields: FieldPlan[],
  indexes: number[],
  keys: KeptKeys,
  options: CopyOptions,
  cells: (row: (string | null)[]) => string[],
  run: (rows: AsyncIterable<string[]>) => Promise<ImportReport>,
): Promise<ImportReport> {
  let pending: (string | null)[][] = [];
  for await (const row of options.source.rows(table)) pending.push(row);
  const self = fields
    .map((f, i) => ({ f, index: indexes[i] ?? -1 }))
    .filter(({ f }) => f.references?.table === entity.table);
  const total: ImportReport = { dryRun: false, rows: 0, imported: 0, refused: 0, errors: [], more: 0 };
  while (pending.length > 0) {
    const ready = pending.filter((row) =>
      self.every(({ f, index }) => {
        const value = row[index];
        return value === null || value === undefined || keys.id(f, value) !== undefined;
      }),
    );
    // Rows whose parents will never come (a circle, a dangling key) go through as they are: the import refuses them.
    const round = ready.length > 0 ? ready : pending;
    const report = await run(
      (async function* () {
        for (const row of round) yield cells(row);
      })(),
    );
    total.rows += report.rows;
    total.imported += report.imported;
    total.refused += report.refused;
    total.errors.push(...report.errors);
    total.more += report.more;
    if (report.refused > 0 || round === pending) return total;
    await keys.remember(entity);
    const taken = new Set(round);
    pending = pending.filter((row) => !taken.has(row));
  }
  return total;
}

/** The cell a value is written as: a reference as the id of the record copied from the row it names. */
function cellText(field: FieldPlan, value: string | null, keys: KeptKeys): string {
  if (value === null) return '';
  switch (field.kind) {
    case 'reference':
      // A key no copied row has is passed on as it is: the import refuses the row and says so.
      return keys.id(field, value) ?? value;
    case 'boolean':
      return value === 't' ? 'true' : value === 'f' ? 'false' : value;
    case 'datetime':
      return isoInstant(value);
    case 'date':
      return /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : value;
    case 'text':
    case 'choice':
      // A leading = would be read as a formula; the apostrophe is what a spreadsheet writes for that.
      return /^[=]/.test(value) ? `'${value}` : value;
    default:
      return value;
  }
}

/** `2024-01-05 10:00:00` (no zone: UTC), `2024-01-05 10:00:00+02`, a Unix time in seconds → ISO 8601. */
export function isoInstant(value: string): string {
  if (/^\d{9,11}(\.\d+)?$/.test(value)) return new Date(Number(value) * 1000).toISOString();
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i.exec(
    value.trim(),
  );
  if (!m) return value;
  let zone = m[3] ?? 'Z';
  if (/^[+-]\d{2}$/.test(zone)) zone += ':00';
  else if (/^[+-]\d{4}$/.test(zone)) zone = `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const date = new Date(`${m[1]}T${m[2]}${zone}`);
  return Number.isNaN(date.getTime()) ? value : date.toISOString();
}

/**
 * The copied records' ids by the source key of each column another table refers to
 * (`table.column` → key → id). Each record is listed once: after a round of a table, only the
 * records made since the last listing are read (ids only grow: uuidv7 within this process), so a
 * table copied in many rounds (its rows referring to its own) is not listed again every round.
 */
class KeptKeys {
  readonly #options: CopyOptions;
  readonly #ids = new Map<string, Map<string, string>>();
  /** The last record id listed, by entity. */
  readonly #listed = new Map<string, string>();

  constructor(options: CopyOptions) {
    this.#options = options;
  }

  /** The id of the record copied from the row whose `value` the reference field names. */
  id(field: FieldPlan, value: string): string | undefined {
    return this.#ids.get(`${field.references?.table}.${field.references?.column}`)?.get(value);
  }

  /** After rows of an entity were copied: the keys of its records made since it was last listed. */
  async remember(entity: EntityPlan): Promise<void> {
    const wanted = new Set(
      this.#options.entities.flatMap((e) =>
        e.fields.filter((f) => f.references?.table === entity.table).map((f) => f.references?.column ?? ''),
      ),
    );
    const kept = entity.fields.flatMap((field) => {
      if (!wanted.has(field.column)) return [];
      const name = `${entity.table}.${field.column}`;
      const map = this.#ids.get(name) ?? new Map<string, string>();
      this.#ids.set(name, map);
      return [{ field, map }];
    });
    if (kept.length === 0) return;
    const records = this.#options.db.store.records(entity.entity);
    const last = this.#listed.get(entity.entity);
    let after: Position | null = last === undefined ? null : { value: last, id: last };
    for (;;) {
      const page = await records.list({
        sort: { column: 'id', descending: false },
        filters: [],
        search: null,
        owner: null,
        after,
        limit: 1000,
        count: false,
      });
      for (const record of page.records) {
        for (const { field, map } of kept) {
          const value = record[field.name];
          if (value !== null && value !== undefined) map.set(String(value), String(record.id));
        }
        this.#listed.set(entity.entity, String(record.id));
      }
      if (!page.next) break;
      after = page.next;
    }
  }
}

async function* mapRows<T>(rows: AsyncIterable<(string | null)[]>, f: (row: (string | null)[]) => T) {
  for await (const row of rows) yield f(row);
}

/** Rows as CSV bytes (RFC 4180: every cell quoted), header first. */
async function* csv(header: string[], rows: AsyncIterable<string[]>): AsyncGenerator<Uint8Array> {
  const line = (cells: string[]) => `${cells.map((c) => `"${c.replaceAll('"', '""')}"`).join(',')}\r\n`;
  let chunk = line(header);
  for await (const row of rows) {
    chunk += line(row);
    if (chunk.length >= 1 << 16) {
      yield Buffer.from(chunk, 'utf8');
      chunk = '';
    }
  }
  yield Buffer.from(chunk, 'utf8');
}
