import type { Logger } from 'pino';
import { channelName, PgListener } from './pg-listener.ts';

const PREFIX = 'ninepoint_identity_';

/**
 * The channel the identity tables' trigger (`IDENTITY_TRIGGER_DDL`) notifies, for a schema:
 * PostgreSQL's channel names hold 63 bytes, so a long schema name is hashed (as the trigger does).
 */
export function identityChannelFor(schema: string): string {
  return channelName(PREFIX, schema, 'md5');
}

/**
 * The trigger function the identity tables' triggers run, made in the schema beside them: a tool
 * that removes what a server made in a schema (`init --import-data`'s undo) drops it too.
 */
export const IDENTITY_FUNCTION = '_ninepoint_identity_changed';
const FUNCTION = IDENTITY_FUNCTION;

/** A table that decides who a caller is, and the columns of it whose update may change that. */
export interface IdentityTable {
  table: string;
  /**
   * The columns an update of which changes who a caller is or what a server keeps of them; empty:
   * every update. A column left out (a session's last-seen stamp) is written without a word.
   */
  columns: readonly string[];
}

/**
 * Every statement that inserts or deletes a row of a table deciding who a caller is, or updates one
 * of its `columns` (users: roles, deactivation; tokens: revocation; sessions: expiry…), by any
 * path — this server, another one, `ninepoint tokens revoke`, bare SQL — notifies the schema's
 * identity channel when its transaction commits (one notification per transaction: PostgreSQL
 * folds equal ones). `TG_TABLE_SCHEMA`, not the session's `search_path`, names the channel: a
 * statement naming the table by its schema from another search path still reaches the servers of
 * that schema. Run after the columns exist: a trigger naming a column needs it.
 */
export function identityTriggerDdl(tables: readonly IdentityTable[]): string[] {
  const channel = `'${PREFIX}' || TG_TABLE_SCHEMA`;
  return [
    `CREATE OR REPLACE FUNCTION "${FUNCTION}"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify(CASE WHEN octet_length(${channel}) <= 63 THEN ${channel}
    ELSE '${PREFIX}' || left(md5(TG_TABLE_SCHEMA), 32) END, '');
  RETURN NULL;
END $$`,
    ...tables.map(({ table, columns }) => {
      const trigger = `${table}_identity_changed`;
      const update = columns.length === 0 ? 'UPDATE' : `UPDATE OF ${columns.map((c) => `"${c}"`).join(', ')}`;
      const expected = `ARRAY[${columns.map((c) => `'${c}'`).join(', ')}]::text[]`;
      // Made again only when missing or watching other columns (a database from before the
      // column lists: every update, a touch too, notified): a server starting again does not
      // lock the tables a running one reads. Columns compared as sets: no collation decides.
      return `DO $$
DECLARE watched text[];
BEGIN
  SELECT ARRAY(SELECT a.attname::text FROM pg_attribute a WHERE a.attrelid = t.tgrelid AND a.attnum = ANY(t.tgattr::int2[]))
    INTO watched FROM pg_trigger t WHERE t.tgname = '${trigger}' AND t.tgrelid = '"${table}"'::regclass;
  IF watched IS NULL OR NOT (watched @> ${expected} AND watched <@ ${expected}) THEN
    DROP TRIGGER IF EXISTS "${trigger}" ON "${table}";
    CREATE TRIGGER "${trigger}" AFTER INSERT OR ${update} OR DELETE OR TRUNCATE ON "${table}"
      FOR EACH STATEMENT EXECUTE FUNCTION "${FUNCTION}"();
  END IF;
END $$`;
    }),
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
  readonly #listener: PgListener;
  /** Bumped at every notification and every change of the connection: stamps never repeat. */
  #generation = 0;
  #live = false;
  /** Resolves once the first attempt to listen has ended (listening or not). */
  readonly ready: Promise<void>;

  constructor(url: string, logger?: Logger) {
    this.#listener = new PgListener({
      url,
      channels: (schema) => [identityChannelFor(schema)],
      onNotification: () => {
        this.#generation++;
      },
      onListening: () => {
        this.#generation++;
        this.#live = true;
      },
      // First, before the listener logs or retries: from here on nothing kept is used.
      onLost: () => {
        this.#live = false;
        this.#generation++;
      },
      logger,
      what: 'changes of users, tokens and sessions',
    });
    this.ready = this.#listener.ready;
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

  async close(): Promise<void> {
    this.#live = false;
    this.#generation++;
    await this.#listener.close();
  }
}
