/**
 * How many requests are waiting for their answer: from Fastify's `onRequest` until the answer
 * starts (`onSend`, which also starts a stream such as the live-update one, so an open stream
 * does not count as waiting) or the connection closes. The deliverer yields to them
 * (`Deliverer`): it delivers when none is waiting, and under a load that never lets the count
 * reach zero only a batch at a time (`busyIntervalMs`).
 */
export class WaitingRequests {
  #count = 0;
  readonly #onIdle: () => void;

  /** `onIdle`: called each time the last waiting request got its answer. */
  constructor(onIdle: () => void) {
    this.#onIdle = onIdle;
  }

  get count(): number {
    return this.#count;
  }

  /**
   * One request more; the returned function (to call when its answer starts or its connection
   * closes, whichever comes first; later calls do nothing) counts it out.
   */
  started(): () => void {
    this.#count++;
    let answered = false;
    return () => {
      if (answered) return;
      answered = true;
      this.#count--;
      if (this.#count === 0) this.#onIdle();
    };
  }
}
