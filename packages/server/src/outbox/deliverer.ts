import type { Logger } from 'pino';
import type { Agent } from 'undici';
import type { DeliveriesStore, DeliveryRow } from './deliveries-store.ts';
import type { AccountReads } from './notify.ts';
import { eventType, type Outgoing } from './outgoing.ts';
import { type CallOutcome, callConnections, sendCall } from './send-call.ts';
import { webhookSignature } from './signing.ts';

export interface DelivererOptions {
  deliveries: DeliveriesStore;
  outgoing: Outgoing;
  /** Sends one notification delivery (`accounts`: those its batch read); throws to have it tried again. */
  notify: (row: DeliveryRow, accounts: AccountReads) => Promise<{ mailed: number; told: number; skipped: number }>;
  logger: Logger;
  /** `CALLS_TIMEOUT_SECONDS`, in milliseconds. */
  timeoutMs: number;
  /** `CALLS_RETRY_HOURS`, in milliseconds: a delivery failing this long after its write is dead. */
  retryWindowMs: number;
  allowPrivate: boolean;
  /** The first pause after a failure; each next one doubles, up to `maxDelayMs`. Default 10 s. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** How often due deliveries are looked for when nothing says so sooner. Default 1 s. */
  pollMs?: number;
  /** Deliveries claimed, made and settled at once. Default 32. */
  batch?: number;
  /** True while requests keep the server busy (`RequestLoad`): delivery then yields to them. Default: never. */
  busy?: () => boolean;
  /**
   * While requests keep the server busy, how long a wake-up is held at least before one batch is
   * made however busy the server is (default `BUSY_INTERVAL_MS`; longer, up to `MAX_HOLD_MS`, when
   * batches take long: `BUSY_SHARE` of the time), so none waits for a quiet moment.
   */
  busyIntervalMs?: number;
  now?: () => number;
  /** The timer the yielding waits on (tests step it by hand). Default `setTimeout`. */
  timer?: (run: () => void, ms: number) => () => void;
}

/** How often a held wake-up looks whether requests have stopped. */
const QUIET_CHECK_MS = 10;
/** Under a load that never pauses, a held wake-up makes one batch at least this often. */
const BUSY_INTERVAL_MS = 250;
/** The most of the time delivery takes under such a load (its holds lengthen when batches are slow). */
const BUSY_SHARE = 0.05;
/** The longest a wake-up is held under load, however long its last batch took. */
const MAX_HOLD_MS = 1000;

/**
 * `setTimeout`, then `setImmediate`: a look runs after the event loop's poll phase, so requests
 * that arrived while the process was not scheduled (on a crowded machine, for longer than
 * `RECENT_MS`) have been seen before it asks whether the server is busy.
 */
const systemTimer = (run: () => void, ms: number) => {
  let immediate: NodeJS.Immediate | null = null;
  const handle = setTimeout(() => {
    immediate = setImmediate(run);
  }, ms);
  handle.unref();
  return () => {
    clearTimeout(handle);
    if (immediate) clearImmediate(immediate);
  };
};

/** How one claimed delivery's attempt ended, settled with the rest of its batch. */
interface Attempted {
  row: DeliveryRow;
  outcome: CallOutcome;
  at: number;
  line: Record<string, unknown>;
}

/** The body of a call: what happened, to which record, by whom and when. */
export function callBody(row: DeliveryRow, fields: readonly string[] | null): string {
  if (row.event === 'schedule') {
    // A job falling due: no record, its name and the time it was due.
    return JSON.stringify({
      type: eventType('', 'schedule', row.record_id),
      event: 'schedule',
      job: row.record_id,
      due: row.at,
    });
  }
  const record = JSON.parse(row.record) as Record<string, unknown>;
  const sent = fields === null ? record : Object.fromEntries(fields.map((f) => [f, record[f] ?? null]));
  return JSON.stringify({
    type: eventType(row.entity, row.event, row.transition),
    event: row.event,
    entity: row.entity,
    ...(row.transition ? { transition: row.transition } : {}),
    id: row.record_id,
    record: sent,
    by: row.by,
    at: row.at,
  });
}

/**
 * Delivers the outbox after the writes commit, off the requests' path: claims due deliveries
 * (`DeliveriesStore.claim`, a batch in one statement), makes them (signed calls, notifications)
 * side by side, and settles them as they end (`DeliveriesStore.settle`, those ending in one turn
 * together): delivered, or tried again after an exponential pause with jitter, or dead once the
 * retry window is over. One log line per attempt. Woken by `kick` after a write and every
 * `pollMs` otherwise.
 *
 * Delivery yields to requests (`busy`, `RequestLoad`): a wake-up looks `QUIET_CHECK_MS` on (the
 * writes of that moment make one batch), and again every `QUIET_CHECK_MS` while requests keep
 * coming, so a quiet server delivers about 10 ms after a write and a busy one spends its time on
 * answers first. However long
 * the load lasts, a held wake-up makes one batch, oldest first, after `busyIntervalMs` (or longer,
 * up to `MAX_HOLD_MS`, so that batches take no more than `BUSY_SHARE` of the time): no delivery
 * waits for a pause that may not come.
 */
export class Deliverer {
  readonly #o: DelivererOptions;
  readonly #now: () => number;
  readonly #timer: (run: () => void, ms: number) => () => void;
  readonly #busy: () => boolean;
  /** The calls' connections, kept alive between them; made by the first call. */
  #connections: Promise<Agent> | null = null;
  #poll: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  #again = false;
  #stopped = false;
  /** Attempts made and not yet recorded, and the recording that will take them (`#settleSoon`). */
  #toSettle: Attempted[] = [];
  #settling: Promise<void> | null = null;
  /** A wake-up held back while requests keep the server busy: the timer of its next look. */
  #held: (() => void) | null = null;
  /** When the wake-up was first held, and how long it may be (`#holdFor`, from the last forced batch). */
  #heldSince = 0;
  #holdFor: number;

  constructor(options: DelivererOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#timer = options.timer ?? systemTimer;
    this.#busy = options.busy ?? (() => false);
    this.#holdFor = options.busyIntervalMs ?? BUSY_INTERVAL_MS;
  }

  start(): void {
    this.#poll = setInterval(() => this.kick(), this.#o.pollMs ?? 1000);
    this.#poll.unref();
    this.kick();
  }

  /** Looks for due deliveries in a moment, or once requests leave time for it (after a write, "Retry now"). */
  kick(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    // Never at once: the wake-ups of one moment (a write each) make one batch at the first look,
    // `QUIET_CHECK_MS` on, instead of a batch of one or two rows each.
    this.#hold();
  }

  /** Stops claiming; resolves once the deliveries under way are settled. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#poll) clearInterval(this.#poll);
    this.#release();
    await this.#running;
    if (this.#connections) await (await this.#connections).close();
  }

  /**
   * Holds a wake-up while requests keep the server busy: it looks again every `QUIET_CHECK_MS`,
   * delivers as soon as they have stopped, and after `#holdFor` makes one batch however busy.
   */
  #hold(): void {
    if (this.#held !== null) return;
    this.#heldSince = this.#now();
    this.#look();
  }

  #look(): void {
    const left = this.#heldSince + this.#holdFor - this.#now();
    this.#held = this.#timer(
      () => {
        this.#held = null;
        // A batch under way looks again when it ends.
        if (this.#stopped || this.#running) return;
        if (!this.#busy()) this.#run(false);
        else if (this.#now() - this.#heldSince >= this.#holdFor) this.#run(true);
        else this.#look();
      },
      Math.max(0, Math.min(QUIET_CHECK_MS, left)),
    );
  }

  #release(): void {
    this.#held?.();
    this.#held = null;
  }

  #run(forced: boolean): void {
    this.#release();
    this.#running = this.#drain(forced)
      .catch((error: unknown) => this.#o.logger.error({ err: error }, 'the outbox could not deliver'))
      .finally(() => {
        this.#running = null;
        // A wake-up that came meanwhile, or one held while requests waited that may be free to go now.
        if (this.#again || this.#held !== null) {
          this.#again = false;
          this.kick();
        }
      });
  }

  /** Batches until none is due; yields (holds) between batches while requests keep the server busy, except after a forced first one. */
  async #drain(forced: boolean): Promise<void> {
    const batch = this.#o.batch ?? 32;
    for (let first = true; ; first = false) {
      if (this.#stopped) return;
      if (!(forced && first) && this.#busy()) {
        this.#again = false;
        this.#hold();
        return;
      }
      const now = this.#now();
      if (forced && first) {
        // Under load delivery takes at most `BUSY_SHARE` of the time: the next hold lasts as long
        // as this batch took, times (1 − share) / share, between `busyIntervalMs` and `MAX_HOLD_MS`.
        const interval = this.#o.busyIntervalMs ?? BUSY_INTERVAL_MS;
        const took = await this.#batch(now, batch);
        const spent = this.#now() - now;
        this.#holdFor = Math.min(MAX_HOLD_MS, Math.max(interval, (spent * (1 - BUSY_SHARE)) / BUSY_SHARE));
        if (took < batch) return;
        continue;
      }
      if ((await this.#batch(now, batch)) < batch) return;
    }
  }

  /** Claims, makes and settles one batch; answers how many it claimed. */
  async #batch(now: number, batch: number): Promise<number> {
    // The lease outlasts an attempt: a call's timeout, or a mail's SMTP steps (20 s each).
    const attemptMs = this.#o.outgoing.notifications.size > 0 ? Math.max(this.#o.timeoutMs, 20_000) : this.#o.timeoutMs;
    const lease = now + attemptMs * 2 + 5_000;
    const rows = await this.#o.deliveries.claim(now, lease, batch);
    const accounts: AccountReads = new Map();
    await Promise.all(rows.map(async (row) => this.#settleSoon(await this.#attempt(row, accounts))));
    return rows.length;
  }

  async #attempt(row: DeliveryRow, accounts: AccountReads): Promise<Attempted> {
    const started = this.#now();
    if (!this.#o.outgoing.keys.has(row.item)) {
      // Point 7 changed since the write: whatever now sits there is not what the write set off.
      const error = `its ${row.kind === 'call' ? 'call' : 'notification'} is no longer in the spec (point 7 changed after the write)`;
      return {
        row,
        outcome: { ok: false, status: null, error },
        at: started,
        line: { delivery: row.id, kind: row.kind, target: row.target, item: row.item },
      };
    }
    let outcome: CallOutcome;
    let detail: Record<string, unknown> = {};
    if (row.kind === 'call') {
      outcome = await this.#call(row);
    } else {
      try {
        detail = await this.#o.notify(row, accounts);
        outcome = { ok: true, status: null, error: null };
      } catch (error) {
        outcome = { ok: false, status: null, error: error instanceof Error ? error.message : String(error) };
      }
    }
    const at = this.#now();
    const line = {
      delivery: row.id,
      kind: row.kind,
      target: row.target,
      event: eventType(row.entity, row.event, row.event === 'schedule' ? row.record_id : row.transition),
      record: row.record_id,
      attempt: row.attempts,
      status: outcome.status,
      ms: at - started,
      ...detail,
    };
    return { row, outcome, at, line };
  }

  /**
   * Settles an attempt together with the others that end in the same turn of the event loop: a
   * batch's settling is a statement or two, and a crash repeats only the calls of that turn that
   * were made but not yet recorded (at least once), not every call of the batch.
   */
  #settleSoon(attempted: Attempted): Promise<void> {
    this.#toSettle.push(attempted);
    this.#settling ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      const now = this.#toSettle;
      this.#toSettle = [];
      this.#settling = null;
      return this.#settle(now);
    });
    return this.#settling;
  }

  /** Records attempts (the delivered ones in one statement each answer code), then logs each. */
  async #settle(attempted: readonly Attempted[]): Promise<void> {
    const settled: { id: string; at: number; code: number | null; error: string | null; next: number | null }[] = [];
    for (const { row, outcome, at } of attempted) {
      if (outcome.ok) {
        settled.push({ id: row.id, at, code: outcome.status, error: null, next: null });
      } else {
        const known = this.#o.outgoing.keys.has(row.item);
        settled.push({
          id: row.id,
          at,
          code: outcome.status,
          error: outcome.error ?? 'failed',
          next: known ? this.#nextTry(row, at) : null,
        });
      }
    }
    await this.#o.deliveries.settle(settled);
    for (const [i, { row, outcome, line }] of attempted.entries()) {
      const next = settled[i]?.next ?? null;
      const error = outcome.error ?? 'failed';
      if (outcome.ok) this.#o.logger.info({ ...line, outcome: 'delivered' }, `delivered ${row.kind} ${row.target}`);
      else if (next === null)
        this.#o.logger.error({ ...line, outcome: 'dead', error }, `gave up on ${row.kind} ${row.target}`);
      else
        this.#o.logger.warn(
          { ...line, outcome: 'retry', error, next: new Date(next).toISOString() },
          `${row.kind} ${row.target} failed; trying again`,
        );
    }
  }

  async #call(row: DeliveryRow): Promise<CallOutcome> {
    const ready = this.#o.outgoing.webhooks.get(row.item);
    if (!ready) return { ok: false, status: null, error: 'the call is no longer configured' };
    const body = callBody(row, ready.webhook.fields);
    // The same id on every attempt: a receiver drops what it has seen (Standard Webhooks).
    const id = `msg_${row.id}`;
    const timestamp = Math.floor(this.#now() / 1000);
    this.#connections ??= callConnections(this.#o.allowPrivate);
    return sendCall(
      {
        url: ready.url,
        method: ready.webhook.method,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Ninepoint-Webhooks/1',
          'webhook-id': id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': webhookSignature(ready.key, id, timestamp, body),
        },
        body,
        timeoutMs: this.#o.timeoutMs,
        allowPrivate: this.#o.allowPrivate,
      },
      await this.#connections,
    );
  }

  /** When to try again after a failed attempt: null when the retry window is over (dead). */
  #nextTry(row: DeliveryRow, at: number): number | null {
    const base = this.#o.baseDelayMs ?? 10_000;
    const max = this.#o.maxDelayMs ?? 3_600_000;
    const exponential = Math.min(max, base * 2 ** Math.min(30, Math.max(0, row.attempts - 1)));
    // "Equal jitter": half the pause fixed, half random, so retries of many calls spread out.
    const delay = exponential / 2 + Math.random() * (exponential / 2);
    const next = Math.round(at + delay);
    return next > Date.parse(row.at) + this.#o.retryWindowMs ? null : next;
  }
}
