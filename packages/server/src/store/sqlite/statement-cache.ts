/** Statements by SQL text, keeping the most recently used few hundred. */
export class StatementCache<S> {
  readonly #prepare: (sql: string) => S;
  readonly #statements = new Map<string, S>();
  readonly #capacity: number;

  constructor(prepare: (sql: string) => S, capacity = 256) {
    this.#prepare = prepare;
    this.#capacity = capacity;
  }

  get(sql: string): S {
    let statement = this.#statements.get(sql);
    if (statement !== undefined) {
      // Most recently used last, so the first key is the one to evict.
      this.#statements.delete(sql);
    } else {
      statement = this.#prepare(sql);
      if (this.#statements.size >= this.#capacity) {
        const oldest = this.#statements.keys().next().value;
        if (oldest !== undefined) this.#statements.delete(oldest);
      }
    }
    this.#statements.set(sql, statement);
    return statement;
  }

  get size(): number {
    return this.#statements.size;
  }
}
