import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Logger } from 'pino';

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

/** The longest wait between attempts to listen again after the connection was lost. */
const MAX_RETRY_MS = 30_000;
const FIRST_RETRY_MS = 250;
/** How long closing waits for the last notifications to be sent. */
const CLOSE_SEND_MS = 2_000;

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
 * connection (made again, with growing waits, when it is lost) on a channel named for the schema
 * the app lives in, so apps sharing a database do not hear each other. A notification carries only
 * the entity, the id, the kind, the time and which server sent it (to skip its own, which reached
 * its listeners at once).
 */
export class PgFeed extends LocalFeed {
  readonly #options: PgFeedOptions;
  readonly #origin = randomUUID();
  #channel = '';
  #client: pg.Client | null = null;
  #closed = false;
  #retryMs = FIRST_RETRY_MS;
  #retry: NodeJS.Timeout | null = null;
  /** Changes published in this turn of the event loop, told to the other servers at its end. */
  #pending: string[] = [];
  /** Whether a statement of notifications is under way (the next waits for it). */
  #sending = false;
  /** Settles once the statement under way, and every one sent after it, has been answered. */
  #sent: Promise<void> = Promise.resolve();
  /** Resolves once listening has started (or failed its first time). */
  readonly ready: Promise<void>;

  constructor(options: PgFeedOptions) {
    super();
    this.#options = options;
    this.ready = this.#listen();
  }

  /** The channel this app's servers share; known once `ready` resolves. */
  get channel(): string {
    return this.#channel;
  }

  override publish(change: Change): void {
    super.publish(change);
    if (this.#channel === '') return;
    // One statement for every change of the turn (and of the turns while the one before is under
    // way): under load many writes commit in one turn, and a statement each cost a pooled
    // connection and a round trip per write. One statement at a time, so the other servers hear
    // the changes in the order they were published.
    if (this.#pending.length === 0 && !this.#sending) setImmediate(() => this.#flush());
    this.#pending.push(encodePayload(change, this.#origin));
  }

  /** Sends what is pending, if anything: answers the statement's promise (also kept as `#sent`). */
  #flush(): Promise<void> | undefined {
    const payloads = this.#pending;
    this.#pending = [];
    if (payloads.length === 0 || this.#channel === '') return undefined;
    this.#sending = true;
    this.#sent = this.#options
      .notify(this.#channel, payloads)
      .then(
        () => {},
        (error: unknown) => {
          this.#options.logger?.warn({ err: error }, 'could not tell the other servers of a change');
        },
      )
      .then(() => {
        this.#sending = false;
        // The changes published meanwhile: this promise settles after them too (`close` waits).
        return this.#flush();
      });
    return this.#sent;
  }

  async #listen(): Promise<void> {
    if (this.#closed) return;
    const client = new pg.Client({ connectionString: this.#options.url });
    client.on('error', () => this.#lost(client));
    client.on('end', () => this.#lost(client));
    try {
      await client.connect();
      const schema = (await client.query<{ schema: string }>('SELECT current_schema() AS schema')).rows[0]?.schema;
      this.#channel = channelFor(schema ?? 'public');
      client.on('notification', (message) => {
        if (message.channel === this.#channel) this.#received(message.payload);
      });
      await client.query(`LISTEN ${pg.escapeIdentifier(this.#channel)}`);
      if (this.#closed) {
        await client.end();
        return;
      }
      this.#client = client;
      this.#retryMs = FIRST_RETRY_MS;
    } catch (error) {
      this.#options.logger?.warn({ err: error }, 'could not listen for other servers’ changes; trying again');
      client.removeAllListeners('end');
      await client.end().catch(() => {});
      this.#again();
    }
  }

  #lost(client: pg.Client): void {
    if (this.#client !== client) return;
    this.#client = null;
    if (this.#closed) return;
    this.#options.logger?.warn('lost the connection that hears other servers’ changes; listening again');
    client.end().catch(() => {});
    this.#again();
  }

  #again(): void {
    if (this.#closed || this.#retry !== null) return;
    const wait = this.#retryMs;
    this.#retryMs = Math.min(this.#retryMs * 2, MAX_RETRY_MS);
    this.#retry = setTimeout(() => {
      this.#retry = null;
      void this.#listen();
    }, wait);
    this.#retry.unref();
  }

  #received(payload: string | undefined): void {
    const change = parsePayload(payload, this.#origin);
    if (change) this.deliver(change, true);
  }

  override async close(): Promise<void> {
    // What was published is still told, one statement at a time (under way: the rest goes after
    // it), and before the store's pool ends, which comes next.
    if (!this.#sending) this.#flush();
    // At most a moment: a database that does not answer must not hold the server's close open.
    let wait: NodeJS.Timeout | undefined;
    await Promise.race([this.#sent, new Promise<void>((resolve) => (wait = setTimeout(resolve, CLOSE_SEND_MS)))]);
    clearTimeout(wait);
    this.#closed = true;
    if (this.#retry !== null) clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = null;
    await super.close();
    await client?.end().catch(() => {});
  }
}

/** A channel name for a schema; PostgreSQL identifiers hold 63 bytes. */
export function channelFor(schema: string): string {
  const name = `ninepoint_changes_${schema}`;
  return Buffer.byteLength(name) <= 63
    ? name
    : `ninepoint_changes_${createHash('sha256').update(schema).digest('hex').slice(0, 32)}`;
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
