import type { DiagnosticBag } from './diagnostics.ts';
import type { Span } from './model.ts';
import { plain } from './names.ts';
import type { Section } from './parse-sections.ts';
import { type Cell, type ColumnSpec, keyedRows, mapColumns, type Table, type TableRow } from './parse-tables.ts';
import { subSpan } from './spans.ts';

/** Every table of a section, its own and its sub-sections', in source order. */
export function allTables(section: Section): Table[] {
  return [...section.tables, ...section.subsections.flatMap((s) => s.tables)].sort(
    (a, b) => a.span.offset - b.span.offset,
  );
}

/** The rows of each table with columns mapped; tables that lack a required column give no rows. */
export function rowsOf(
  tables: readonly Table[],
  columns: readonly ColumnSpec[],
  bag: DiagnosticBag,
  what: string,
): TableRow[] {
  const rows: TableRow[] = [];
  for (const table of tables) {
    const { keys, ok } = mapColumns(table, columns, bag, what);
    if (ok) rows.push(...keyedRows(table, keys));
  }
  return rows;
}

/** A cell with Markdown emphasis/backticks around the value removed (span narrowed to match). */
export function cellOf(row: TableRow, key: string): Cell {
  const cell = row.cells.get(key) ?? { text: '', span: row.span };
  const text = plain(cell.text);
  const at = text === '' ? 0 : cell.text.indexOf(text);
  return { text, span: subSpan(cell.span, at, text.length) };
}

/** The cell's text, or a reported `empty-cell` and null when it is empty. */
export function requiredCell(row: TableRow, key: string, bag: DiagnosticBag, what: string): Cell | null {
  const cell = cellOf(row, key);
  if (cell.text !== '' && !/^[-—–]$/.test(cell.text)) return cell;
  bag.report('empty-cell', cell.span, `${what} needs a value in its "${key}" cell.`);
  return null;
}

/** The documentation cell of a row ("" when none). */
export function docOf(row: TableRow): string {
  return row.cells.get('doc')?.text ?? '';
}

/** Checks a name against its rule; reports `invalid-name` and returns false when it breaks it. */
export function validName(cell: Cell, pattern: RegExp, bag: DiagnosticBag, kind: string, rule: string): boolean {
  if (pattern.test(cell.text)) return true;
  bag.report('invalid-name', cell.span, `"${cell.text}" is not a valid ${kind} name.`, { hint: `${rule}.` });
  return false;
}

/** Tracks names already seen in one namespace and reports the second use of each. */
export class NameSet {
  readonly #seen = new Map<string, Span>();
  readonly bag: DiagnosticBag;
  readonly kind: string;
  readonly code: 'duplicate-name' | 'duplicate-call';

  constructor(bag: DiagnosticBag, kind: string, code: 'duplicate-name' | 'duplicate-call' = 'duplicate-name') {
    this.bag = bag;
    this.kind = kind;
    this.code = code;
  }

  /** Records the name; returns false (after reporting) when it was seen before. */
  add(cell: Cell, key = cell.text): boolean {
    const first = this.#seen.get(key);
    if (first) {
      this.bag.report(
        this.code,
        cell.span,
        `The ${this.kind} "${cell.text}" is defined twice${key === cell.text ? '' : ` (as ${key})`}.`,
        {
          hint: `It was first defined at line ${first.line}. Rename or remove one of them.`,
        },
      );
      return false;
    }
    this.#seen.set(key, cell.span);
    return true;
  }
}

/** The `:param` names of a route or path. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1] ?? '');
}
