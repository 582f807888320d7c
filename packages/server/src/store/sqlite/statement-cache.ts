/**
 * Statements by SQL text, keeping the most recently used few hundred. Two generations instead of
 * a strict LRU: a hit in the newer one (the everyday case) is one lookup, with nothing reordered;
 * a hit in the older one moves the statement to the newer. When the newer fills, it becomes the
 * older and the older is dropped, so every statement used since the last turn is kept.
 */
export class StatementCache<S> {
  readonly #prepare: (sql: string) => S;
  /** How many statements one generation holds: half the capacity. */
  readonly #generation: number;
  #recent = new Map<string, S>();
  #older = new Map<string, S>();

  constructor(prepare: (sql: string) => S, capacity = 256) {
    this.#prepare = prepare;
    this.#generation = Math.max(1, Math.floor(capacity / 2));
  }

  get(sql: string): S {
    const recent = this.#recent.get(sql);
    if (recent !== undefined) return recent;
    let statement = this.#older.get(sql);
    if (statement !== undefined) this.#older.delete(sql);
    else statement = this.#prepare(sql);
    if (this.#recent.size >= this.#generation) {
      this.#older = this.#recent;
      this.#recent = new Map();
    }
    this.#recent.set(sql, statement);
    return statement;
  }

  get size(): number {
    return this.#recent.size + this.#older.size;
  }
}
