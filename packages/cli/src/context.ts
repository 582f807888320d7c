import type { Io } from './io.ts';

/** What every command's action receives: the outside world, and the exit code to report back to `run`. */
export interface Context {
  io: Io;
  exitCode: number;
}
