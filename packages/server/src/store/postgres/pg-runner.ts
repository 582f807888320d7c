import type pg from 'pg';
import type { SqlRunner } from '../sql-runner.ts';
import { inTransaction, named } from './pg-records.ts';

/** `SqlRunner` on a node-postgres pool: `?` placeholders become `$1…`, statements are prepared by name. */
export class PgRunner implements SqlRunner {
  readonly dialect = 'postgres';
  readonly #pool: pg.Pool;
  readonly #texts = new Map<string, string>();

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async all<T extends object>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    const { rows } = await this.#pool.query({ ...named(this.#text(sql)), values: [...params] });
    return rows as T[];
  }

  async run(sql: string, params: readonly unknown[] = []): Promise<number> {
    const result = await this.#pool.query({ ...named(this.#text(sql)), values: [...params] });
    return result.rowCount ?? 0;
  }

  async exec(statements: readonly string[]): Promise<void> {
    await inTransaction(this.#pool, async (client) => {
      for (const statement of statements) await client.query(statement);
    });
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
