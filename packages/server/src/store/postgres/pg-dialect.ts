import type pg from 'pg';
import type { ApiRecord, Value } from '../../compile/record-types.ts';
import type { SqlColumn, SqlTable } from '../../compile/sql-schema.ts';
import type { HeldScope } from '../held.ts';
import type { Records } from '../records-core.ts';
import type { Prepared, RecordsDialect, Row, Violation } from '../records-dialect.ts';
import { runAsync, type Step } from '../step.ts';
import { USER_FOR_EXPRESSIONS_SQL, USERS_TABLE } from '../users-table.ts';
import { pgName, quoteIdentifier } from './pg-ddl.ts';
import { inTransaction, type Named, named, pgCode } from './pg-transaction.ts';

/** Where a statement runs: the pool outside a transaction, the transaction's client inside. */
export type PgConn = pg.Pool | pg.PoolClient;

/** An entity's records in PostgreSQL. */
export type PgRecords = Records<PgConn>;

const USER_FOR_EXPRESSIONS = named(USER_FOR_EXPRESSIONS_SQL.replace('?', '$1'));
const USERS_EXIST = named('SELECT to_regclass($1) IS NOT NULL AS "found"');
const COUNT_LOCK = named('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))');

function query(conn: PgConn, statement: Named, values: readonly unknown[]): Promise<pg.QueryResult<Row>> {
  return (conn as pg.Pool).query<Row>({ ...statement, values: [...values] });
}

/**
 * The records core's PostgreSQL: `$n` placeholders, ILIKE, NULLs ordered as SQLite orders them,
 * statements prepared by name on each connection (node-postgres), a write's record read
 * `FOR UPDATE`, an advisory lock before a limit's count, and transactions run again when
 * PostgreSQL asks (`inTransaction`).
 */
export class PgDialect implements RecordsDialect<PgConn> {
  readonly name = 'postgres';
  readonly sync = false;
  readonly like = 'ILIKE';
  readonly forUpdate = ' FOR UPDATE';
  readonly #pool: pg.Pool;
  readonly #held: HeldScope<PgConn> | undefined;
  #usersExist = false;

  /** `held`: the store's held transactions (`PgStore.hold`), whose work reads and writes on their connection. */
  constructor(pool: pg.Pool, held?: HeldScope<PgConn>) {
    this.#pool = pool;
    this.#held = held;
  }

  get idle(): PgConn {
    return this.#held?.current()?.conn ?? this.#pool;
  }

  quote(name: string): string {
    return quoteIdentifier(name);
  }

  columnKey(name: string): string {
    return pgName(name);
  }

  placeholder(n: number): string {
    return `$${n}`;
  }

  /**
   * SQLite's order: NULLs first ascending, last descending. Nullable columns are indexed NULLS
   * FIRST (see `pg-ddl.ts`), which a backward scan turns into DESC NULLS LAST.
   */
  nullsOrder(descending: boolean): string {
    return descending ? ' NULLS LAST' : ' NULLS FIRST';
  }

  sum(column: SqlColumn): string {
    // NUMERIC adds decimals exactly: the sum has the places its values were written with.
    return `sum(${this.quote(column.name)})`;
  }

  stateAmong(states: readonly string[], bind: (value: unknown) => string): string {
    return `"state" = ANY(${bind([...states])})`;
  }

  /** Cursors carry booleans as 0 and 1, as SQLite stores them: turn them back for a boolean column. */
  toDb(column: SqlColumn, value: Value): unknown {
    if (column.type === 'boolean' && typeof value === 'number') return value !== 0;
    return value;
  }

  fromJson(stored: unknown): Record<string, Value> | null {
    return (stored ?? null) as Record<string, Value> | null;
  }

  prepare(sql: string): Prepared<PgConn> {
    const statement = named(sql);
    return {
      one: async (conn, params) => (await query(conn, statement, params)).rows[0],
      byId: async (conn, id) => (await query(conn, statement, [id])).rows[0],
      all: async (conn, params) => (await query(conn, statement, params)).rows,
      run: async (conn, params) => (await query(conn, statement, params)).rowCount ?? 0,
    };
  }

  cached(sql: string): Prepared<PgConn> {
    return this.prepare(sql);
  }

  async lockCount(conn: PgConn, key: string): Promise<void> {
    await query(conn, COUNT_LOCK, [key]);
  }

  /** Before the users table exists (a store used without sign-in) there are no users. */
  async user(conn: PgConn, id: string): Promise<ApiRecord | undefined> {
    if (!this.#usersExist) {
      const { rows } = await query(conn, USERS_EXIST, [quoteIdentifier(USERS_TABLE)]);
      if (rows[0]?.found !== true) return undefined;
      this.#usersExist = true;
    }
    return (await query(conn, USER_FOR_EXPRESSIONS, [id])).rows[0] as ApiRecord | undefined;
  }

  transaction<T>(work: (conn: PgConn) => Step<T>): Promise<T> {
    const held = this.#held?.current();
    if (!held) return inTransaction(this.#pool, (client) => runAsync(work(client)));
    // In a held transaction: a savepoint of it, one at a time (a module's writes made at once
    // would otherwise nest their savepoints out of order on the one connection).
    const run = held.queue.then(async () => {
      const savepoint = `np_held_${++held.savepoints}`;
      await held.conn.query(`SAVEPOINT ${savepoint}`);
      try {
        const result = await runAsync(work(held.conn));
        await held.conn.query(`RELEASE SAVEPOINT ${savepoint}`);
        return result;
      } catch (error) {
        await held.conn.query(`ROLLBACK TO SAVEPOINT ${savepoint}`);
        throw error;
      }
    });
    held.queue = run.catch(() => undefined);
    return run;
  }

  violation(error: unknown, table: SqlTable): Violation | null {
    const code = pgCode(error);
    if (code === '23505') {
      // PostgreSQL names the index (shortened as `pgName` does), or the primary key.
      const constraint = (error as { constraint?: string }).constraint ?? '';
      const index = table.indexes.find((i) => i.unique && i.columns.length === 1 && pgName(i.name) === constraint);
      return { kind: 'unique', field: index?.columns[0] ?? 'id' };
    }
    if (code === '23503') return { kind: 'foreign-key' };
    return null;
  }
}
