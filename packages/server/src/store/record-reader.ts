import type { ApiRecord } from '../compile/record-types.ts';
import type { Row } from './records-dialect.ts';

/** Makes the API's record of a row (or of a record): its columns only, in table order. */
export type RecordReader = (row: Row) => ApiRecord;

/**
 * A table's record reader, compiled once when the store opens: an object literal of the columns
 * `names` (an undefined value as null), a boolean stored as 0 or 1 (SQLite) made a boolean. A loop of
 * `record[name] = row[name]` went through V8's megamorphic keyed loads and stores, the largest
 * share of a get's own time after the socket and the database (issue 31); a literal of known keys
 * is built in one step, with one hidden class for every record of the table. `keyOf` names the
 * key a row holds each column under, where the database keeps a shorter name than the field's.
 */
export function compileRecordReader(
  names: readonly string[],
  booleans: readonly string[],
  keyOf: (name: string) => string = (name) => name,
): RecordReader {
  const isBoolean = new Set(booleans);
  const fields = names.map((name) => {
    const value = `row[${JSON.stringify(keyOf(name))}]`;
    // A quoted key holds any name; `__proto__` written so would set the prototype, computed it does not.
    const key = name === '__proto__' ? '["__proto__"]' : JSON.stringify(name);
    return `${key}: ${isBoolean.has(name) ? `bool(${value})` : `(${value} ?? null)`}`;
  });
  const make = new Function('bool', `return function readRecord(row) { return { ${fields.join(', ')} }; };`);
  return make(storedBoolean) as RecordReader;
}

function storedBoolean(value: unknown): unknown {
  return typeof value === 'number' ? value !== 0 : (value ?? null);
}
