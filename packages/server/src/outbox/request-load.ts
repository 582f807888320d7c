import { performance } from 'node:perf_hooks';

/** A request this recent means requests keep coming (a closed loop of clients leaves short gaps). */
export const RECENT_MS = 10;

/**
 * Whether requests keep the server busy, for the deliverer to yield to them (`Deliverer`): one
 * came in the last `RECENT_MS`. A quiet moment that long, and delivery goes at full speed; under a
 * steady stream of requests it is rate-bound (a batch every 250 ms, or fewer so that delivery
 * takes at most a twentieth of the time, and at least one a second). Costs each request one clock read (`seen`, from Fastify's `onRequest`).
 */
export class RequestLoad {
  #lastRequest = Number.NEGATIVE_INFINITY;
  readonly #now: () => number;

  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /** A request arrived. */
  seen(): void {
    this.#lastRequest = this.#now();
  }

  /** True while requests keep coming (see the class). */
  busy(): boolean {
    return this.#now() - this.#lastRequest <= RECENT_MS;
  }
}
