import type { Model } from '@ninepoint/spec';
import { assignableRoles } from '../compile/permissions.ts';
import { channelFor, encodePayload } from '../live/index.ts';
import { AuthStore } from '../people/index.ts';
import { openStore, type StoreOptions } from '../store/open-store.ts';
import type { AppliedSchema, Store } from '../store/store.ts';
import { compileApp } from './compile-app.ts';

/** A notification servers' `PgFeed`s read as an account change (`parsePayload`), from no server of theirs. */
async function announceAccountChange(store: Store, userId: string): Promise<void> {
  if (store.dialect !== 'postgres') return;
  const [row] = await store.sql.all<{ schema: string }>('SELECT current_schema() AS schema');
  const payload = encodePayload({ entity: '', id: userId, kind: 'account', at: new Date().toISOString() }, 'terminal');
  await store.sql.all('SELECT pg_notify(?, ?)', [channelFor(row?.schema ?? 'public'), payload]);
}

/** A spec's database opened for managing its users and API tokens. */
export interface AccountsDatabase {
  readonly store: Store;
  readonly auth: AuthStore;
  /** The roles a user may be given: the spec's, but `anyone`. */
  readonly roles: readonly string[];
  /** The migration that brought the database to the spec (often nothing to do). */
  readonly applied: AppliedSchema;
  /**
   * Tells the app's running servers that a user's account changed (deactivated, roles changed,
   * removed, a token revoked), so their live update streams end or take up the new roles at once. PostgreSQL: a
   * notification on the servers' change feed; SQLite's server sees the file change by itself.
   */
  accountChanged(userId: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens the database of a spec for `ninepoint users` and `ninepoint tokens`, migrated to the spec
 * exactly as `createServer` does at start-up, so that a user can be added before the first
 * `serve`. It never applies a step that could hide or invalidate data: such a migration throws
 * `MigrationRefusedError` (changing nothing), to be run with `ninepoint migrate` first.
 *
 * @example
 * const db = await openAccounts(model, { dbPath: 'ninepoint.db' });
 * try { console.log(await db.auth.users.all()); } finally { await db.close(); }
 */
export async function openAccounts(model: Model, options: StoreOptions): Promise<AccountsDatabase> {
  const compiled = compileApp(model);
  const store = await openStore(options);
  try {
    const applied = await store.applySchema(compiled.sqlSchema, compiled.model, { allowDestructive: false });
    const auth = new AuthStore(store.sql);
    await auth.setUp();
    return {
      store,
      auth,
      roles: assignableRoles(compiled.model),
      applied,
      accountChanged: (userId) => announceAccountChange(store, userId),
      close: () => store.close(),
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
