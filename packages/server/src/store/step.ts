/**
 * One sequence of database calls for a synchronous driver (better-sqlite3) and an asynchronous one
 * (node-postgres), written once as a generator. Each call goes through `wait`: an answer that is
 * already there is taken at once, a Promise is yielded to the driver. `runSync` runs a sequence to
 * the end and refuses a yield (a SQLite transaction must never wait on anything); `runAsync` awaits
 * each yielded Promise and resumes with its value, or throws its rejection into the sequence so that
 * the sequence's own `try`/`catch` sees it.
 *
 * @example
 * function* both(d: Dialect): Step<number> {
 *   const a = yield* wait(d.read('a'));
 *   return a + (yield* wait(d.read('b')));
 * }
 * runSync(both(sqlite)); // a number, or throws if a read answered a Promise
 * await runAsync(both(postgres));
 */

/**
 * A value now, or a promise of it: what SQLite answers at once, PostgreSQL over the network. The
 * one such type of the server; `andThen` (`sql-runner.ts`) continues either.
 */
export type MaybePromise<T> = T | Promise<T>;

/** A sequence of database calls that answers a `T`, yielding each Promise it has to wait for. */
export type Step<T> = Generator<Promise<unknown>, T, unknown>;

/** The answer of one database call: at once when it is not a Promise, else once the driver has it. */
export function* wait<T>(value: MaybePromise<T>): Step<T> {
  if (value instanceof Promise) return (yield value) as T;
  return value;
}

/** Thrown by `runSync` when a sequence waits on a Promise: a synchronous dialect answered one. */
export class YieldedInSyncError extends Error {
  override name = 'YieldedInSyncError';
}

/** Runs a sequence whose every call answers at once. */
export function runSync<T>(step: Step<T>): T {
  const next = step.next();
  if (next.done) return next.value;
  // Handle the Promise so it cannot reject unheard, then end the sequence (its `finally` blocks run).
  next.value.catch(() => {});
  step.return(undefined as T);
  throw new YieldedInSyncError('A synchronous database call answered a Promise.');
}

/** Runs a sequence, waiting for each Promise it yields. */
export async function runAsync<T>(step: Step<T>): Promise<T> {
  let next = step.next();
  while (!next.done) {
    let value: unknown;
    try {
      value = await next.value;
    } catch (error) {
      next = step.throw(error);
      continue;
    }
    next = step.next(value);
  }
  return next.value;
}

/** Runs a sequence with whichever driver its dialect needs. */
export function run<T>(step: Step<T>, sync: boolean): MaybePromise<T> {
  return sync ? runSync(step) : runAsync(step);
}
