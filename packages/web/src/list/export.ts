import { api } from '../api/client.ts';
import type { ApiRecord } from '../format.ts';
import { csvRow, UTF8_BOM } from './csv.ts';

export interface ExportOptions {
  /** The list call's path, e.g. `/api/loans`. */
  path: string;
  /** The query string of one page: the list's sort, search and filters with this cursor. */
  query: (cursor: string | null) => string;
  /** The fields written, in order; the header row names them as the API does. */
  fields: readonly string[];
  /** Records kept (a screen's filter the server cannot apply); all when not given. */
  keep?: (record: ApiRecord) => boolean;
  /** Called after each page with the records written so far. */
  onProgress?: (written: number) => void;
  signal?: AbortSignal;
}

/**
 * Every record of a list, page after page through the API (the largest page it gives, so few
 * calls), as a CSV file. Only the CSV text of each page is kept, never the records, and the page
 * stays responsive: each page is a call the browser waits on.
 */
export async function exportCsv(options: ExportOptions): Promise<{ blob: Blob; count: number }> {
  const parts: string[] = [UTF8_BOM, csvRow(options.fields)];
  let cursor: string | null = null;
  let count = 0;
  do {
    if (options.signal?.aborted) throw new DOMException('The export was cancelled.', 'AbortError');
    const answer: { items: ApiRecord[]; next: string | null } = (
      await api<{ items: ApiRecord[]; next: string | null }>('GET', `${options.path}?${options.query(cursor)}`)
    ).body;
    let chunk = '';
    for (const record of answer.items) {
      if (options.keep && !options.keep(record)) continue;
      chunk += csvRow(options.fields.map((f) => record[f] ?? null));
      count++;
    }
    parts.push(chunk);
    options.onProgress?.(count);
    cursor = answer.next;
  } while (cursor);
  return { blob: new Blob(parts, { type: 'text/csv;charset=utf-8' }), count };
}

/** Offers a file to the user as a download. */
export function download(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  // Some browsers read the file after the click returns.
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}
