import type pg from 'pg';

/** Whoever holds it runs the scheduler's round; the others skip theirs. */
export interface SchedulerLock {
  /** Runs `round` if this server gets the lock now (answering true), else answers false at once. */
  whileHeld(round: () => Promise<void>): Promise<boolean>;
}

/** One process on its own database (SQLite): rounds never overlap within it, so it always holds it. */
export const LOCAL_LOCK: SchedulerLock = {
  async whileHeld(round) {
    await round();
    return true;
  },
};

/**
 * The advisory lock of the scheduler (the two-int form, a key space apart from the single-key
 * locks limits take): "np" in ASCII, then a hash of the app's schema. Advisory locks are shared by
 * the whole database, so apps in different schemas of one database (search_path) each get their
 * own scheduler rather than skipping each other's rounds.
 */
const LOCK_CLASS = 0x6e70;
const LOCK_ID = 'hashtext(current_schema())';

/**
 * Servers sharing one PostgreSQL database: a session advisory lock, tried (never waited for) on
 * one connection held for the round and given back after it, so one server runs each round. A
 * server that dies mid-round loses its connection, and the lock with it.
 */
export function pgSchedulerLock(pool: pg.Pool): SchedulerLock {
  return {
    async whileHeld(round) {
      const client = await pool.connect();
      let held = false;
      try {
        const answer = await client.query(`SELECT pg_try_advisory_lock($1, ${LOCK_ID}) AS held`, [LOCK_CLASS]);
        held = answer.rows[0]?.held === true;
        if (!held) return false;
        await round();
        return true;
      } finally {
        let unlocked = true;
        if (held) {
          unlocked = await client.query(`SELECT pg_advisory_unlock($1, ${LOCK_ID})`, [LOCK_CLASS]).then(
            () => true,
            () => false,
          );
        }
        // A connection that may still hold the lock is closed (ending its session ends the lock),
        // not given back to the pool to hold it for good and stop every server's rounds.
        client.release(!unlocked);
      }
    },
  };
}
