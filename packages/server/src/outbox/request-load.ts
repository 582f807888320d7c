import { performance } from 'node:perf_hooks';

/** Above this share of the event loop's time spent working, answering requests comes first. */
export const BUSY_UTILIZATION = 0.8;
/** The window the event loop's utilization is taken over (between one and two of these). */
const WINDOW_MS = 100;
/** A request this recent means requests are coming (a closed loop of clients leaves short gaps). */
const RECENT_MS = 10;

export interface RequestLoadOptions {
  now?: () => number;
  /** The event loop's utilization since a mark (tests give their own). Default: `performance.eventLoopUtilization`. */
  utilization?: () => { since: () => number };
}

/**
 * Whether requests keep the server busy, for the deliverer to yield to them (`Deliverer`): a
 * request came a moment ago (`RECENT_MS`) while the event loop works more than `BUSY_UTILIZATION`
 * of its time. Below that share delivery uses the spare time at once; above it, a batch at a time
 * (`busyIntervalMs`). With no request coming, delivery never yields, however busy it keeps the
 * loop itself. Costs each request one clock read (`seen`, from Fastify's `onRequest`).
 */
export class RequestLoad {
  #lastRequest = Number.NEGATIVE_INFINITY;
  readonly #now: () => number;
  readonly #mark: () => { since: () => number };
  /** The utilization marks: the newer is at least `WINDOW_MS` after the older when replaced. */
  #older: { at: number; since: () => number };
  #newer: { at: number; since: () => number };

  constructor(options: RequestLoadOptions = {}) {
    this.#now = options.now ?? performance.now.bind(performance);
    this.#mark =
      options.utilization ??
      (() => {
        const mark = performance.eventLoopUtilization();
        return { since: () => performance.eventLoopUtilization(mark).utilization };
      });
    const first = { at: this.#now(), since: this.#mark().since };
    this.#older = first;
    this.#newer = first;
  }

  /** A request arrived. */
  seen(): void {
    this.#lastRequest = this.#now();
  }

  /** True while requests keep the event loop busy (see the class). */
  busy(): boolean {
    const now = this.#now();
    if (now - this.#lastRequest > RECENT_MS) return false;
    if (now - this.#newer.at >= WINDOW_MS) {
      this.#older = this.#newer;
      this.#newer = { at: now, since: this.#mark().since };
    }
    return this.#older.since() > BUSY_UTILIZATION;
  }
}
