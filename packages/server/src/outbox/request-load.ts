import { performance } from 'node:perf_hooks';

/** Above this share of the event loop's time spent working, answering requests comes first. */
export const BUSY_UTILIZATION = 0.8;
/** The window the event loop's utilization is taken over (between one and two of these). */
const WINDOW_MS = 100;
/** Requests answered this recently still count as a load (a closed loop of clients has gaps). */
const RECENT_MS = 10;

export interface RequestLoadOptions {
  /** Called each time the last request waiting for its answer got it. */
  onIdle: () => void;
  now?: () => number;
  /** The event loop's utilization since a mark (tests give their own). Default: `performance.eventLoopUtilization`. */
  utilization?: () => { since: () => number };
}

/**
 * Whether requests keep the server busy, for the deliverer to yield to them (`Deliverer`): requests
 * wait for their answer, or were answered a moment ago, while the event loop works more than
 * `BUSY_UTILIZATION` of its time. Below that share delivery uses the spare time at once; above it,
 * a batch at a time (`busyIntervalMs`). A request is counted from Fastify's `onRequest` until its
 * answer starts (`onSend`, which also starts a stream, so an open live-update stream does not
 * count as waiting) or its connection closes.
 */
export class RequestLoad {
  #waiting = 0;
  #lastAnswer = Number.NEGATIVE_INFINITY;
  readonly #o: RequestLoadOptions;
  readonly #now: () => number;
  readonly #mark: () => { since: () => number };
  /** The utilization marks: the newer is at least `WINDOW_MS` after the older when replaced. */
  #older: { at: number; since: () => number };
  #newer: { at: number; since: () => number };

  constructor(options: RequestLoadOptions) {
    this.#o = options;
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

  get waiting(): number {
    return this.#waiting;
  }

  /**
   * One request more; the returned function (to call when its answer starts or its connection
   * closes, whichever comes first; later calls do nothing) counts it out.
   */
  started(): () => void {
    this.#waiting++;
    let answered = false;
    return () => {
      if (answered) return;
      answered = true;
      this.#waiting--;
      this.#lastAnswer = this.#now();
      if (this.#waiting === 0) this.#o.onIdle();
    };
  }

  /** True while requests keep the event loop busy (see the class). */
  busy(): boolean {
    const now = this.#now();
    if (this.#waiting === 0 && now - this.#lastAnswer > RECENT_MS) return false;
    if (now - this.#newer.at >= WINDOW_MS) {
      this.#older = this.#newer;
      this.#newer = { at: now, since: this.#mark().since };
    }
    return this.#older.since() > BUSY_UTILIZATION;
  }
}
