import { AsyncLocalStorage } from 'node:async_hooks';

/** One write transaction held open across awaits (`Store.hold`), on the connection `conn`. */
export class Held<C> {
  readonly conn: C;
  /** False once it committed or rolled back: work still running from it then acts outside it. */
  open = true;
  /** What waits for its COMMIT (`Store.afterCommit`): run after it, dropped on a rollback. */
  readonly committed: (() => void)[] = [];
  /** Savepoints taken so far, for their names. */
  savepoints = 0;
  /** The writes on it, one after the other (where the driver is asynchronous). */
  queue: Promise<unknown> = Promise.resolve();

  constructor(conn: C) {
    this.conn = conn;
  }
}

/**
 * Which held transaction the running code belongs to. Everything started from inside
 * `Store.hold`'s work (its awaits, the in-process API calls a hook makes through `app.inject`)
 * carries it, through Node's async context; anything else does not, and is kept out of it.
 */
export class HeldScope<C> {
  readonly #context = new AsyncLocalStorage<Held<C>>();
  /** The one held transaction of the store while it is open (SQLite holds one at a time). */
  #open: Held<C> | null = null;
  #released: Promise<void> = Promise.resolve();
  #release: () => void = () => {};

  /** The held transaction the caller runs in, if it is still open. */
  current(): Held<C> | undefined {
    const held = this.#context.getStore();
    return held?.open ? held : undefined;
  }

  /**
   * Resolves when no held transaction but the caller's own is open: what a caller outside one
   * waits for before it reads or writes (undefined when it need not wait: the hot path).
   */
  outsideWait(): Promise<void> | undefined {
    if (this.#open === null || this.current() !== undefined) return undefined;
    return this.#waitFree();
  }

  async #waitFree(): Promise<void> {
    while (this.#open !== null && this.current() === undefined) await this.#released;
  }

  /**
   * Runs `work` in `held`: `begin` has opened it; it ends with `end(true)` when `work` resolves,
   * `end(false)` when it throws. One at a time when `exclusive` (SQLite's one connection).
   */
  async run<T>(
    open: () => Promise<Held<C>> | Held<C>,
    end: (held: Held<C>, commit: boolean) => Promise<void> | void,
    work: () => Promise<T>,
    exclusive: boolean,
  ): Promise<T> {
    const mine = this.current();
    if (mine) return work();
    // Checked and taken in one synchronous step: several waiters woken together take turns.
    if (exclusive) while (this.#open !== null) await this.#released;
    let held: Held<C>;
    if (exclusive) {
      this.#released = new Promise((resolve) => {
        this.#release = resolve;
      });
      this.#open = new Held<C>(undefined as C);
    }
    try {
      held = await open();
    } catch (error) {
      if (exclusive) this.#free();
      throw error;
    }
    if (exclusive) this.#open = held;
    let result: T;
    try {
      result = await this.#context.run(held, work);
    } catch (error) {
      held.open = false;
      try {
        await end(held, false);
      } finally {
        if (exclusive) this.#free();
      }
      throw error;
    }
    held.open = false;
    try {
      await end(held, true);
    } finally {
      if (exclusive) this.#free();
    }
    // Outside the held transaction's context: what follows a commit is nobody's transaction.
    this.#context.exit(() => {
      for (const fn of held.committed) fn();
    });
    return result;
  }

  /** Runs `fn` after the caller's held transaction commits, or now when the caller holds none. */
  afterCommit(fn: () => void): void {
    const held = this.current();
    if (held) held.committed.push(fn);
    else fn();
  }

  #free(): void {
    this.#open = null;
    this.#release();
  }
}
