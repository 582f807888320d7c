import type { Logger } from 'pino';
import type { IdentityChange } from '../sql-runner.ts';
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
  /** The column naming the user a row is about: the users' own `id`, a session's `user_id`… */
  user: 'id' | 'user_id';
}

/**
 * The most users a notification names: 200 UUIDs of 36 characters, quoted and separated, are
 * 7,800 bytes, under PostgreSQL's 8,000 a payload may hold. Past it, it names the table only.
 */
export const MAX_NAMED_USERS = 200;

/** A notification's payload as `IdentityChange`: anything else (an older trigger's empty one) is "unknown". */
export function parseIdentityPayload(payload: string | undefined): IdentityChange {
  try {
    const { t, u } = JSON.parse(payload ?? '') as { t?: unknown; u?: unknown };
    if (typeof t !== 'string') return { table: null };
    return Array.isArray(u) && u.every((id) => typeof id === 'string') ? { table: t, users: u } : { table: t };
  } catch {
    return { table: null };
  }
}

/** The rows a statement wrote, under the names the triggers give their transition tables. */
const OLD_ROWS = '_ninepoint_old';
const NEW_ROWS = '_ninepoint_new';

/** The users named by the rows of `source` (a statement's transition tables), at most one too many. */
function usersOf(column: string, source: 'INSERT' | 'DELETE' | 'UPDATE'): string {
  const of = (rows: string) => `SELECT "${column}"::text FROM ${rows}`;
  const rows =
    source === 'INSERT' ? of(NEW_ROWS) : source === 'DELETE' ? of(OLD_ROWS) : `${of(OLD_ROWS)} UNION ${of(NEW_ROWS)}`;
  return `users := ARRAY(SELECT DISTINCT u FROM (${rows}) AS rows(u) LIMIT ${MAX_NAMED_USERS + 1});`;
}

/** One trigger of a table on the function: its events, transition tables and argument (the user column). */
interface TriggerShape {
  name: string;
  /** `pg_trigger.tgtype` of an AFTER … FOR EACH STATEMENT trigger on these events. */
  type: number;
  events: string;
  columns: readonly string[];
  oldRows: boolean;
  newRows: boolean;
}

/**
 * The triggers of one table. PostgreSQL gives transition tables (the rows a statement wrote) only
 * to a trigger of one event, and not to an update trigger that lists columns: a table has one
 * trigger an event, and a session's or token's update tells the table without its users.
 */
function triggersOf({ table, columns }: IdentityTable): TriggerShape[] {
  const all = columns.length === 0;
  return [
    {
      name: `${table}_identity_changed`,
      type: 16,
      events: all ? 'UPDATE' : `UPDATE OF ${columns.map((c) => `"${c}"`).join(', ')}`,
      columns,
      oldRows: all,
      newRows: all,
    },
    { name: `${table}_identity_inserted`, type: 4, events: 'INSERT', columns: [], oldRows: false, newRows: true },
    { name: `${table}_identity_deleted`, type: 8, events: 'DELETE', columns: [], oldRows: true, newRows: false },
    { name: `${table}_identity_truncated`, type: 32, events: 'TRUNCATE', columns: [], oldRows: false, newRows: false },
  ];
}

/**
 * Every statement that inserts or deletes a row of a table deciding who a caller is, or updates one
 * of its `columns` (users: roles, deactivation; tokens: revocation; sessions: expiry…), by any
 * path — this server, another one, `ninepoint tokens revoke`, bare SQL — notifies the schema's
 * identity channel when its transaction commits (equal notifications of one transaction are folded
 * into one). The payload names the table and, where the statement's rows are known (an insert, a
 * delete, an update of users), the users they are about (`{"t":"_ninepoint_users","u":["…"]}`):
 * live updates end or re-check only those users' streams. A statement that wrote no row says
 * nothing, where its rows are known. `TG_TABLE_SCHEMA`, not the session's `search_path`, names the
 * channel: a statement naming the table by its schema from another search path still reaches the
 * servers of that schema. Run after the columns exist: a trigger naming a column needs it.
 *
 * The users are read by static statements, planned once per table (dynamic SQL, planned at every
 * statement, cost about 0.5 ms more a write; these, well under 0.1 ms).
 */
export function identityTriggerDdl(tables: readonly IdentityTable[]): string[] {
  const channel = `'${PREFIX}' || TG_TABLE_SCHEMA`;
  const table = `'{"t":' || to_json(TG_TABLE_NAME::text)`;
  const branch = (column: string) => `IF TG_OP = 'INSERT' THEN ${usersOf(column, 'INSERT')}
      ELSIF TG_OP = 'DELETE' THEN ${usersOf(column, 'DELETE')}
      ELSE ${usersOf(column, 'UPDATE')}
      END IF;`;
  return [
    // A trigger made with the user column as its argument has the transition tables its event allows.
    `CREATE OR REPLACE FUNCTION "${FUNCTION}"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  channel text := ${channel};
  payload text := ${table} || '}';
  users text[];
BEGIN
  IF octet_length(channel) > 63 THEN channel := '${PREFIX}' || left(md5(TG_TABLE_SCHEMA), 32); END IF;
  IF TG_NARGS = 1 AND TG_OP <> 'TRUNCATE' THEN
    IF TG_ARGV[0] = 'id' THEN
      ${branch('id')}
    ELSE
      ${branch('user_id')}
    END IF;
    IF cardinality(users) = 0 THEN RETURN NULL; END IF;
    IF cardinality(users) <= ${MAX_NAMED_USERS} THEN
      payload := ${table} || ',"u":' || array_to_json(users) || '}';
      IF octet_length(payload) >= 8000 THEN payload := ${table} || '}'; END IF;
    END IF;
  END IF;
  PERFORM pg_notify(channel, payload);
  RETURN NULL;
END $$`,
    ...tables.flatMap((identity) =>
      triggersOf(identity).map((trigger) => {
        const { name, type, events, columns, oldRows, newRows } = trigger;
        const { table: relation, user } = identity;
        const argument = oldRows || newRows ? `'${user}'` : '';
        const args = oldRows || newRows ? Buffer.from(`${user}\0`).toString('hex') : '';
        const referencing =
          oldRows || newRows
            ? ` REFERENCING${oldRows ? ` OLD TABLE AS ${OLD_ROWS}` : ''}${newRows ? ` NEW TABLE AS ${NEW_ROWS}` : ''}`
            : '';
        const expected = `ARRAY[${columns.map((c) => `'${c}'`).join(', ')}]::text[]`;
        // Made again only when missing or made otherwise (a database from before: one trigger for
        // every event, without transition tables; or watching other columns): a server starting
        // again does not lock the tables a running one reads. Columns compared as sets: no
        // collation decides.
        return `DO $$
DECLARE existing pg_trigger; watched text[];
BEGIN
  SELECT * INTO existing FROM pg_trigger t WHERE t.tgname = '${name}' AND t.tgrelid = '"${relation}"'::regclass;
  SELECT ARRAY(SELECT a.attname::text FROM pg_attribute a WHERE a.attrelid = existing.tgrelid AND a.attnum = ANY(existing.tgattr::int2[]))
    INTO watched;
  IF existing.oid IS NULL OR existing.tgtype <> ${type} OR existing.tgargs <> '\\x${args}'::bytea
    OR existing.tgoldtable IS DISTINCT FROM ${oldRows ? `'${OLD_ROWS}'` : 'NULL'}
    OR existing.tgnewtable IS DISTINCT FROM ${newRows ? `'${NEW_ROWS}'` : 'NULL'}
    OR NOT (watched @> ${expected} AND watched <@ ${expected}) THEN
    DROP TRIGGER IF EXISTS "${name}" ON "${relation}";
    CREATE TRIGGER "${name}" AFTER ${events} ON "${relation}"${referencing}
      FOR EACH STATEMENT EXECUTE FUNCTION "${FUNCTION}"(${argument});
  END IF;
END $$`;
      }),
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
  readonly #listener: PgListener;
  /** Bumped at every notification and every change of the connection: stamps never repeat. */
  #generation = 0;
  #live = false;
  /** Whether the connection was lost since it last listened: what was written meanwhile is unknown. */
  #missed = false;
  readonly #listeners = new Set<(change: IdentityChange) => void>();
  readonly #logger: Logger | undefined;
  /** Resolves once the first attempt to listen has ended (listening or not). */
  readonly ready: Promise<void>;

  constructor(url: string, logger?: Logger) {
    this.#logger = logger;
    this.#listener = new PgListener({
      url,
      channels: (schema) => [identityChannelFor(schema)],
      // The stamp first: a listener that reads users, tokens or sessions reads them anew.
      onNotification: (_channel, payload) => {
        this.#generation++;
        this.#tell(parseIdentityPayload(payload));
      },
      onListening: () => {
        this.#generation++;
        this.#live = true;
        if (this.#missed) this.#tell({ table: null });
        this.#missed = false;
      },
      // First, before the listener logs or retries: from here on nothing kept is used.
      onLost: () => {
        this.#live = false;
        this.#missed = true;
        this.#generation++;
      },
      logger,
      what: 'changes of users, tokens and sessions',
    });
    this.ready = this.#listener.ready;
  }

  /**
   * Calls `listener` for every write to users, tokens or sessions heard, whoever made it (this
   * server, another, the terminal, bare SQL), after the stamp has moved on; and once with an unknown
   * table when it listens again after a loss, since writes of that while were not heard.
   */
  onNotify(listener: (change: IdentityChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #tell(change: IdentityChange): void {
    for (const listener of this.#listeners) {
      // Called from the connection's events: one listener's error must not end the others' or the process.
      try {
        listener(change);
      } catch (error) {
        this.#logger?.error({ err: error }, 'a listener of changes of users, tokens and sessions failed');
      }
    }
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
    this.#listeners.clear();
    await this.#listener.close();
  }
}
