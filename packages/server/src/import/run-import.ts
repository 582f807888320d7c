import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { Entity } from '@ninepoint/spec';
import { type ProblemCatalogue, ProblemError } from '../compile/problems.ts';
import type { ApiRecord } from '../compile/record-types.ts';
import type { RequestActor } from '../people/index.ts';
import type { RecordCreator } from '../records/index.ts';
import type { BatchCreate } from '../store/store.ts';
import { cellValue, isFormula } from './cell-values.ts';
import { type Column, type HeaderMatch, headerMatches, matchColumns } from './columns.ts';
import { columnName, TableError, type TableRow } from './read-table.ts';
import type { ReferenceResolver } from './references.ts';

/** The most refusals a report lists; `more` counts the rest. */
export const MAX_REPORTED = 1000;

/** One refusal of one row: where (the row as a spreadsheet numbers it, the column's header) and why. */
export interface ImportError {
  row: number;
  /** The column's header; null for a refusal about the whole row (a rule, a limit, a permission). */
  column: string | null;
  field: string | null;
  code: string;
  message: string;
}

export interface ImportReport {
  dryRun: boolean;
  /** Rows read, the header left out. */
  rows: number;
  /** Records created and committed: every row, or none. */
  imported: number;
  /** Rows refused. */
  refused: number;
  /** The refusals, by row, at most `MAX_REPORTED`. */
  errors: ImportError[];
  /** Refusals left out of `errors`. */
  more: number;
}

export interface ImportProgress {
  phase: 'checking' | 'writing';
  /** Rows done in this phase. */
  done: number;
  /** Rows in all, once known (while writing). */
  total: number | null;
}

export interface ImportRun {
  creator: RecordCreator;
  catalogue: ProblemCatalogue;
  resolver: ReferenceResolver;
  actor: RequestActor;
  /** The table, header first (`tableRows`). */
  rows: AsyncIterable<TableRow>;
  /** Report only: check every row as the import would, and write nothing. */
  dryRun: boolean;
  now: () => number;
  /** Header → field name, for headers that match no field by name or label. */
  mapping?: Readonly<Record<string, string>>;
  progress?: (progress: ImportProgress) => void;
}

/** How often progress is told, in rows. */
const PROGRESS_EVERY = 500;

/**
 * Imports a table's rows as records of one entity, all or nothing, in two passes:
 *
 * 1. **Reading** (streamed): each row's cells become a create's body (`cellValue`, references
 *    resolved by id, unique field or title: `ReferenceResolver`) and go through the records
 *    feature's create path (`RecordCreator.plan`: JSON Schema, the fields the actor may set,
 *    values, the record). A refusal is noted with its row and column; the rows that pass are
 *    spooled to a temporary file, so memory holds one row at a time however long the file.
 * 2. **Writing**: the spooled records are created in one transaction (`EntityRecords.createAll`),
 *    each with the create's own check (rules, the creating transition's guard, limits, references,
 *    uniqueness), every one tried; any refusal, or a dry run, rolls the transaction back.
 *
 * A file that cannot be read (`TableError`: encoding, header, a formula…) or an actor who may
 * not create throws before anything is written. History records each create with `how: import`.
 */
export async function runImport(run: ImportRun): Promise<ImportReport> {
  const { creator, actor } = run;
  creator.authorize(actor);
  const iterator = run.rows[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) throw new TableError('the file is empty: it needs a header row naming the fields');
  const columns = matchColumns(creator.entity, first.value.cells, run.mapping);
  const ms = run.now();
  const errors: ImportError[] = [];
  let refusedRows = 0;
  let rows = 0;
  const note = (found: ImportError[]) => {
    refusedRows++;
    for (const e of found) errors.push(e);
  };
  const spool = new Spool();
  let shared: Omit<BatchCreate, 'record'> | null = null;
  try {
    for (;;) {
      const next = await iterator.next();
      if (next.done) break;
      const { row, cells } = next.value;
      rows++;
      const { body, problems } = await rowBody(row, cells, columns, run.resolver);
      if (problems.length > 0) {
        note(problems);
        continue;
      }
      let write: BatchCreate;
      try {
        write = creator.plan(actor, body, ms, 'import');
      } catch (error) {
        if (!(error instanceof ProblemError)) throw error;
        note(rowErrors(error, row, columns, run.catalogue));
        continue;
      }
      // Every row of one import is made by one actor at one instant: one context and check serve all.
      shared ??= { context: write.context, ...(write.check ? { check: write.check } : {}) };
      spool.add(row, write.record);
      if (rows % PROGRESS_EVERY === 0) run.progress?.({ phase: 'checking', done: rows, total: null });
    }
    spool.finish();
    run.progress?.({ phase: 'checking', done: rows, total: rows });
    let imported = 0;
    if (shared !== null) {
      const common = shared;
      const rowNumbers: number[] = [];
      const total = spool.count;
      const outcome = await creator.records.createAll(
        () => {
          rowNumbers.length = 0;
          return spool.read((row, record) => {
            rowNumbers.push(row);
            return { ...common, record };
          });
        },
        {
          commit: !run.dryRun && refusedRows === 0,
          refuses: (error) => error instanceof ProblemError,
          progress: (done) => {
            if (done % PROGRESS_EVERY === 0 || done === total) run.progress?.({ phase: 'writing', done, total });
          },
        },
      );
      for (const refused of outcome.refused) {
        const row = rowNumbers[refused.index] ?? 0;
        const error = 'refusal' in refused ? creator.refusal(refused.refusal, '') : (refused.error as ProblemError);
        note(rowErrors(error, row, columns, run.catalogue));
      }
      if (outcome.committed) imported = outcome.created;
    }
    errors.sort((a, b) => a.row - b.row);
    const listed = errors.slice(0, MAX_REPORTED);
    return {
      dryRun: run.dryRun,
      rows,
      imported,
      refused: refusedRows,
      errors: listed,
      more: errors.length - listed.length,
    };
  } finally {
    spool.remove();
  }
}

/** A row's cells as a create's body; a formula ends the import, a reference that names no record is the row's problem. */
async function rowBody(
  row: number,
  cells: readonly string[],
  columns: readonly Column[],
  resolver: ReferenceResolver,
): Promise<{ body: Record<string, unknown>; problems: ImportError[] }> {
  const body: Record<string, unknown> = {};
  const problems: ImportError[] = [];
  for (const column of columns) {
    const text = cells[column.index] ?? '';
    if (isFormula(text)) {
      throw new TableError(
        `cell ${columnName(column.index + 1)}${row} (${column.header}) holds a formula (${text.slice(0, 40)}); ` +
          "formulas are never evaluated: give the value, or start the text with an apostrophe ('=) to keep it as text",
      );
    }
    const { field } = column;
    if (field.type.kind === 'reference' && text.trim() !== '') {
      const resolved = await resolver.resolve(field, text);
      if ('id' in resolved) body[field.name] = resolved.id;
      else
        problems.push({
          row,
          column: column.header,
          field: field.name,
          code: 'UNKNOWN_REFERENCE',
          message: `${field.name}: ${resolved.problem}.`,
        });
      continue;
    }
    const value = cellValue(field, text);
    if (value !== undefined) body[field.name] = value;
  }
  return { body, problems };
}

/** A create's problem as report lines: one per field at fault, or one for the row. */
function rowErrors(
  error: ProblemError,
  row: number,
  columns: readonly Column[],
  catalogue: ProblemCatalogue,
): ImportError[] {
  const header = (field: string | null) => columns.find((c) => c.field.name === field)?.header ?? null;
  const fieldErrors = error.extras.errors ?? [];
  if (fieldErrors.length > 0) {
    return fieldErrors.map((e) => ({ row, column: header(e.field), field: e.field, code: e.code, message: e.message }));
  }
  const body = catalogue.problem(error.code, error.params, { instance: '' }, error.extras);
  const field = typeof error.params.field === 'string' && error.params.field !== '' ? error.params.field : null;
  return [{ row, column: header(field), field, code: body.code, message: body.detail }];
}

/**
 * The rows that passed reading, as JSON lines in a temporary file: written in large blocks,
 * read back synchronously (the writing pass runs inside one transaction, which on SQLite is
 * synchronous) in blocks of `BLOCK` bytes.
 */
class Spool {
  static readonly BLOCK = 1 << 20;
  readonly #dir = mkdtempSync(join(tmpdir(), 'ninepoint-import-'));
  readonly #path = join(this.#dir, 'rows.jsonl');
  readonly #fd = openSync(this.#path, 'w');
  #closed = false;
  #buffer = '';
  count = 0;

  add(row: number, record: ApiRecord): void {
    this.#buffer += `${JSON.stringify([row, record])}\n`;
    this.count++;
    if (this.#buffer.length >= Spool.BLOCK) this.#flush();
  }

  finish(): void {
    this.#flush();
    closeSync(this.#fd);
    this.#closed = true;
  }

  *read<T>(make: (row: number, record: ApiRecord) => T): Generator<T> {
    const fd = openSync(this.#path, 'r');
    const bytes = Buffer.alloc(Spool.BLOCK);
    const decoder = new StringDecoder('utf8');
    let text = '';
    try {
      for (;;) {
        const n = readSync(fd, bytes, 0, bytes.length, null);
        if (n === 0) break;
        text += decoder.write(bytes.subarray(0, n));
        let start = 0;
        for (let end = text.indexOf('\n', start); end >= 0; end = text.indexOf('\n', start)) {
          const [row, record] = JSON.parse(text.slice(start, end)) as [number, ApiRecord];
          start = end + 1;
          yield make(row, record);
        }
        text = text.slice(start);
      }
    } finally {
      closeSync(fd);
    }
  }

  remove(): void {
    if (!this.#closed) {
      closeSync(this.#fd);
      this.#closed = true;
    }
    rmSync(this.#dir, { recursive: true, force: true });
  }

  #flush(): void {
    if (this.#buffer === '') return;
    writeSync(this.#fd, this.#buffer);
    this.#buffer = '';
  }
}

/** The first rows of a table and what its header cells match, for the web app's wizard. */
export interface TablePreview {
  columns: HeaderMatch[];
  rows: TableRow[];
  /** Rows in all, the header left out. */
  total: number;
}

/**
 * Reads the whole table (so that a file that cannot be read is said at once) and keeps its header's
 * matches and its first `count` rows; checks no row.
 */
export async function previewTable(
  entity: Entity,
  rows: AsyncIterable<TableRow>,
  count: number,
): Promise<TablePreview> {
  let columns: HeaderMatch[] | null = null;
  const kept: TableRow[] = [];
  let total = 0;
  for await (const row of rows) {
    if (columns === null) {
      columns = headerMatches(entity, row.cells);
      continue;
    }
    total++;
    if (kept.length < count) kept.push(row);
  }
  if (columns === null) throw new TableError('the file is empty: it needs a header row naming the fields');
  return { columns, rows: kept, total };
}
