// How big the reliability suites run. `npm test` runs them reduced and bounded (under three
// minutes together); `npm run test:reliability` sets RELIABILITY=full for the full runs that
// docs/reliability.md reports.
import { SQLITE_ONLY, TEST_DATABASES, type TestDatabase } from '../../packages/server/test/databases.ts';

/** Whether this is the full run (`npm run test:reliability`). */
export const FULL = process.env.RELIABILITY === 'full';

/** `reduced` under `npm test`, `full` under `npm run test:reliability`. */
export function scaled<T>(reduced: T, full: T): T {
  return FULL ? full : reduced;
}

/**
 * The databases of the fuzz, bad-input and soak suites: SQLite under `npm test`, both at full size.
 * Their subject is the HTTP layer; PostgreSQL's own handling of odd values is fuzzed under `npm test`
 * by packages/server/src/http/entity-routes-fuzz.test.ts, and crash and concurrency run on both.
 */
export const SCALED_DATABASES: readonly TestDatabase[] = FULL ? TEST_DATABASES : SQLITE_ONLY;
