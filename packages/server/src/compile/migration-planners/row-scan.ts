import type { MigrationProbe, ProbedRow } from '../migration-contract.ts';
import type { ApiRecord } from '../record-types.ts';
import type { SqlColumn } from '../sql-schema.ts';

/** Counts over one pass of a table's rows: every check of a table shares the scan. */
export class Scan {
  readonly #visitors: ((row: ProbedRow, record: () => ApiRecord) => void)[] = [];

  /** A counter of the rows for which `test` holds, filled in by `run`. */
  count(test: (row: ProbedRow, record: () => ApiRecord) => boolean): { n: number } {
    const counter = { n: 0 };
    this.#visitors.push((row, record) => {
      if (test(row, record)) counter.n++;
    });
    return counter;
  }

  visit(visitor: (row: ProbedRow, record: () => ApiRecord) => void): void {
    this.#visitors.push(visitor);
  }

  async run(
    probe: MigrationProbe,
    table: string,
    columns: readonly SqlColumn[],
    toRecord: (row: ProbedRow) => ApiRecord,
  ): Promise<void> {
    if (this.#visitors.length === 0) return;
    for await (const row of probe.rows(table, columns)) {
      let record: ApiRecord | undefined;
      const lazyRecord = () => {
        record ??= toRecord(row);
        return record;
      };
      for (const visit of this.#visitors) visit(row, lazyRecord);
    }
  }
}
