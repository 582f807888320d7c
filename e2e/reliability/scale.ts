// How big the reliability suites run. `npm test` runs them reduced and bounded (under three
// minutes together); `npm run test:reliability` sets RELIABILITY=full for the full runs that
// docs/reliability.md reports.

/** Whether this is the full run (`npm run test:reliability`). */
export const FULL = process.env.RELIABILITY === 'full';

/** `reduced` under `npm test`, `full` under `npm run test:reliability`. */
export function scaled<T>(reduced: T, full: T): T {
  return FULL ? full : reduced;
}
