/**
 * What was made of the last value each connection sent: a keep-alive connection sends the same
 * `Cookie` header, session or token with every call, so what is worked out from it (its cookies,
 * its hash, its rate-limit key) is worked out once per connection and value instead of once per
 * call. Kept only while the connection lives, as its own buffers keep what it sent.
 */
export class LastPerConnection<I, O> {
  readonly #make: (input: I) => O;
  readonly #last = new WeakMap<object, { input: I; output: O }>();

  constructor(make: (input: I) => O) {
    this.#make = make;
  }

  /** `make(input)`, or what it made when this connection last sent the same input; no memory without a connection. */
  get(connection: object | null | undefined, input: I): O {
    const last = connection ? this.#last.get(connection) : undefined;
    if (last !== undefined && last.input === input) return last.output;
    const output = this.#make(input);
    if (connection) this.#last.set(connection, { input, output });
    return output;
  }
}
