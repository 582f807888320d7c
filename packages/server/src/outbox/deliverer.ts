import type { Logger } from 'pino';
import type { DeliveriesStore, DeliveryRow } from './deliveries-store.ts';
import { eventType, type Outgoing } from './outgoing.ts';
import { type CallOutcome, sendCall } from './send-call.ts';
import { webhookSignature } from './signing.ts';

export interface DelivererOptions {
  deliveries: DeliveriesStore;
  outgoing: Outgoing;
  /** Sends one notification delivery; throws to have it tried again. */
  notify: (row: DeliveryRow) => Promise<{ mailed: number; told: number; skipped: number }>;
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
  /** Deliveries made at once. Default 8. */
  batch?: number;
  now?: () => number;
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
 * (`DeliveriesStore.claim`), makes each (a signed call, or a notification), and settles it:
 * delivered, or tried again after an exponential pause with jitter, or dead once the retry window
 * is over. One log line per attempt. Woken by `kick` after a write and every `pollMs` otherwise.
 */
export class Deliverer {
  readonly #o: DelivererOptions;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  #again = false;
  #stopped = false;

  constructor(options: DelivererOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  start(): void {
    this.#timer = setInterval(() => this.kick(), this.#o.pollMs ?? 1000);
    this.#timer.unref();
    this.kick();
  }

  /** Looks for due deliveries now (after a write that added some, or "Retry now"). */
  kick(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#drain()
      .catch((error: unknown) => this.#o.logger.error({ err: error }, 'the outbox could not deliver'))
      .finally(() => {
        this.#running = null;
        if (this.#again) {
          this.#again = false;
          this.kick();
        }
      });
  }

  /** Stops claiming; resolves once the deliveries under way are settled. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    await this.#running;
  }

  async #drain(): Promise<void> {
    const batch = this.#o.batch ?? 8;
    for (;;) {
      if (this.#stopped) return;
      const now = this.#now();
      // The lease outlasts an attempt: a call's timeout, or a mail's SMTP steps (20 s each).
      const attemptMs =
        this.#o.outgoing.notifications.size > 0 ? Math.max(this.#o.timeoutMs, 20_000) : this.#o.timeoutMs;
      const lease = now + attemptMs * 2 + 5_000;
      const rows = await this.#o.deliveries.claim(now, lease, batch);
      if (rows.length === 0) return;
      await Promise.all(rows.map((row) => this.#attempt(row)));
      if (rows.length < batch) return;
    }
  }

  async #attempt(row: DeliveryRow): Promise<void> {
    const started = this.#now();
    if (!this.#o.outgoing.keys.has(row.item)) {
      // Point 7 changed since the write: whatever now sits there is not what the write set off.
      const error = `its ${row.kind === 'call' ? 'call' : 'notification'} is no longer in the spec (point 7 changed after the write)`;
      await this.#o.deliveries.failed(row.id, started, null, error, null);
      this.#o.logger.error(
        { delivery: row.id, kind: row.kind, target: row.target, item: row.item, outcome: 'dead', error },
        `gave up on ${row.kind} ${row.target}`,
      );
      return;
    }
    let outcome: CallOutcome;
    let detail: Record<string, unknown> = {};
    if (row.kind === 'call') {
      outcome = await this.#call(row);
    } else {
      try {
        detail = await this.#o.notify(row);
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
    if (outcome.ok) {
      await this.#o.deliveries.delivered(row.id, at, outcome.status);
      this.#o.logger.info({ ...line, outcome: 'delivered' }, `delivered ${row.kind} ${row.target}`);
      return;
    }
    const next = this.#nextTry(row, at);
    await this.#o.deliveries.failed(row.id, at, outcome.status, outcome.error ?? 'failed', next);
    const error = outcome.error ?? 'failed';
    if (next === null)
      this.#o.logger.error({ ...line, outcome: 'dead', error }, `gave up on ${row.kind} ${row.target}`);
    else
      this.#o.logger.warn(
        { ...line, outcome: 'retry', error, next: new Date(next).toISOString() },
        `${row.kind} ${row.target} failed; trying again`,
      );
  }

  async #call(row: DeliveryRow): Promise<CallOutcome> {
    const ready = this.#o.outgoing.webhooks.get(row.item);
    if (!ready) return { ok: false, status: null, error: 'the call is no longer configured' };
    const body = callBody(row, ready.webhook.fields);
    // The same id on every attempt: a receiver drops what it has seen (Standard Webhooks).
    const id = `msg_${row.id}`;
    const timestamp = Math.floor(this.#now() / 1000);
    return sendCall({
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
    });
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
