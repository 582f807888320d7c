/**
 * CSV as RFC 4180 writes it: fields separated by commas, records by CRLF; a field holding a
 * comma, a quote, a line break or leading/trailing spaces is wrapped in double quotes, with each
 * quote doubled. A text that a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab or
 * carriage return first) gets a leading apostrophe: opening an export must never run code.
 */

/** One field of a record as CSV text. */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text: string;
  if (typeof value === 'string') {
    text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  } else if (typeof value === 'number' || typeof value === 'boolean') {
    text = String(value);
  } else {
    text = JSON.stringify(value);
  }
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record as a CSV line, with its CRLF. */
export function csvRow(values: readonly unknown[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}

/** A whole table as CSV, header first. */
export function toCsv(header: readonly string[], rows: readonly (readonly unknown[])[]): string {
  return [csvRow(header), ...rows.map(csvRow)].join('');
}

/** The byte-order mark spreadsheet programs look for to read a CSV file as UTF-8. */
export const UTF8_BOM = '\uFEFF';
