import type Database from 'better-sqlite3';

/** The most writes one commit holds: a bigger batch would make its first write wait on too many others. */
export const MAX_BATCH = 128;

export interface GroupCommitOptions {
  /** The most writes in one commit (default `MAX_BATCH`). */
  maxBatch?: number;
}

interface Pending {
  write: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * A batch was rolled back as a whole (its COMMIT failed, or SQLite ended its transaction): none of
 * its writes was acknowledged. Its `cause` is SQLite's error.
 */
export class BatchCommitError extends Error {
  constructor(writes: number, cause: unknown) {
    super(`A batch of ${writes} write${writes === 1 ? '' : 's'} was rolled back: ${messageOf(cause)}`, { cause });
    this.name = 'BatchCommitError';
  }
}

/**
 * The writes of one SQLite connection, committed in groups: every write that arrives in the same
 * turn of the event loop joins one `BEGIN IMMEDIATE … COMMIT`, so at `synchronous=FULL` a batch
 * costs one sync of the WAL instead of one per write.
 *
 * Each write runs in a savepoint of its own (better-sqlite3 turns a transaction function called
 * inside a transaction into `SAVEPOINT … RELEASE`), so a write that throws is rolled back alone
 * and the others of its batch go on. Its promise settles only after the batch's COMMIT returned:
 * a write is never acknowledged before it is as durable as the connection's `synchronous` makes
 * it. When the COMMIT fails, every write of the batch is rejected (`BatchCommitError`).
 *
 * Writes run in the order they were queued, so a write sees the writes queued before it.
 *
 * ```ts
 * const commits = new GroupCommit(db);
 * const id = await commits.run(() => insert.run('a').lastInsertRowid);
 * ```
 */
export class GroupCommit {
  readonly #db: Database.Database;
  readonly #maxBatch: number;
  readonly #savepoint: (write: () => unknown) => unknown;
  readonly #begin: Database.Statement;
  readonly #commit: Database.Statement;
  readonly #rollback: Database.Statement;
  #queue: Pending[] = [];
  #scheduled = false;
  #paused = false;

  constructor(db: Database.Database, options: GroupCommitOptions = {}) {
    this.#db = db;
    this.#maxBatch = Math.max(1, options.maxBatch ?? MAX_BATCH);
    // Only ever called inside the batch's transaction, where better-sqlite3 makes it a savepoint.
    this.#savepoint = db.transaction((write: () => unknown) => write());
    // IMMEDIATE: take the write lock at the start, so another process's writer cannot make the
    // batch fail half-way; that writer waits for it up to the connection's busy timeout.
    this.#begin = db.prepare('BEGIN IMMEDIATE');
    this.#commit = db.prepare('COMMIT');
    this.#rollback = db.prepare('ROLLBACK');
  }

  /**
   * Runs `write` in the connection's next commit and answers what it returned, once that commit
   * is done; rejects with what it threw (it alone rolled back) or with `BatchCommitError`.
   */
  run<T>(write: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ write, resolve: resolve as (value: unknown) => void, reject });
      this.#schedule();
    });
  }

  /** Resolves once every write queued so far has settled (committed or not), for closing the connection. */
  async drain(): Promise<void> {
    if (this.#queue.length === 0) return;
    // The queue is first in, first out: this runs after every write queued before it.
    await this.run(() => undefined).catch(() => undefined);
  }

  /**
   * Holds the queue while a transaction of someone else's is open on the connection across awaits
   * (`SqliteStore.hold`): its writes wait, without a turn of the event loop spent on each look.
   */
  pause(): void {
    this.#paused = true;
  }

  resume(): void {
    this.#paused = false;
    if (this.#queue.length > 0) this.#schedule();
  }

  /** Writes queued and not yet committed. */
  get pending(): number {
    return this.#queue.length;
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    // setImmediate, not queueMicrotask: the check phase comes after every I/O callback of the
    // turn has run, so the writes of all the requests read in one poll join one batch; a
    // microtask would run after the first request's callback and batch that request alone.
    setImmediate(() => this.#flush());
  }

  /**
   * Commits the next batch. It is synchronous from BEGIN to COMMIT: no other callback can run on
   * this connection in between (JavaScript runs one function at a time, and better-sqlite3 does
   * not yield), so nothing but the batch's writes lands in its transaction.
   */
  #flush(): void {
    this.#scheduled = false;
    if (this.#paused) return;
    // Someone else's transaction is open across an await (a migration): wait until it ends
    // rather than slip the writes into it.
    if (this.#db.open && this.#db.inTransaction) {
      this.#schedule();
      return;
    }
    const batch = this.#queue.splice(0, this.#maxBatch);
    if (this.#queue.length > 0) this.#schedule();
    if (batch.length === 0) return;

    try {
      this.#begin.run();
    } catch (error) {
      // Busy past the timeout, or the connection is closed: no write ran.
      for (const pending of batch) pending.reject(error);
      return;
    }

    const done: { pending: Pending; value: unknown }[] = [];
    for (let i = 0; i < batch.length; i++) {
      const pending = batch[i] as Pending;
      try {
        done.push({ pending, value: this.#savepoint(pending.write) });
      } catch (error) {
        pending.reject(error);
        if (!this.#db.inTransaction) {
          // SQLite rolled back the whole transaction (a full disk, an I/O error): the writes
          // before this one are gone, and those after it have not run; they go first in the next batch.
          const lost = new BatchCommitError(done.length, error);
          for (const { pending: before } of done) before.reject(lost);
          this.#queue.unshift(...batch.slice(i + 1));
          if (this.#queue.length > 0) this.#schedule();
          return;
        }
      }
    }

    try {
      this.#commit.run();
    } catch (error) {
      // A failed COMMIT can leave the transaction open (a deferred foreign key): end it.
      try {
        if (this.#db.inTransaction) this.#rollback.run();
      } catch {
        // The COMMIT's error is the one to report.
      }
      const failed = new BatchCommitError(done.length, error);
      for (const { pending } of done) pending.reject(failed);
      return;
    }
    for (const { pending, value } of done) pending.resolve(value);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
