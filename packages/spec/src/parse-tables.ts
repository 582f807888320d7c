import type { DiagnosticBag } from './diagnostics.ts';
import type { Span } from './model.ts';
import { subSpan } from './spans.ts';

/** A table cell's text as written (trimmed, `\|` unescaped) and the span of that text. */
export interface Cell {
  text: string;
  span: Span;
}

export interface RawRow {
  cells: Cell[];
  /** For each cell, the 0-based index in the line of the unescaped `|` that opens it; -1 when none does. */
  opens: number[];
  span: Span;
}

export interface Table {
  header: Cell[];
  rows: RawRow[];
  /**
   * Rows with more cells than the header, each as the span from the `|` that opens the first
   * cell beyond the header to the end of the last: GFM drops those cells, so the reader cannot
   * see them, and an unescaped `||` in a guard would otherwise lose half its condition.
   */
  overflow: Span[];
  span: Span;
}

export interface TableRow {
  /** Cells by column key; a column the row lacks gives an empty cell at the row's end. */
  cells: Map<string, Cell>;
  span: Span;
}

/**
 * Splits one table row (a line markdown-it has recognised as one) into cells with exact spans,
 * as GFM does: an optional leading and trailing pipe, cells split at unescaped pipes.
 * `offset` is the line's offset in the source.
 */
export function readRow(line: string, lineNumber: number, offset: number): RawRow {
  const span: Span = { line: lineNumber, column: 1, endLine: lineNumber, endColumn: line.length + 1, offset };
  const cells: Cell[] = [];
  const opens: number[] = [];
  let i = 0;
  while (i < line.length && isSpace(line.charCodeAt(i))) i++;
  let open = line[i] === '|' ? i : -1;
  if (open >= 0) i++;
  let start = i;
  for (; i <= line.length; i++) {
    if (line[i] === '\\') {
      i++;
    } else if (line[i] === '|' || i === line.length) {
      const trailing =
        i === line.length && cells.length > 0 && line.slice(start).trim() === '' && line.trimEnd().endsWith('|');
      if (!trailing) {
        cells.push(trimCell(line, start, i, span));
        opens.push(open);
      }
      open = i;
      start = i + 1;
    }
  }
  return { cells, opens, span };
}

/**
 * The part of a row beyond `count` cells, from the `|` that opens the first extra cell to the end
 * of the last; null when the row has no more than `count` cells or the extra ones are all empty
 * (a stray trailing `| |` loses nothing).
 */
export function overflowOf(row: RawRow, count: number): Span | null {
  const extra = row.cells.slice(count);
  const open = row.opens[count];
  const last = extra.at(-1);
  if (!last || open === undefined || open < 0 || extra.every((c) => c.text === '')) return null;
  const from = row.span.offset + open;
  return {
    line: row.span.line,
    column: open + 1,
    endLine: row.span.line,
    endColumn: last.span.endColumn,
    offset: from,
  };
}

function trimCell(line: string, from: number, to: number, row: Span): Cell {
  let start = from;
  let end = to;
  while (start < end && isSpace(line.charCodeAt(start))) start++;
  while (end > start && isSpace(line.charCodeAt(end - 1))) end--;
  const written = line.slice(start, end);
  const text = written.replaceAll('\\|', '|');
  const span = subSpan(row, start, end - start);
  if (text.length === written.length) return { text, span };
  // Where each `\|` became one `|`: spans inside the cell map back through these.
  const escapes: number[] = [];
  for (let i = written.indexOf('\\|'); i >= 0; i = written.indexOf('\\|', i + 2)) {
    escapes.push(i - escapes.length);
  }
  return { text, span: { ...span, escapes } };
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9;
}

/** One column a point's table understands: its key, the header words that name it, and whether it must exist. */
export interface ColumnSpec {
  key: string;
  names: readonly string[];
  required?: boolean;
}

/** Header words that mark a documentation column, accepted in every table. */
export const DOC_COLUMNS: readonly string[] = ['meaning', 'notes', 'note', 'description', 'comment', 'comments', 'why'];

/**
 * Maps a table's header cells to column keys, reporting missing required columns and unknown
 * ones. Documentation columns ("meaning", "notes", …) map to the key `doc`.
 */
export function mapColumns(
  table: Table,
  columns: readonly ColumnSpec[],
  bag: DiagnosticBag,
  what: string,
): { keys: (string | null)[]; ok: boolean } {
  const keys = table.header.map((cell) => {
    const word = normaliseHeader(cell.text);
    const spec = columns.find((c) => c.names.includes(word));
    if (spec) return spec.key;
    if (DOC_COLUMNS.includes(word)) return 'doc';
    bag.report('unknown-column', cell.span, `The ${what} table has an unknown column "${cell.text}".`, {
      hint: `Its columns are ${columns.map((c) => c.names[0]).join(', ')} and optionally meaning; an unknown column is ignored.`,
    });
    return null;
  });
  let ok = true;
  for (const spec of columns) {
    if (spec.required && !keys.includes(spec.key)) {
      ok = false;
      bag.report(
        'missing-column',
        table.header[0]?.span ?? table.span,
        `The ${what} table has no "${spec.names[0]}" column.`,
        {
          hint: `Add a "${spec.names[0]}" column; the ${what} table's columns are ${columns.map((c) => c.names[0]).join(', ')}.`,
        },
      );
    }
  }
  return { keys, ok };
}

/** Rows of a table as key → cell maps, using the keys from `mapColumns`. */
export function keyedRows(table: Table, keys: readonly (string | null)[]): TableRow[] {
  return table.rows.map((row) => {
    const cells = new Map<string, Cell>();
    keys.forEach((key, i) => {
      if (key === null || cells.has(key)) return;
      cells.set(key, row.cells[i] ?? { text: '', span: { ...row.span, column: row.span.endColumn } });
    });
    return { cells, span: row.span };
  });
}

function normaliseHeader(text: string): string {
  return text.toLowerCase().replace(/[`*_]/g, '').trim();
}

/**
 * Splits a comma-separated cell into trimmed items with their spans; backticked commas are kept,
 * and with `parentheses` so are those in parentheses (`update (title, notes), read`).
 */
export function splitList(cell: Cell, separator = ',', { parentheses = false } = {}): Cell[] {
  const items: Cell[] = [];
  let inCode = false;
  let depth = 0;
  let start = 0;
  const text = cell.text;
  const push = (end: number) => {
    let s = start;
    let e = end;
    while (s < e && isSpace(text.charCodeAt(s))) s++;
    while (e > s && isSpace(text.charCodeAt(e - 1))) e--;
    if (e > s) items.push({ text: text.slice(s, e), span: subSpan(cell.span, s, e - s) });
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '`') inCode = !inCode;
    else if (parentheses && !inCode && ch === '(') depth++;
    else if (parentheses && !inCode && ch === ')') depth = Math.max(0, depth - 1);
    else if (ch === separator && !inCode && depth === 0) {
      push(i);
      start = i + 1;
    }
  }
  push(text.length);
  return items;
}

/** A part of a cell: `text.slice(from, from + length)` with its span. */
export function cellPart(cell: Cell, from: number, length: number): Cell {
  return { text: cell.text.slice(from, from + length), span: subSpan(cell.span, from, length) };
}
