import { ApiError } from '../api/client.ts';
import type { ApiRecord } from '../format.ts';
import { csvRow, UTF8_BOM } from './csv.ts';

/** How many calls a bulk action has under way at once: enough to be quick, few enough for the server. */
export const BULK_CONCURRENCY = 4;

/** What one row of a bulk action came to: done, or refused with the problem's message. */
export type BulkOutcome = { id: string; ok: true } | { id: string; ok: false; message: string };

/**
 * Runs `act` on each record, at most `concurrency` at once, and answers each one's outcome in the
 * records' order. The server checks every row on its own (permissions, guards, rules), so a
 * refusal of one row stops nothing else; `onProgress` hears how many have finished.
 */
export async function runBulk(
  records: readonly ApiRecord[],
  act: (record: ApiRecord) => Promise<unknown>,
  { concurrency = BULK_CONCURRENCY, onProgress }: { concurrency?: number; onProgress?: (done: number) => void } = {},
): Promise<BulkOutcome[]> {
  const outcomes: BulkOutcome[] = new Array(records.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < records.length) {
      const at = next++;
      const record = records[at] as ApiRecord;
      try {
        await act(record);
        outcomes[at] = { id: String(record.id), ok: true };
      } catch (error) {
        outcomes[at] = { id: String(record.id), ok: false, message: refusalMessage(error) };
      }
      onProgress?.(++done);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, records.length)) }, worker));
  return outcomes;
}

/** A refusal as a person reads it: the problem's detail and its field messages. */
export function refusalMessage(error: unknown): string {
  if (error instanceof ApiError) {
    const messages = (error.problem.errors ?? []).map((e) => e.message).filter((m) => m !== error.problem.detail);
    return [error.problem.detail, ...messages].filter(Boolean).join(' ');
  }
  return error instanceof Error ? error.message : String(error);
}

/** The selected records as a CSV file, the same columns and format as exporting the whole list. */
export function selectionCsv(fields: readonly string[], records: readonly ApiRecord[]): Blob {
  const parts = [UTF8_BOM, csvRow(fields), ...records.map((r) => csvRow(fields.map((f) => r[f] ?? null)))];
  return new Blob(parts, { type: 'text/csv;charset=utf-8' });
}
