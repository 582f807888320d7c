import { LoadPending } from '@ninepoint/spec';

/**
 * The runtime's words for records, shared by the compiled checks (`entity-logic.ts`), the stores
 * and the HTTP layer. They live with the compiler because compiled checks are written against
 * them; the stores implement `TxReader`, never the other way round.
 */

/** A value as the API reads and writes it: booleans are booleans, dates ISO 8601 text. */
export type Value = string | number | boolean | null;

/** A record as the API answers it: system fields, then declared fields (null when unset). */
export type ApiRecord = Record<string, Value>;

/** The fields a transition sets as it is taken (point 4's `sets`), with their values. */
export type WriteEffects = Readonly<Record<string, Value>>;

/** A count made inside a write: records of `entity` matching every condition, leaving out `excludeId`. */
export interface CountQuery {
  entity: string;
  /** Columns that must equal these values (all of them). */
  equal: readonly { column: string; value: Value }[];
  /** A state among these, or null for any state. */
  states: readonly string[] | null;
  /** Only records whose `column` lies in [from, to): ISO text, a date (YYYY-MM-DD) or date-time column. */
  within: { column: string; from: string; to: string } | null;
  /** Leave out this record (the one being written), or null. */
  excludeId: string | null;
}

/**
 * Reads made inside a write transaction, for the checks that run in it. They are synchronous so
 * that a check is plain code; a store whose reads are asynchronous (PostgreSQL) answers from what
 * it has read so far and throws `ReadPending` for anything else: it then makes that read in the
 * transaction and runs the check again. A check must therefore have no effect but its answer.
 */
export interface TxReader {
  /** A record of any entity by id. */
  get(entity: string, id: string): ApiRecord | undefined;
  /**
   * How many records match `query`. Counts are race-free: two writes whose counts could both
   * pass a limit count one after the other, each seeing the other's record.
   */
  count(query: CountQuery): number;
}

/**
 * Thrown by a `TxReader` for a read it has not made yet; never reaches the HTTP layer. A
 * `LoadPending`, so evaluating a rule or guard lets it through rather than failing.
 */
export class ReadPending extends LoadPending {
  readonly read: PendingRead;
  constructor(read: PendingRead) {
    super();
    this.read = read;
  }
}

export type PendingRead = { kind: 'get'; entity: string; id: string } | { kind: 'count'; query: CountQuery };
