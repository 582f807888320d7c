import { andThen, type SqlRunner } from '../store/sql-runner.ts';
import type { MaybePromise } from '../store/step.ts';
import { FoundLately } from './found-lately.ts';

/**
 * The lookup of a token or a session by the hash of its secret: one statement (`sql`, its one
 * parameter the hash), its row turned into what a request finds by `found`. The answer is kept
 * while nothing that decides it may have changed (`FoundLately`: SQLite's change stamp, or on
 * PostgreSQL the identity tables' notifications while the server listens); otherwise every call
 * reads its row.
 */
export function foundByHash<Row extends object, T>(
  runner: SqlRunner,
  sql: string,
  found: (row: Row | undefined) => T | undefined,
): (hash: string, forRequest?: boolean) => MaybePromise<T | undefined> {
  const kept = new FoundLately(runner, (hash) => andThen(runner.get<Row>(sql, [hash]), found));
  return (hash, forRequest) => kept.get(hash, forRequest);
}
