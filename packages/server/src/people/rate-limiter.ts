import type { CountersStore } from './counters-store.ts';

/** The window the general limit counts in. */
const MINUTE = 60_000;

/**
 * The general limit (`RATE_LIMIT_PER_MINUTE` calls per user or address per minute), shared by
 * every app server on one database. Far from the limit a server counts calls locally and adds its
 * counts to the shared counter about once a second: no database write per call. Once a key has
 * used half its budget, as far as this server knows, every call of it is added to the shared
 * counter at once and admitted only if the total is still within the limit: exact where it
 * matters. Before servers hear of each other, each may admit up to half the limit on its own, so
 * N servers starting together can admit up to N/2 times the limit in the first second of a burst.
 */
const HOT_FRACTION = 0.5;

export class RateLimiter {
  readonly #store: CountersStore;
  readonly #limit: number;
  readonly #now: () => number;
  #window = 0;
  /** Calls this server admitted and has not yet added to the shared counters. */
  #pending = new Map<string, number>();
  /** The shared totals as last read, this window. */
  #shared = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> | undefined;

  constructor(store: CountersStore, limit: number, options: { now?: () => number; flushMs?: number } = {}) {
    this.#store = store;
    this.#limit = limit;
    this.#now = options.now ?? Date.now;
    const flushMs = options.flushMs ?? 1000;
    if (flushMs > 0) {
      this.#timer = setInterval(() => void this.flush().catch(() => {}), flushMs);
      this.#timer.unref();
    }
  }

  /**
   * Counts a call of `key`; false when the key has used up this minute. Answered at once (not a
   * promise) when this server can decide alone, as for nearly every call: every call pays for it.
   */
  take(key: string): boolean | Promise<boolean> {
    this.#roll();
    const pending = this.#pending.get(key) ?? 0;
    const known = (this.#shared.get(key) ?? 0) + pending;
    if (known >= this.#limit) return false;
    if (known + 1 < this.#limit * HOT_FRACTION) {
      this.#pending.set(key, pending + 1);
      return true;
    }
    return this.#takeShared(key, pending);
  }

  /** Adds the call (and those pending) to the shared counter at once: the key is near its limit. */
  async #takeShared(key: string, pending: number): Promise<boolean> {
    const window = this.#window;
    this.#pending.delete(key);
    const total = await this.#store.hit(`rate:${key}`, window, pending + 1);
    if (window === this.#window) this.#shared.set(key, total);
    return total <= this.#limit;
  }

  /** Seconds until the current window ends: the `Retry-After` of a refused call. */
  retryAfterSeconds(): number {
    return Math.max(1, Math.ceil((this.#window + MINUTE - this.#now()) / 1000));
  }

  /** Adds this server's unsent counts to the shared counters and reads back their totals. */
  async flush(): Promise<void> {
    if (this.#flushing) return this.#flushing;
    this.#flushing = (async () => {
      try {
        this.#roll();
        const window = this.#window;
        const batch = this.#pending;
        this.#pending = new Map();
        for (const [key, hits] of batch) {
          const total = await this.#store.hit(`rate:${key}`, window, hits);
          if (window === this.#window) this.#shared.set(key, total);
        }
        if (batch.size > 0) await this.#store.prune(window - MINUTE);
      } finally {
        this.#flushing = undefined;
      }
    })();
    return this.#flushing;
  }

  /** Stops the timer and sends what is left. */
  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.flush();
  }

  #roll(): void {
    const window = Math.floor(this.#now() / MINUTE) * MINUTE;
    if (window === this.#window) return;
    this.#window = window;
    this.#shared = new Map();
    // Calls admitted in the last window but not yet sent no longer count against anything.
    this.#pending = new Map();
  }
}
