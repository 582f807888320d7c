import type { CountersStore } from './counters-store.ts';

/** The window failed sign-ins (and failed second steps) are counted in. */
export const SIGN_IN_WINDOW = 15 * 60_000;

/** An attempt let through: `release` takes its count back once it succeeded. */
export type Attempt =
  | { locked: false; release: () => Promise<void> }
  | { locked: true; key: string; retryAfter: number };

/**
 * Counts an attempt against each key (an account, an address) before it is checked, atomically,
 * so that guesses sent all at once cannot all pass a check made before any of them was recorded.
 * A success or a lockout takes its count back (`release`): only failures count, and knocking on a
 * locked account does not extend the lockout. This window and the last count together, so a
 * lockout does not end the moment a window turns over. `retryAfter` is in seconds.
 */
export async function attemptSignIn(
  counters: CountersStore,
  keys: readonly string[],
  limit: number,
  at: number,
): Promise<Attempt> {
  const window = Math.floor(at / SIGN_IN_WINDOW) * SIGN_IN_WINDOW;
  const release = async () => {
    for (const key of keys) await counters.hit(key, window, -1);
  };
  let locked: string | undefined;
  let lockedUntil = 0;
  for (const key of keys) {
    const now = await counters.hit(key, window);
    if (now + (await counters.hits(key, window - SIGN_IN_WINDOW)) > limit) {
      locked ??= key;
      // Once released, this window holds now - 1 failures; an attempt in the next window counts
      // them with itself, so the lockout lasts one more window when they alone reach the limit.
      const until = window + (now - 1 < limit ? 1 : 2) * SIGN_IN_WINDOW;
      lockedUntil = Math.max(lockedUntil, until);
    }
  }
  if (locked !== undefined) {
    await release();
    return { locked: true, key: locked, retryAfter: Math.max(1, Math.ceil((lockedUntil - at) / 1000)) };
  }
  return { locked: false, release };
}

/** Forgets failure counters of windows before the last, for keys starting with `prefix`. */
export async function pruneSignInCounters(counters: CountersStore, at: number, prefix: string): Promise<void> {
  const window = Math.floor(at / SIGN_IN_WINDOW) * SIGN_IN_WINDOW;
  await counters.prune(window - SIGN_IN_WINDOW, prefix);
}
