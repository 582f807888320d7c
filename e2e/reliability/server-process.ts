import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import {
  type AccountsDatabase,
  addUser,
  createApiToken,
  HISTORY_TABLE,
  openAccounts,
  replayHistory,
  type Store,
} from '@ninepoint/server';
import type { Model } from '@ninepoint/spec';
import type { FreshDatabase } from '../../packages/server/test/databases.ts';
import { NODE_FLAGS } from '../../scripts/node-flags.mjs';

/**
 * `ninepoint serve` as a child process of the test, for the reliability suites: started on a
 * SQLite file or a PostgreSQL DATABASE_URL, killed (SIGKILL) or stopped (SIGTERM), restarted on
 * the same database, its RSS read from /proc. Users and API tokens are added in the test process
 * as `ninepoint users add` and `ninepoint tokens create` do, through the server package's
 * `openAccounts`, before the first start (the database is migrated to the spec then, as serve
 * would). After a run, `inspectDatabase` opens the same database and checks it is whole.
 *
 * Exports are used by other suites of e2e/reliability: change them compatibly.
 *
 * @example
 * const database = servedDatabase(await TEST_DATABASES[0].fresh());
 * const [desk] = await addApiUsers(model, database, [{ email: 'desk@example.test', roles: ['staff'] }]);
 * const server = await startServe({ specPath, database });
 * const answer = await call(server.url, desk.token, 'POST', '/api/books', { … });
 * await server.kill();
 */

const BIN = new URL('../../packages/cli/bin/ninepoint.js', import.meta.url).pathname;

/** The database a served app keeps its data in: a SQLite file, or a PostgreSQL URL (schema in its search_path). */
export type ServedDatabase = { kind: 'sqlite'; dbPath: string } | { kind: 'postgres'; databaseUrl: string };

/** The served database of a fresh test database (`TEST_DATABASES[i].fresh()`). */
export function servedDatabase(fresh: FreshDatabase): ServedDatabase {
  if (fresh.env.DATABASE_URL) return { kind: 'postgres', databaseUrl: fresh.env.DATABASE_URL };
  if (fresh.env.dbPath) return { kind: 'sqlite', dbPath: fresh.env.dbPath };
  throw new Error('The fresh database names neither a DATABASE_URL nor a SQLite file.');
}

/** How an exited process ended. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface StartOptions {
  specPath: string;
  database: ServedDatabase;
  /** More environment for the server (LOG_LEVEL is `warn` unless given). */
  env?: Record<string, string>;
  /**
   * How long to wait for the "serving … at http://…" line (default 120 s: a start takes a second or
   * two, and up to a minute or two on a slow shared machine with both lanes of `npm test` running).
   */
  startTimeoutMs?: number;
}

/** Every server this module started and that has not exited: killed if the test process exits first. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** A running `ninepoint serve` child process. */
export class ServeProcess {
  readonly url: string;
  readonly pid: number;
  readonly child: ChildProcess;
  /** Resolves when the process has exited, however it ended. */
  readonly exited: Promise<Exit>;
  readonly #output: { text: string };

  constructor(url: string, child: ChildProcess, exited: Promise<Exit>, output: { text: string }) {
    this.url = url;
    this.child = child;
    this.exited = exited;
    this.#output = output;
    if (child.pid === undefined) throw new Error('The server process has no pid.');
    this.pid = child.pid;
  }

  /** Everything the server wrote to stdout and stderr so far. */
  get output(): string {
    return this.#output.text;
  }

  /**
   * The server's log lines at level error or above (pino's 50 and 60): a 500 is logged so, which
   * an answer-by-answer check might miss when the answer never arrived.
   */
  errorLogs(): string[] {
    return this.output.split('\n').filter((line) => /"level":(5|6)0\b/.test(line));
  }

  /** Kills the process with SIGKILL (no chance to finish anything) and waits until it is gone. */
  async kill(): Promise<Exit> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    return this.exited;
  }

  /** Asks the process to close (SIGTERM); kills it when it has not exited within `graceMs`. */
  async stop(graceMs = 5000): Promise<Exit> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return this.exited;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The process's resident set size in KiB (VmRSS of /proc/<pid>/status). */
  rssKb(): number {
    return readRssKb(this.pid);
  }
}

/**
 * Starts `ninepoint serve <spec> --port 0` on the database in a process of its own, and answers
 * once it prints the URL it listens on (127.0.0.1). Rejects, with the output, when it exits or
 * says nothing within the timeout.
 */
export function startServe(options: StartOptions): Promise<ServeProcess> {
  const { database } = options;
  // Pretty: the start-up line is read as a person reads it (piped stdout would log JSON).
  const args = [BIN, 'serve', options.specPath, '--port', '0', '--host', '127.0.0.1', '--log-format', 'pretty'];
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', ...options.env };
  if (database.kind === 'sqlite') {
    args.push('--db', database.dbPath);
    delete env.DATABASE_URL;
  } else {
    env.DATABASE_URL = database.databaseUrl;
  }
  // With Node's flags as the Docker image and `npm start` give them: soak judges the RSS.
  const child = spawn(process.execPath, [...NODE_FLAGS, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
  running.add(child);
  const output = { text: '' };
  const exited = new Promise<Exit>((resolve) => {
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    });
  });
  return new Promise((resolve, reject) => {
    const timeoutMs = options.startTimeoutMs ?? 120_000;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not start within ${timeoutMs} ms:\n${output.text}`));
    }, timeoutMs);
    const read = (chunk: Buffer) => {
      output.text += chunk.toString();
      const match = /serving "[^"]*" at (http:\/\/127\.0\.0\.1:\d+)/.exec(output.text);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(new ServeProcess(match[1], child, exited, output));
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    void exited.then((exit) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${exit.signal ?? exit.code}) before listening:\n${output.text}`));
    });
  });
}

/** A process's resident set size in KiB, from the VmRSS line of /proc/<pid>/status (Linux). */
export function readRssKb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  if (!match?.[1]) throw new Error(`No VmRSS in /proc/${pid}/status`);
  return Number(match[1]);
}

/** A user of the served app, with an API token to call as them. */
export interface ApiUser {
  id: string;
  email: string;
  roles: readonly string[];
  /** Sent as `Authorization: Bearer <token>`. */
  token: string;
}

/**
 * Adds users with these roles and an API token each, as `ninepoint users add` and `ninepoint
 * tokens create` would: in this process, on the served database, migrated to the spec first.
 * Call it before the first `startServe` on a fresh database (a running server sees them too).
 */
export async function addApiUsers(
  model: Model,
  database: ServedDatabase,
  users: readonly { email: string; roles: readonly string[]; name?: string }[],
): Promise<ApiUser[]> {
  return withAccounts(model, database, async (db) => {
    const added: ApiUser[] = [];
    for (const [i, user] of users.entries()) {
      const password = `reliability password ${i} ${user.email}`;
      const account = await addUser(db.auth, { ...user, password }, db.roles);
      const { secret } = await createApiToken(db.auth, user.email, 'reliability');
      added.push({ id: account.id, email: account.email, roles: user.roles, token: secret });
    }
    return added;
  });
}

/** Opens the served database as `ninepoint users` does (migrated to the spec), runs `fn`, closes it. */
export async function withAccounts<T>(
  model: Model,
  database: ServedDatabase,
  fn: (db: AccountsDatabase) => Promise<T>,
): Promise<T> {
  const db = await openAccounts(
    model,
    database.kind === 'sqlite' ? { dbPath: database.dbPath } : { databaseUrl: database.databaseUrl },
  );
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

/** An answer of the served app. */
export interface Answer {
  status: number;
  /** The parsed JSON body; null when empty or not JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: answers are JSON, read by suites that know their shape.
  body: any;
  text: string;
  /** The ETag header, or null. */
  etag: string | null;
}

/**
 * One HTTP call to the served app, as the user with this token (null: signed out). Rejects when
 * no answer arrives (connection refused or reset: the server is gone).
 */
export async function call(
  url: string,
  token: string | null,
  method: string,
  path: string,
  body?: unknown,
  options: { ifMatch?: string; signal?: AbortSignal } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (options.ifMatch !== undefined) headers['if-match'] = options.ifMatch;
  const response = await fetch(`${url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: options.signal ?? null,
  });
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    parsed = null;
  }
  return { status: response.status, body: parsed, text, etag: response.headers.get('etag') };
}

/** A record as stored, with its version (its ETag is `"<version>"`). */
export interface StoredRow {
  record: Record<string, unknown>;
  version: number;
}

/** What `inspectDatabase` read: every record of every entity, and what is wrong with the database. */
export interface Inspection {
  /** Per entity name, its records by id. */
  records: Map<string, Map<string, StoredRow>>;
  /** Each a sentence; empty when the database is whole. */
  problems: string[];
}

/**
 * Opens the served database (no server may be writing to a SQLite file meanwhile) and checks that
 * it is whole:
 * - SQLite: `PRAGMA integrity_check` answers ok and `PRAGMA foreign_key_check` nothing;
 * - both: every record's history starts with its create, has one entry per version, and replays to
 *   the record as stored (fields, state and creator); every record whose history ends in a delete is
 *   gone, and every history without a record ends in a delete (nothing half-written on either side);
 * - both: no two records share a value of a unique field.
 * Answers the records read, so a suite can compare them with what the server answered.
 */
export async function inspectDatabase(model: Model, database: ServedDatabase): Promise<Inspection> {
  return withAccounts(model, database, async (db) => {
    const problems: string[] = [];
    const { store } = db;
    if (store.dialect === 'sqlite') {
      const integrity = await store.sql.all<{ integrity_check: string }>('PRAGMA integrity_check');
      const verdict = integrity.map((r) => r.integrity_check).join('; ');
      if (verdict !== 'ok') problems.push(`PRAGMA integrity_check: ${verdict}`);
      const broken = await store.sql.all<Record<string, unknown>>('PRAGMA foreign_key_check');
      if (broken.length > 0) problems.push(`PRAGMA foreign_key_check: ${JSON.stringify(broken)}`);
    }
    const records = new Map<string, Map<string, StoredRow>>();
    for (const entity of model.entities) {
      const rows = await allRecords(store, entity.name);
      records.set(entity.name, rows);
      problems.push(...(await checkHistory(store, entity.name, rows)));
      for (const field of entity.fields.filter((f) => f.unique)) {
        const seen = new Map<unknown, string>();
        for (const [id, { record }] of rows) {
          const value = record[field.name];
          if (value === null || value === undefined) continue;
          const other = seen.get(value);
          if (other) problems.push(`${entity.name} ${id} and ${other} share the unique ${field.name} ${value}`);
          seen.set(value, id);
        }
      }
    }
    return { records, problems };
  });
}

/** Every record of an entity, by id, with its version, read page by page. */
async function allRecords(store: Store, entity: string): Promise<Map<string, StoredRow>> {
  const records = store.records(entity);
  const rows = new Map<string, StoredRow>();
  let after: { value: string | number | null; id: string } | null = null;
  do {
    const page = await records.list({
      sort: { column: 'id', descending: false },
      filters: [],
      search: null,
      owner: null,
      after,
      limit: 500,
      count: false,
    });
    for (const record of page.records) {
      const stored = await records.get(String(record.id));
      if (stored) rows.set(String(record.id), { record: stored.record, version: stored.version });
    }
    after = page.next;
  } while (after !== null);
  return rows;
}

async function checkHistory(store: Store, entity: string, rows: Map<string, StoredRow>): Promise<string[]> {
  const problems: string[] = [];
  const records = store.records(entity);
  const ids = await store.sql.all<{ record_id: string }>(
    `SELECT DISTINCT record_id FROM ${HISTORY_TABLE} WHERE entity = ?`,
    [entity],
  );
  const withHistory = new Set(ids.map((r) => r.record_id));
  for (const id of rows.keys()) {
    if (!withHistory.has(id)) problems.push(`${entity} ${id} is stored but has no history`);
  }
  for (const id of withHistory) {
    const history = await records.history(id);
    const row = rows.get(id);
    const last = history.at(-1);
    if (history[0]?.action !== 'create') problems.push(`${entity} ${id}: its history does not start with a create`);
    if (!row) {
      if (last?.action !== 'delete')
        problems.push(`${entity} ${id} has a history (${last?.action} last) but no record`);
      continue;
    }
    if (last?.action === 'delete') {
      problems.push(`${entity} ${id} was deleted in its history but is still stored`);
      continue;
    }
    if (history.length !== row.version) {
      problems.push(`${entity} ${id} is at version ${row.version} with ${history.length} history entries`);
    }
    const replayed = replayHistory(history);
    for (const [name, value] of Object.entries(replayed)) {
      if (row.record[name] !== value) {
        problems.push(
          `${entity} ${id}: its history replays ${name} = ${JSON.stringify(value)}, ` +
            `the record holds ${JSON.stringify(row.record[name])}`,
        );
      }
    }
  }
  return problems;
}
