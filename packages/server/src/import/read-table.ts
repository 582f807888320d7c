import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import type ExcelJS from 'exceljs';

/** The media type of an XLSX workbook. */
export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
export const CSV_TYPE = 'text/csv';

/** The largest row an import reads: a bigger one (one cell of 10 MB) is refused, not held in memory. */
export const MAX_ROW_BYTES = 1024 * 1024;
/** The most columns a header may have: far more than any entity's fields. */
export const MAX_COLUMNS = 500;

export type TableKind = 'csv' | 'xlsx';

/** One row of the table: its number as a spreadsheet shows it (the header is row 1) and its cells as text. */
export interface TableRow {
  row: number;
  cells: string[];
}

/**
 * A file that cannot be read as a table: not CSV or XLSX, a wrong encoding, a row longer than the
 * header or too large, a formula. The message says what was found and what to do; nothing is
 * imported.
 */
export class TableError extends Error {
  override name = 'TableError';
}

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];

/**
 * The kind of a file from its first bytes, whatever it was declared as: an XLSX is a ZIP archive;
 * other binary formats (an old .xls, a PDF, an image) are refused by name where they are common.
 */
export function sniffKind(head: Uint8Array): TableKind | { not: string } {
  if (ZIP_MAGIC.every((b, i) => head[i] === b)) return 'xlsx';
  if (head[0] === 0xd0 && head[1] === 0xcf && head[2] === 0x11 && head[3] === 0xe0) {
    return { not: 'an old Excel workbook (.xls); save it as .xlsx or CSV' };
  }
  if (head[0] === 0x25 && head[1] === 0x50 && head[2] === 0x44 && head[3] === 0x46) return { not: 'a PDF document' };
  if (head[0] === 0x89 && head[1] === 0x50 && head[2] === 0x4e && head[3] === 0x47) return { not: 'a PNG image' };
  if (head[0] === 0xff && head[1] === 0xd8) return { not: 'a JPEG image' };
  if (head[0] === 0x1f && head[1] === 0x8b) return { not: 'a gzip archive' };
  return 'csv';
}

/** How CSV text is encoded, from its byte-order mark or, without one, from where its NUL bytes are. */
export type TextEncoding = { label: 'utf-8' | 'utf-16le' | 'utf-16be'; bom: number };

export function sniffEncoding(head: Uint8Array): TextEncoding {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return { label: 'utf-8', bom: 3 };
  if (head[0] === 0xff && head[1] === 0xfe) return { label: 'utf-16le', bom: 2 };
  if (head[0] === 0xfe && head[1] === 0xff) return { label: 'utf-16be', bom: 2 };
  // UTF-16 without a mark: ASCII letters have a zero byte beside them, on one side.
  const pairs = Math.floor(Math.min(head.length, 512) / 2);
  let evenZero = 0;
  let oddZero = 0;
  for (let i = 0; i < pairs; i++) {
    if (head[2 * i] === 0) evenZero++;
    if (head[2 * i + 1] === 0) oddZero++;
  }
  if (pairs > 0 && oddZero > pairs * 0.6 && evenZero === 0) return { label: 'utf-16le', bom: 0 };
  if (pairs > 0 && evenZero > pairs * 0.6 && oddZero === 0) return { label: 'utf-16be', bom: 0 };
  return { label: 'utf-8', bom: 0 };
}

/** Names what bytes that are not UTF-8 probably are, for the message. */
function notUtf8(bytes: Uint8Array, at: number): string {
  const byte = bytes[at] ?? 0;
  const hex = byte.toString(16).toUpperCase().padStart(2, '0');
  const latin = byte >= 0xa0 ? ` (in Windows-1252 or ISO-8859-1 it is "${String.fromCharCode(byte)}")` : '';
  return (
    `the file is not UTF-8 text: byte ${hex} at offset ${at} cannot start or continue a UTF-8 character${latin}. ` +
    'It looks like Windows-1252 or ISO-8859-1 (Latin-1); save it as "CSV UTF-8" (or UTF-16) and import it again'
  );
}

/** The NUL bytes a text file never holds: a binary file given as CSV. */
function binaryIn(text: string): boolean {
  return text.includes('\u0000');
}

/**
 * The text of a CSV stream, decoded: UTF-8 with or without a byte-order mark, or UTF-16 (either
 * order, the mark or the NUL bytes saying which). Bytes that are not valid in the encoding end
 * it with a `TableError` naming what was detected.
 */
async function* decodedText(input: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  let decoder: TextDecoder | null = null;
  let offset = 0;
  let pending: Uint8Array | null = null;
  for await (const raw of input) {
    let chunk = raw instanceof Uint8Array ? raw : new Uint8Array(raw as ArrayBufferLike);
    if (!decoder) {
      // Enough bytes to see a mark and the pattern of NULs.
      pending = pending ? concat(pending, chunk) : chunk;
      if (pending.length < 64) continue;
      chunk = pending;
      pending = null;
      const encoding = sniffEncoding(chunk);
      decoder = new TextDecoder(encoding.label, { fatal: true, ignoreBOM: false });
    }
    yield decode(decoder, chunk, offset, false);
    offset += chunk.length;
  }
  if (!decoder) {
    const chunk = pending ?? new Uint8Array(0);
    decoder = new TextDecoder(sniffEncoding(chunk).label, { fatal: true, ignoreBOM: false });
    yield decode(decoder, chunk, 0, true);
    return;
  }
  yield decode(decoder, new Uint8Array(0), offset, true);
}

function decode(decoder: TextDecoder, chunk: Uint8Array, offset: number, last: boolean): string {
  let text: string;
  try {
    text = decoder.decode(chunk, { stream: !last });
  } catch {
    if (decoder.encoding !== 'utf-8') {
      throw new TableError(`the file starts as ${decoder.encoding.toUpperCase()} text but holds bytes that are not`);
    }
    throw new TableError(notUtf8(chunk, firstInvalidUtf8(chunk)) + (offset > 0 ? ` (after byte ${offset})` : ''));
  }
  if (binaryIn(text)) throw new TableError('the file holds NUL bytes: it is not CSV text (nor an XLSX workbook)');
  return text;
}

/** The offset of the first byte that breaks UTF-8 in `bytes` (a best guess at a chunk's edge). */
function firstInvalidUtf8(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i] ?? 0;
    const length = b < 0x80 ? 1 : b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
    if (length === 0) return i;
    for (let k = 1; k < length; k++) {
      const c = bytes[i + k];
      if (c === undefined) return i;
      if ((c & 0xc0) !== 0x80) return i;
    }
    i += length;
  }
  return 0;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const both = new Uint8Array(a.length + b.length);
  both.set(a, 0);
  both.set(b, a.length);
  return both;
}

/** The delimiter of a CSV file, from its header line: a comma, else the one it holds most of (`;` from European spreadsheets, tab). */
function delimiterOf(firstLine: string): string {
  const counts = [',', ';', '\t'].map((d) => ({ d, n: firstLine.split(d).length - 1 }));
  const best = counts.reduce((a, b) => (b.n > a.n ? b : a));
  return best.n === 0 ? ',' : best.d;
}

/**
 * The rows of a CSV file, header first, streamed: at most one row is held at a time. A row with
 * more cells than the header, or larger than `MAX_ROW_BYTES`, is a `TableError`; a row with fewer
 * is filled with empty cells (spreadsheets leave trailing empty cells out). Blank lines are skipped.
 */
export async function* csvRows(input: AsyncIterable<Uint8Array>): AsyncGenerator<TableRow> {
  const text = decodedText(input);
  const first = await text.next();
  const head = first.done ? '' : first.value;
  const delimiter = delimiterOf(head.split(/\r?\n/, 1)[0] ?? '');
  async function* all() {
    if (head !== '') yield head;
    for await (const chunk of text) yield chunk;
  }
  const parser = Readable.from(all()).pipe(
    parse({
      delimiter,
      bom: true,
      relax_column_count: true,
      // A quote inside a cell that does not start with one is text (=HYPERLINK("…"), 5" screen).
      relax_quotes: true,
      skip_empty_lines: true,
      max_record_size: MAX_ROW_BYTES,
    }),
  );
  let width = 0;
  let row = 0;
  try {
    for await (const cells of parser as AsyncIterable<string[]>) {
      row++;
      if (row === 1) {
        width = cells.length;
        if (width > MAX_COLUMNS)
          throw new TableError(`the header has ${width} columns; an import takes at most ${MAX_COLUMNS}`);
      } else if (cells.length > width) {
        throw new TableError(
          `row ${row} has ${cells.length} cells but the header has ${width} columns: ` +
            'a cell holding the delimiter must be in double quotes',
        );
      }
      while (cells.length < width) cells.push('');
      yield { row, cells };
    }
  } catch (error) {
    if (error instanceof TableError) throw error;
    // The parser runs ahead of the rows taken: its own count says where it stopped.
    const records = (error as { records?: unknown }).records;
    throw csvError(error, typeof records === 'number' ? records + 1 : row + 1);
  }
}

/** csv-parse's errors in words: what is wrong, and where. */
function csvError(error: unknown, row: number): TableError {
  if (error instanceof TableError) return error;
  // csv-parse's codes, with or without their CSV_ prefix (it varies between versions).
  const code = ((error as { code?: string }).code ?? '').replace(/^CSV_/, '');
  const fromParser = error instanceof Error && error.name === 'CsvError';
  if (code === 'MAX_RECORD_SIZE') {
    return new TableError(
      `row ${row} is larger than ${MAX_ROW_BYTES / (1024 * 1024)} MiB (a cell that large is not a field's value); nothing was imported`,
    );
  }
  if (code === 'QUOTE_NOT_CLOSED') return new TableError(`a quoted cell starting in row ${row} is never closed`);
  if (fromParser) return new TableError(`row ${row} is not valid CSV: ${(error as Error).message}`);
  throw error;
}

/**
 * The rows of the first worksheet of an XLSX workbook, streamed with exceljs's reader (shared
 * strings cached, styles and hyperlinks ignored). Every cell is read as the text of its value; a
 * formula is refused, never evaluated (its cached result could be stale, or made to look like data).
 */
export async function* xlsxRows(input: AsyncIterable<Uint8Array>): AsyncGenerator<TableRow> {
  // Loaded by the first workbook rather than at start-up: exceljs and its zip modules cost about
  // 370 ms of CPU to import, on every start of every server.
  const { default: Excel } = await import('exceljs');
  const reader = new Excel.stream.xlsx.WorkbookReader(Readable.from(input), {
    sharedStrings: 'cache',
    hyperlinks: 'ignore',
    styles: 'ignore',
    worksheets: 'emit',
    entries: 'emit',
  });
  let width = 0;
  let seenHeader = false;
  try {
    for await (const sheet of reader) {
      for await (const line of sheet as AsyncIterable<ExcelJS.Row>) {
        const values = (line.values as unknown[]) ?? [];
        const cells: string[] = [];
        let bytes = 0;
        for (let column = 1; column < values.length; column++) {
          const text = cellText(values[column], line.number, column);
          bytes += text.length;
          cells.push(text);
        }
        if (bytes > MAX_ROW_BYTES) {
          throw new TableError(`row ${line.number} is larger than ${MAX_ROW_BYTES / (1024 * 1024)} MiB`);
        }
        if (!seenHeader) {
          seenHeader = true;
          while (cells.length > 0 && cells.at(-1) === '') cells.pop();
          width = cells.length;
          if (width > MAX_COLUMNS) {
            throw new TableError(`the header has ${width} columns; an import takes at most ${MAX_COLUMNS}`);
          }
        } else {
          while (cells.length > width && cells.at(-1) === '') cells.pop();
          if (cells.length > width) {
            throw new TableError(
              `row ${line.number} has a value in column ${columnName(width + 1)}, which has no header`,
            );
          }
          if (cells.every((c) => c === '')) continue;
        }
        while (cells.length < width) cells.push('');
        yield { row: line.number, cells };
      }
      // The first worksheet only: a workbook's other sheets are often notes or lookups.
      break;
    }
  } catch (error) {
    if (error instanceof TableError) throw error;
    throw new TableError(`the file is not a readable XLSX workbook (${(error as Error).message})`);
  }
}

/** A cell's value as the text an import reads; a formula is a `TableError`. */
function cellText(value: unknown, row: number, column: number): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) {
    const iso = value.toISOString();
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
  }
  if (typeof value === 'object') {
    const cell = value as {
      formula?: string;
      sharedFormula?: string;
      richText?: { text: string }[];
      text?: unknown;
      error?: string;
    };
    if (cell.formula !== undefined || cell.sharedFormula !== undefined) {
      throw new TableError(
        `cell ${columnName(column)}${row} holds a formula (=${cell.formula ?? cell.sharedFormula}); ` +
          'formulas are never evaluated: copy the column and paste it as values, then import again',
      );
    }
    if (cell.error !== undefined) {
      throw new TableError(`cell ${columnName(column)}${row} holds the error ${cell.error}`);
    }
    if (cell.richText) return cell.richText.map((r) => r.text).join('');
    if (typeof cell.text === 'string') return cell.text;
  }
  return String(value);
}

/** A spreadsheet's column letters: 1 → A, 27 → AA. */
export function columnName(n: number): string {
  let name = '';
  for (let k = n; k > 0; k = Math.floor((k - 1) / 26)) name = String.fromCharCode(65 + ((k - 1) % 26)) + name;
  return name;
}

/**
 * The rows of a file of either kind, decided from its first bytes (a declared type that does not
 * match them is refused: a workbook sent as text/csv, or text sent as XLSX).
 */
export async function* tableRows(
  input: AsyncIterable<Uint8Array>,
  declared: TableKind | null,
): AsyncGenerator<TableRow> {
  const iterator = input[Symbol.asyncIterator]();
  let head: Uint8Array = new Uint8Array(0);
  const buffered: Uint8Array[] = [];
  while (head.length < 8) {
    const next = await iterator.next();
    if (next.done) break;
    const chunk = next.value instanceof Uint8Array ? next.value : new Uint8Array(next.value as ArrayBufferLike);
    buffered.push(chunk);
    head = concat(head, chunk);
  }
  if (head.length === 0) throw new TableError('the file is empty: it needs a header row naming the fields');
  const kind = sniffKind(head);
  if (typeof kind !== 'string') throw new TableError(`the file is ${kind.not}, not CSV or XLSX`);
  if (declared !== null && declared !== kind) {
    throw new TableError(
      kind === 'xlsx'
        ? 'the file was sent as CSV but is an XLSX workbook (a ZIP archive)'
        : 'the file was sent as XLSX but is not a ZIP archive, so not a workbook',
    );
  }
  async function* rest(): AsyncGenerator<Uint8Array> {
    yield* buffered;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value instanceof Uint8Array ? next.value : new Uint8Array(next.value as ArrayBufferLike);
    }
  }
  yield* kind === 'xlsx' ? xlsxRows(rest()) : csvRows(rest());
}
