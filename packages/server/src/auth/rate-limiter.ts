import type { AuthStore } from '../store/auth-store.ts';

/** The window the general limit counts in. */
const MINUTE = 60_000;

/**
 * The general limit (`RATE_LIMIT_PER_MINUTE` calls per user or address per minute), shared by
 * every app server on one database without a database write per call: each server counts
 * locally and adds its counts to the shared counter about once a second, reading back the total
 * of all servers. A key is refused once its shared total plus this server's unsent calls reach
 * the limit, so several servers together may let through at most what they admit in the second
 * before they hear of each other — a bounded, documented overshoot in exchange for reads that
 * never wait for the database.
 */
export class RateLimiter {
  readonly #store: AuthStore;
  readonly #limit: number;
  readonly #now: () => number;
  #window = 0;
  /** Calls this server admitted and has not yet added to the shared counters. */
  #pending = new Map<string, number>();
  /** The shared totals as last read, this window. */
  #shared = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> | undefined;

  constructor(store: AuthStore, limit: number, options: { now?: () => number; flushMs?: number } = {}) {
    this.#store = store;
    this.#limit = limit;
    this.#now = options.now ?? Date.now;
    const flushMs = options.flushMs ?? 1000;
    if (flushMs > 0) {
      this.#timer = setInterval(() => void this.flush().catch(() => {}), flushMs);
      this.#timer.unref();
    }
  }

  /** Counts a call of `key`; false when the key has used up this minute (the call is not counted). */
  take(key: string): boolean {
    this.#roll();
    const used = (this.#shared.get(key) ?? 0) + (this.#pending.get(key) ?? 0);
    if (used >= this.#limit) return false;
    this.#pending.set(key, (this.#pending.get(key) ?? 0) + 1);
    return true;
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
        if (batch.size > 0) await this.#store.pruneRates(window - MINUTE);
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
