import type { Table as MdTable } from 'mdast';
import type { DiagnosticBag } from './diagnostics.ts';
import type { Span } from './model.ts';
import { spanOf, subSpan } from './spans.ts';

/** A table cell's text as written (trimmed, `\|` unescaped) and the span of that text. */
export interface Cell {
  text: string;
  span: Span;
}

export interface TableRow {
  /** Cells by column key; a column the row lacks gives an empty cell at the row's end. */
  cells: Map<string, Cell>;
  span: Span;
}

export interface Table {
  header: Cell[];
  rows: RawRow[];
  span: Span;
}

export interface RawRow {
  cells: Cell[];
  span: Span;
}

/** Reads an mdast table into cells with exact spans, from the source text itself. */
export function readTable(node: MdTable, source: string): Table {
  const [head, ...body] = node.children.map((row) => ({
    cells: row.children.map((cell) => readCell(source, spanOf(cell.position))),
    span: spanOf(row.position),
  }));
  return { header: head?.cells ?? [], rows: body, span: spanOf(node.position) };
}

function readCell(source: string, span: Span): Cell {
  // A cell's position covers its leading pipe and, for the last cell, the trailing one.
  const raw = source.slice(span.offset, span.offset + (span.endColumn - span.column));
  let start = raw.startsWith('|') ? 1 : 0;
  let end = raw.length;
  if (end > start && raw.endsWith('|') && !raw.endsWith('\\|')) end -= 1;
  while (start < end && isSpace(raw.charCodeAt(start))) start++;
  while (end > start && isSpace(raw.charCodeAt(end - 1))) end--;
  const text = raw.slice(start, end).replaceAll('\\|', '|');
  return { text, span: subSpan(span, start, end - start) };
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
const DOC_COLUMNS = ['meaning', 'notes', 'note', 'description', 'comment', 'comments', 'why'];

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
      if (key === null) return;
      const cell = row.cells[i] ?? { text: '', span: endOfRow(row.span) };
      if (key === 'doc' && cells.has('doc')) return;
      cells.set(key, cell);
    });
    return { cells, span: row.span };
  });
}

function endOfRow(span: Span): Span {
  return { ...span, line: span.endLine, column: span.endColumn, offset: span.offset };
}

function normaliseHeader(text: string): string {
  return text.toLowerCase().replace(/[`*_]/g, '').trim();
}

/** Splits a comma-separated cell into trimmed items with their spans; backticked commas are kept. */
export function splitList(cell: Cell, separator = ','): Cell[] {
  const items: Cell[] = [];
  let inCode = false;
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
    else if (ch === separator && !inCode) {
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
