import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Logger } from 'pino';

/** The longest wait between attempts to listen again after the connection was lost. */
const MAX_RETRY_MS = 30_000;
const FIRST_RETRY_MS = 250;
/** How long `close` waits for an attempt under way (connecting, LISTEN) to end. */
const CLOSE_WAIT_MS = 2_000;

/**
 * A channel name for `prefix` and a schema: PostgreSQL's identifiers hold 63 bytes, so past that
 * the schema is replaced by the first 32 hex digits of its `hash` (a trigger computing the name in
 * SQL must hash the same way).
 */
export function channelName(prefix: string, schema: string, hash: 'md5' | 'sha256'): string {
  const name = `${prefix}${schema}`;
  return Buffer.byteLength(name) <= 63
    ? name
    : `${prefix}${createHash(hash).update(schema).digest('hex').slice(0, 32)}`;
}

export interface PgListenerOptions {
  /** The database URL; the listening connection is opened with it, outside any pool. */
  url: string;
  /** The channels to listen on, named for the schema the connection lands in (`current_schema()`). */
  channels: (schema: string) => readonly string[];
  /** A notification on one of the channels, from the connection that listens now. */
  onNotification: (channel: string, payload: string | undefined) => void;
  /** Every LISTEN is confirmed: at the first connection and after each one made again. */
  onListening?: () => void;
  /**
   * The connection was lost (an error, its end, or an attempt that failed): called before anything
   * else the loss leads to, the listener's own logging and retry included.
   */
  onLost?: () => void;
  logger?: Logger;
  /** What is heard, for the log: "changes of users, tokens and sessions". */
  what: string;
}

/**
 * One dedicated PostgreSQL connection that LISTENs on a schema's channels, and listens again, with
 * growing waits (250 ms to 30 s), whenever it is lost. A connection lost without a word (a network
 * cut) is seen by TCP keepalive, whose probes start after 10 s of silence instead of the OS
 * default of about two hours.
 */
export class PgListener {
  readonly #options: PgListenerOptions;
  #client: pg.Client | null = null;
  #channels: readonly string[] = [];
  #listening = false;
  #closed = false;
  #retryMs = FIRST_RETRY_MS;
  #retry: NodeJS.Timeout | null = null;
  /** When every LISTEN was last confirmed (ms): a connection lost soon after does not reset the waits. */
  #listeningSince = 0;
  /** The attempt to connect and listen under way, if any (`close` waits for it). */
  #attempt: Promise<void> | null = null;
  /** Resolves once the first attempt to listen has ended (listening or not). */
  readonly ready: Promise<void>;

  constructor(options: PgListenerOptions) {
    this.#options = options;
    this.ready = this.#start();
  }

  /** The channels listened on (or last listened on); empty until the first connection answers. */
  get channels(): readonly string[] {
    return this.#channels;
  }

  /** Whether every LISTEN is confirmed and the connection has not been lost since. */
  get listening(): boolean {
    return this.#listening;
  }

  #start(): Promise<void> {
    const attempt = this.#listen().finally(() => {
      if (this.#attempt === attempt) this.#attempt = null;
    });
    this.#attempt = attempt;
    return attempt;
  }

  async #listen(): Promise<void> {
    if (this.#closed) return;
    const client = new pg.Client({
      connectionString: this.#options.url,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    // From its creation any error or end of this connection is a loss: an attempt half way too.
    this.#client = client;
    client.on('error', () => this.#lost(client));
    client.on('end', () => this.#lost(client));
    client.on('notification', (message) => {
      if (this.#client === client && this.#channels.includes(message.channel)) {
        this.#options.onNotification(message.channel, message.payload);
      }
    });
    try {
      await client.connect();
      const schema = (await client.query<{ schema: string | null }>('SELECT current_schema() AS schema')).rows[0]
        ?.schema;
      this.#channels = this.#options.channels(schema ?? 'public');
      // One statement a channel: what `pg_stat_activity` shows as the connection's query names it.
      for (const channel of this.#channels) await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      if (this.#client !== client) return;
      if (this.#closed) {
        // Closed while this attempt was under way: `close` waits for it, and ends nothing itself.
        this.#client = null;
        await client.end().catch(() => {});
        return;
      }
      this.#listening = true;
      this.#listeningSince = Date.now();
      this.#options.onListening?.();
    } catch (error) {
      if (this.#client === client && !this.#closed) {
        this.#options.logger?.warn({ err: error }, `could not listen for ${this.#options.what}; trying again`);
      }
      this.#lost(client);
    }
  }

  #lost(client: pg.Client): void {
    if (this.#client !== client) return;
    this.#client = null;
    // The waits start over only after a connection that lasted: one the database ends as soon as it
    // listens (a timeout on idle sessions, a proxy) must not be opened again four times a second,
    // each time telling every listener that writes may have been missed.
    if (this.#listening && Date.now() - this.#listeningSince >= MAX_RETRY_MS) this.#retryMs = FIRST_RETRY_MS;
    this.#listening = false;
    // First: whoever relies on the notifications stops before anything else runs.
    this.#options.onLost?.();
    client.end().catch(() => {});
    if (this.#closed) return;
    this.#options.logger?.warn(`lost the connection that hears ${this.#options.what}; listening again`);
    this.#again();
  }

  #again(): void {
    if (this.#closed || this.#retry !== null) return;
    const wait = this.#retryMs;
    this.#retryMs = Math.min(this.#retryMs * 2, MAX_RETRY_MS);
    this.#retry = setTimeout(() => {
      this.#retry = null;
      void this.#start();
    }, wait);
    this.#retry.unref();
  }

  /**
   * Stops listening for good: lets an attempt under way (connecting, LISTEN) end, since ending a
   * connection half way through its start leaves the start unsettled, then ends the connection.
   * At most a moment: a database that does not answer must not hold the server's close open (an
   * attempt that ends later ends its connection itself).
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#listening = false;
    if (this.#retry !== null) clearTimeout(this.#retry);
    this.#retry = null;
    let wait: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => (wait = setTimeout(resolve, CLOSE_WAIT_MS)));
    await Promise.race([this.#attempt, deadline]);
    const client = this.#client;
    this.#client = null;
    if (client) await Promise.race([client.end().catch(() => {}), deadline]);
    clearTimeout(wait);
  }
}
