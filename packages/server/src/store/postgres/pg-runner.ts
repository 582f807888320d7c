import type pg from 'pg';
import type { Logger } from 'pino';
import type { IdentityChange, SqlRunner } from '../sql-runner.ts';
import { IdentityWatch } from './pg-identity-watch.ts';
import { inTransaction, named } from './pg-transaction.ts';

/**
 * Any number: one key that every Ninepoint server changing this database's layout takes (the
 * spec's tables, and the runtime's own: users, sign-ups, views…).
 */
export const SCHEMA_LOCK = 0x4e_69_6e_65;

/** A statement naming a table that decides who a caller is (`AuthStore`'s identity trigger's tables). */
const IDENTITY_TABLES = /"?_ninepoint_(?:users|sessions|tokens)\b/;

/** `SqlRunner` on a node-postgres pool: `?` placeholders become `$1…`, statements are prepared by name. */
export class PgRunner implements SqlRunner {
  readonly dialect = 'postgres';
  readonly #pool: pg.Pool;
  readonly #texts = new Map<string, string>();
  #watch: IdentityWatch | null = null;
  /** Who hears the identity watch's notifications: kept here, so that they may subscribe before it starts. */
  readonly #identityListeners = new Set<(change: IdentityChange) => void>();

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  /**
   * Starts hearing changes of users, tokens and sessions (`IdentityWatch`, on a connection of its
   * own opened with `url`), so that the tokens and sessions found lately may be kept while it
   * listens. A server does; the terminal's commands, which look a token up once, do not.
   */
  watchIdentity(url: string, logger?: Logger): Promise<void> {
    if (this.#watch === null) {
      this.#watch = new IdentityWatch(url, logger);
      this.#watch.onNotify((change) => {
        for (const listener of this.#identityListeners) listener(change);
      });
    }
    return this.#watch.ready;
  }

  /** Calls `listener` for each write to users, tokens or sessions the identity watch hears (`IdentityWatch.onNotify`). */
  onIdentityChange(listener: (change: IdentityChange) => void): () => void {
    this.#identityListeners.add(listener);
    return () => this.#identityListeners.delete(listener);
  }

  /** The identity watch's stamp; undefined (keep nothing) without a confirmed, live LISTEN. */
  changeStamp(): string | undefined {
    return this.#watch?.stamp();
  }

  /** Stops the identity watch (the pool is the store's to end). */
  async close(): Promise<void> {
    const watch = this.#watch;
    this.#watch = null;
    await watch?.close();
  }

  async all<T extends object>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    const { rows } = await this.#pool.query({ ...named(this.#text(sql)), values: [...params] });
    return rows as T[];
  }

  async get<T extends object>(sql: string, params: readonly unknown[] = []): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }

  async run(sql: string, params: readonly unknown[] = []): Promise<number> {
    try {
      const result = await this.#pool.query({ ...named(this.#text(sql)), values: [...params] });
      return result.rowCount ?? 0;
    } finally {
      // A write of this server's own to users, sessions or tokens (a revocation, a sign-out, a
      // role change) is seen by its very next call; other writes (rate-limit counts) leave it be.
      if (this.#watch && IDENTITY_TABLES.test(sql)) this.#watch.wrote();
    }
  }

  async exec(statements: readonly string[]): Promise<void> {
    try {
      await inTransaction(this.#pool, async (client) => {
        // `CREATE TABLE IF NOT EXISTS` is not safe against itself: two servers starting at once on
        // one database could both create a table, and one fails on PostgreSQL's catalogue. They take turns.
        await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
        for (const statement of statements) await client.query(statement);
      });
    } finally {
      this.#watch?.wrote();
    }
  }

  #text(sql: string): string {
    let text = this.#texts.get(sql);
    if (text === undefined) {
      let n = 0;
      text = sql.replace(/\?/g, () => `$${++n}`);
      this.#texts.set(sql, text);
    }
    return text;
  }
}
