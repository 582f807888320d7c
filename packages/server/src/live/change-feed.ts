import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { channelName, PgListener } from '../store/postgres/pg-listener.ts';

/**
 * What happened to a record, as live updates tell it: never a field's value. `notification` is
 * not a record's change: a user (`id`) got an in-app notification (`outbox/`); nor is `account`:
 * a user's (`id`) roles changed or they were deactivated, so their streams are checked at once.
 */
export type ChangeKind = 'create' | 'update' | 'transition' | 'delete' | 'notification' | 'account';

/** A committed change of one record, as `GET /api/events` sends it. */
export interface Change {
  entity: string;
  id: string;
  kind: ChangeKind;
  /** ISO 8601 in UTC: when the write was made. */
  at: string;
  /**
   * Of an update, the fields it wrote (names, never values): a user who sees none of them is not
   * told of it. Absent: any field.
   */
  fields?: readonly string[];
}

const KINDS: ReadonlySet<string> = new Set<ChangeKind>([
  'create',
  'update',
  'transition',
  'delete',
  'notification',
  'account',
]);

/**
 * Where committed changes travel between the app servers of one database. Changes published here
 * reach this server's own listeners at once; a feed on PostgreSQL also carries them to the other
 * servers (LISTEN/NOTIFY), whose listeners get them as `remote`.
 */
export interface ChangeFeed {
  publish(change: Change): void;
  /** Calls `listener` for every change, this server's own (`remote` false) and others'. */
  subscribe(listener: (change: Change, remote: boolean) => void): () => void;
  close(): Promise<void>;
}

/** A feed within one process: SQLite, whose database one server serves. */
export class LocalFeed implements ChangeFeed {
  protected readonly listeners = new Set<(change: Change, remote: boolean) => void>();

  publish(change: Change): void {
    this.deliver(change, false);
  }

  subscribe(listener: (change: Change, remote: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  protected deliver(change: Change, remote: boolean): void {
    for (const listener of this.listeners) listener(change, remote);
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}

/** How long closing waits for the last notifications to be sent. */
const CLOSE_SEND_MS = 2_000;
/** The waits between attempts to send a statement of notifications that failed. */
const FIRST_RESEND_MS = 100;
const MAX_RESEND_MS = 5_000;
/**
 * The most notifications held for the other servers while the database does not take them: past
 * it the oldest are dropped (and logged), so an outage does not grow the process without bound.
 */
const MAX_PENDING = 10_000;

export interface PgFeedOptions {
  /** The database URL; the listening connection is opened with it, outside the pool. */
  url: string;
  /**
   * Sends notifications on `channel`, in order, in one statement (the store's pool: `SELECT
   * pg_notify($1, p) FROM unnest($2::text[])`).
   */
  notify: (channel: string, payloads: readonly string[]) => Promise<unknown>;
  logger?: Logger;
}

/**
 * A feed across the app servers of one PostgreSQL database. Each server listens on one dedicated
 * connection (`PgListener`) on a channel named for the schema the app lives in, so apps sharing a
 * database do not hear each other. A notification carries only the entity, the id, the kind, the
 * time and which server sent it (to skip its own, which reached its listeners at once).
 */
export class PgFeed extends LocalFeed {
  readonly #options: PgFeedOptions;
  readonly #origin = randomUUID();
  readonly #listener: PgListener;
  #closing = false;
  /** Changes published in this turn of the event loop, told to the other servers at its end. */
  #pending: string[] = [];
  /** Whether statements of notifications are under way (or waiting to be sent again). */
  #sending = false;
  /** Settles once the statement under way, and every one sent after it, has been answered. */
  #sent: Promise<void> = Promise.resolve();
  /** Cuts short the wait before sending a failed statement again (at close). */
  #resendNow: (() => void) | null = null;
  /** Resolves once listening has started (or failed its first time). */
  readonly ready: Promise<void>;

  constructor(options: PgFeedOptions) {
    super();
    this.#options = options;
    this.#listener = new PgListener({
      url: options.url,
      channels: (schema) => [channelFor(schema)],
      onNotification: (_channel, payload) => this.#received(payload),
      logger: options.logger,
      what: 'other servers’ changes',
    });
    this.ready = this.#listener.ready;
  }

  /** The channel this app's servers share; known once `ready` resolves. */
  get channel(): string {
    return this.#listener.channels[0] ?? '';
  }

  override publish(change: Change): void {
    super.publish(change);
    if (this.channel === '') return;
    // One statement for every change of the turn (and of the turns while the one before is under
    // way): under load many writes commit in one turn, and a statement each cost a pooled
    // connection and a round trip per write. One statement at a time, so the other servers hear
    // the changes in the order they were published.
    const payloads = encodePayloads(change, this.#origin);
    if (payloads.length === 0) {
      this.#options.logger?.error({ entity: change.entity, id: change.id }, 'a change too long to tell other servers');
      return;
    }
    if (this.#pending.length === 0 && !this.#sending) setImmediate(() => this.#flush());
    this.#pending.push(...payloads);
    if (this.#pending.length > MAX_PENDING) this.#drop(this.#pending.length - MAX_PENDING);
  }

  /** Sends what is pending, unless statements are under way already (they send it after theirs). */
  #flush(): Promise<void> {
    if (this.#sending) return this.#sent;
    this.#sending = true;
    this.#sent = this.#sendAll();
    return this.#sent;
  }

  /**
   * Sends the pending notifications, one statement at a time, until none is left. A statement
   * that fails (a pooled connection ended by the database, a failover) sent nothing (`pg_notify`
   * delivers at commit), so its notifications go back ahead of those published since and are sent
   * again after a wait, for as long as the feed is open; at close, once more at once.
   */
  async #sendAll(): Promise<void> {
    let waitMs = FIRST_RESEND_MS;
    /** Whether the one attempt at once that closing allows has been made. */
    let lastTry = false;
    try {
      while (this.#pending.length > 0 && this.channel !== '') {
        const payloads = this.#pending;
        this.#pending = [];
        try {
          await this.#options.notify(this.channel, payloads);
          waitMs = FIRST_RESEND_MS;
        } catch (error) {
          this.#pending = [...payloads, ...this.#pending];
          if (this.#closing && !lastTry) {
            lastTry = true;
            continue;
          }
          if (this.#closing) {
            this.#options.logger?.warn({ err: error }, 'could not tell the other servers of changes before closing');
            this.#drop(this.#pending.length);
            return;
          }
          this.#options.logger?.warn({ err: error }, 'could not tell the other servers of changes; trying again');
          if (this.#pending.length > MAX_PENDING) this.#drop(this.#pending.length - MAX_PENDING);
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, waitMs);
            this.#resendNow = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          this.#resendNow = null;
          waitMs = Math.min(waitMs * 2, MAX_RESEND_MS);
        }
      }
    } finally {
      // In the same step as the loop's last look at `#pending`, not in a `.finally` of this
      // promise (microtasks later): a change published in between would find a statement still
      // under way and start none, and it and every change after it would wait for the close.
      this.#sending = false;
    }
  }

  /** Forgets the `count` oldest pending notifications, saying so. */
  #drop(count: number): void {
    if (count <= 0) return;
    this.#pending.splice(0, count);
    this.#options.logger?.error({ dropped: count }, 'other servers were not told of some changes');
  }

  #received(payload: string | undefined): void {
    const change = parsePayload(payload, this.#origin);
    if (change) this.deliver(change, true);
  }

  override async close(): Promise<void> {
    // What was published is still told, one statement at a time (under way: the rest goes after
    // it), and before the store's pool ends, which comes next.
    this.#closing = true;
    this.#resendNow?.();
    const sent = this.#flush();
    // At most a moment: a database that does not answer must not hold the server's close open.
    let wait: NodeJS.Timeout | undefined;
    await Promise.race([sent, new Promise<void>((resolve) => (wait = setTimeout(resolve, CLOSE_SEND_MS)))]);
    clearTimeout(wait);
    await super.close();
    await this.#listener.close();
  }
}

/** A channel name for a schema; PostgreSQL identifiers hold 63 bytes. */
export function channelFor(schema: string): string {
  return channelName('ninepoint_changes_', schema, 'sha256');
}

/** A change as the notification `parsePayload` reads, from the server (or process) `origin`. */
export function encodePayload(change: Change, origin: string): string {
  return JSON.stringify({
    e: change.entity,
    i: change.id,
    k: change.kind,
    a: change.at,
    o: origin,
    ...(change.fields ? { f: change.fields } : {}),
  });
}

/** The longest payload PostgreSQL takes: one of 8,000 bytes or more fails `pg_notify`, and its whole statement. */
export const MAX_PAYLOAD_BYTES = 7_999;

/**
 * A change as the payloads of its notifications: one, or, for an update of more fields than one
 * payload names, one per part of its fields (a server tells a user of each part that has a field
 * they see, at worst twice; the fields, never dropped, keep an update of hidden fields untold). A
 * payload too long for the database would fail every statement it is sent in, again and again.
 * None when even one field is too long (no name the checker allows is).
 */
export function encodePayloads(change: Change, origin: string): string[] {
  const payload = encodePayload(change, origin);
  if (Buffer.byteLength(payload) <= MAX_PAYLOAD_BYTES) return [payload];
  const fields = change.fields ?? [];
  if (fields.length < 2) return [];
  const half = Math.ceil(fields.length / 2);
  const parts = [fields.slice(0, half), fields.slice(half)].map((part) =>
    encodePayloads({ ...change, fields: part }, origin),
  );
  return parts.some((part) => part.length === 0) ? [] : parts.flat();
}

/** A notification's change, unless it is malformed or this server's own. */
export function parsePayload(payload: string | undefined, origin: string): Change | null {
  if (!payload) return null;
  try {
    const { e, i, k, a, o, f } = JSON.parse(payload) as Record<string, unknown>;
    if (o === origin) return null;
    if (typeof e !== 'string' || typeof i !== 'string' || typeof k !== 'string' || !KINDS.has(k)) return null;
    const fields = Array.isArray(f) && f.every((name) => typeof name === 'string') ? { fields: f as string[] } : {};
    return {
      entity: e,
      id: i,
      kind: k as ChangeKind,
      at: typeof a === 'string' ? a : new Date().toISOString(),
      ...fields,
    };
  } catch {
    return null;
  }
}
