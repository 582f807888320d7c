import { IDENTITY_FUNCTION } from '@ninepoint/server';
import pg from 'pg';
import { describeUrl, messageOf } from './read-postgres.ts';
import { SourceError } from './source-schema.ts';

/**
 * The PostgreSQL database `init --import-data --database <url>` fills. Like the new SQLite file it
 * fills otherwise, it must be new: the schema its connections use (`current_schema()`, the URL's
 * `search_path` or public) holds no table yet. So every table there after the copy is one init
 * made, and a refused row leaves the schema as it was by dropping them all (`emptyAgain`).
 */
export class NewPostgres {
  readonly url: string;
  /** The schema the app's tables go to. */
  readonly schema: string;

  private constructor(url: string, schema: string) {
    this.url = url;
    this.schema = schema;
  }

  /** What the messages call it: `host:port/db` and the schema. */
  get where(): string {
    return `${describeUrl(this.url)} (schema ${this.schema})`;
  }

  /** Connects and checks that the schema exists and holds no table; a `SourceError` says why not. */
  static async check(url: string): Promise<NewPostgres> {
    const schema = await withClient(url, async (client) => {
      const current = (await client.query<{ schema: string | null }>('SELECT current_schema() AS "schema"')).rows[0]
        ?.schema;
      if (!current) {
        throw new SourceError(
          `PostgreSQL at ${describeUrl(url)} has no schema on its search_path to create the app's tables in`,
        );
      }
      const tables = await tablesOf(client, current, ['r', 'p', 'v', 'm', 'f']);
      if (tables.length > 0) {
        const shown = tables.slice(0, 3).join(', ') + (tables.length > 3 ? ', …' : '');
        throw new SourceError(
          `the schema ${current} of PostgreSQL at ${describeUrl(url)} holds ${tables.length === 1 ? 'a table' : `${tables.length} tables`} (${shown}); ` +
            'init --import-data fills a new database: give an empty one, or a schema of its own (?options=-c%20search_path%3D<schema>)',
        );
      }
      return current;
    });
    return new NewPostgres(url, schema);
  }

  /**
   * Drops every table of the schema (all made by init, as it held none before), and the function
   * the server made beside them (the identity tables' trigger function, `IDENTITY_FUNCTION`): the
   * copy is undone and the schema left as it was.
   */
  async emptyAgain(): Promise<void> {
    await withClient(this.url, async (client) => {
      const tables = await tablesOf(client, this.schema, ['r', 'p']);
      if (tables.length > 0) {
        const quoted = tables.map((t) => `${quote(this.schema)}.${quote(t)}`).join(', ');
        await client.query(`DROP TABLE IF EXISTS ${quoted} CASCADE`);
      }
      await client.query(`DROP FUNCTION IF EXISTS ${quote(this.schema)}.${quote(IDENTITY_FUNCTION)}() CASCADE`);
    });
  }
}

/** The schema's relations of these kinds (`pg_class.relkind`: r table, p partitioned, v view…), partitions aside. */
async function tablesOf(client: pg.Client, schema: string, kinds: readonly string[]): Promise<string[]> {
  const rows = await client.query<{ name: string }>(
    `SELECT c.relname AS "name" FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relkind = ANY($2::"char"[]) AND NOT c.relispartition ORDER BY c.relname`,
    [schema, kinds],
  );
  return rows.rows.map((r) => r.name);
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => {});
    throw new SourceError(`cannot connect to PostgreSQL at ${describeUrl(url)}: ${messageOf(error)}`);
  }
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => {});
  }
}

function quote(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
