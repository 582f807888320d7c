// The timers feature's public face: automatic transitions (point 4's `system`) and their scheduler.
export { type DueKind, dueKinds } from './due-kinds.ts';
export { type RoundReport, SYSTEM_ACTOR_ID } from './scheduler.ts';
export { ROUND_INTERVAL_MS, type Timers, type TimersOptions, timers } from './timers-plugin.ts';
