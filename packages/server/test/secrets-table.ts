import { foundByHash } from '../src/people/found-by-hash.ts';
import type { SqlRunner } from '../src/store/sql-runner.ts';
import type { MaybePromise } from '../src/store/step.ts';

/**
 * A table of secrets' hashes and their owners, with `h1` owned by ada, and its lookup by hash
 * through `foundByHash` as sessions and tokens are found: `find` answers the owner in upper case
 * (as a caller turns a row into what it finds), and `reads` lists each owner read from the
 * database (`-` for none), so a test can tell a kept answer from a read.
 */
export async function secretsTable(
  sql: SqlRunner,
): Promise<{ find: (hash: string) => MaybePromise<string | undefined>; reads: string[] }> {
  await sql.exec(['CREATE TABLE "secrets" ("hash" TEXT PRIMARY KEY, "owner" TEXT NOT NULL)']);
  await sql.run('INSERT INTO "secrets" ("hash", "owner") VALUES (?, ?)', ['h1', 'ada']);
  const reads: string[] = [];
  const find = foundByHash<{ owner: string }, string>(sql, 'SELECT "owner" FROM "secrets" WHERE "hash" = ?', (row) => {
    reads.push(row?.owner ?? '-');
    return row?.owner.toUpperCase();
  });
  return { find, reads };
}
