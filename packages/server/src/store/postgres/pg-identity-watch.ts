import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Logger } from 'pino';

/** The longest wait between attempts to listen again after the connection was lost. */
const MAX_RETRY_MS = 30_000;
const FIRST_RETRY_MS = 250;
const PREFIX = 'ninepoint_identity_';

/**
 * The channel the identity tables' trigger (`IDENTITY_TRIGGER_DDL`) notifies, for a schema:
 * PostgreSQL's channel names hold 63 bytes, so a long schema name is hashed (as the trigger does).
 */
export function identityChannelFor(schema: string): string {
  const name = `${PREFIX}${schema}`;
  return Buffer.byteLength(name) <= 63
    ? name
    : `${PREFIX}${createHash('md5').update(schema).digest('hex').slice(0, 32)}`;
}

/**
 * The trigger function the identity tables' triggers run, made in the schema beside them: a tool
 * that removes what a server made in a schema (`init --import-data`'s undo) drops it too.
 */
export const IDENTITY_FUNCTION = '_ninepoint_identity_changed';
const FUNCTION = IDENTITY_FUNCTION;

/**
 * Every statement that writes a row of a table deciding who a caller is (users: roles,
 * deactivation; tokens; sessions), by any path — this server, another one, `ninepoint tokens
 * revoke`, bare SQL — notifies the schema's identity channel when its transaction commits (one
 * notification per transaction: PostgreSQL folds equal ones). `TG_TABLE_SCHEMA`, not the
 * session's `search_path`, names the channel: a statement naming the table by its schema from
 * another search path still reaches the servers of that schema.
 */
export function identityTriggerDdl(tables: readonly string[]): string[] {
  const channel = `'${PREFIX}' || TG_TABLE_SCHEMA`;
  return [
    `CREATE OR REPLACE FUNCTION "${FUNCTION}"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify(CASE WHEN octet_length(${channel}) <= 63 THEN ${channel}
    ELSE '${PREFIX}' || left(md5(TG_TABLE_SCHEMA), 32) END, '');
  RETURN NULL;
END $$`,
    // Made once: a server starting again does not lock the tables a running one reads.
    ...tables.map(
      (table) => `DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = '${table}_identity_changed' AND tgrelid = '"${table}"'::regclass) THEN
    CREATE TRIGGER "${table}_identity_changed" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "${table}"
      FOR EACH STATEMENT EXECUTE FUNCTION "${FUNCTION}"();
  END IF;
END $$`,
    ),
  ];
}

/**
 * Whether what a PostgreSQL server read of the identity tables may still be used: a stamp that
 * changes at every notification of the identity channel, heard on one dedicated connection
 * (LISTEN), and at every write this process makes through its `PgRunner`. Fail closed: there is
 * no stamp (nothing may be kept) until the LISTEN is confirmed, and none from the moment the
 * connection reports an error or its end until it listens again, with a new stamp.
 *
 * Another process's write is heard a moment after it commits, not at its commit: PostgreSQL
 * signals the listening backend at the commit, which then sends the notification (well under a
 * millisecond on one host). A call that this server reads within that moment — before the
 * notification — can still be answered from what was kept, as a call that came a moment earlier
 * would have been. A connection lost without a word (a network cut) is seen by TCP keepalive
 * (probes from 10 s of silence);
 * until then, entries are kept 10 s at most (`FoundLately`).
 */
export class IdentityWatch {
  readonly #url: string;
  readonly #logger: Logger | undefined;
  #client: pg.Client | null = null;
  #channel = '';
  /** Bumped at every notification and every change of the connection: stamps never repeat. */
  #generation = 0;
  #live = false;
  #closed = false;
  #retryMs = FIRST_RETRY_MS;
  #retry: NodeJS.Timeout | null = null;
  /** Resolves once the first attempt to listen has ended (listening or not). */
  readonly ready: Promise<void>;

  constructor(url: string, logger?: Logger) {
    this.#url = url;
    this.#logger = logger;
    this.ready = this.#listen();
  }

  /** The current stamp while listening; undefined when nothing may be kept. */
  stamp(): string | undefined {
    return this.#live ? String(this.#generation) : undefined;
  }

  /**
   * This process wrote to the database: what was kept is stale now, before its own notification
   * comes back (as on SQLite, a write of the server's own is seen by its very next call).
   */
  wrote(): void {
    this.#generation++;
  }

  async #listen(): Promise<void> {
    if (this.#closed) return;
    // Keepalive probes start after 10 s of silence instead of the OS default of about 2 h, so a
    // cut connection is found in minutes; meanwhile nothing is kept longer than `FoundLately`'s 10 s.
    const client = new pg.Client({ connectionString: this.#url, keepAlive: true, keepAliveInitialDelayMillis: 10_000 });
    client.on('error', () => this.#lost(client));
    client.on('end', () => this.#lost(client));
    try {
      await client.connect();
      const schema = (await client.query<{ schema: string }>('SELECT current_schema() AS schema')).rows[0]?.schema;
      this.#channel = identityChannelFor(schema ?? 'public');
      client.on('notification', (message) => {
        if (message.channel !== this.#channel) return;
        this.#generation++;
      });
      this.#client = client;
      await client.query(`LISTEN ${pg.escapeIdentifier(this.#channel)}`);
      if (this.#closed || this.#client !== client) {
        await client.end().catch(() => {});
        return;
      }
      this.#generation++;
      this.#live = true;
      this.#retryMs = FIRST_RETRY_MS;
    } catch (error) {
      this.#logger?.warn({ err: error }, 'could not listen for changes of users, tokens and sessions; trying again');
      if (this.#client === client) this.#client = null;
      client.removeAllListeners('end');
      await client.end().catch(() => {});
      this.#again();
    }
  }

  #lost(client: pg.Client): void {
    if (this.#client !== client) return;
    // First: from here on nothing kept is used, whatever happens next.
    this.#live = false;
    this.#generation++;
    this.#client = null;
    if (this.#closed) return;
    this.#logger?.warn('lost the connection that hears changes of users, tokens and sessions; listening again');
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

  async close(): Promise<void> {
    this.#closed = true;
    this.#live = false;
    this.#generation++;
    if (this.#retry !== null) clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = null;
    await client?.end().catch(() => {});
  }
}
