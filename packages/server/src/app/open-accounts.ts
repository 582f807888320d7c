import type { Model } from '@ninepoint/spec';
import { assignableRoles } from '../compile/permissions.ts';
import { AuthStore } from '../people/index.ts';
import { openStore, type StoreOptions } from '../store/open-store.ts';
import type { AppliedSchema, Store } from '../store/store.ts';
import { compileApp } from './compile-app.ts';

/** A spec's database opened for managing its users and API tokens. */
export interface AccountsDatabase {
  readonly store: Store;
  readonly auth: AuthStore;
  /** The roles a user may be given: the spec's, but `anyone`. */
  readonly roles: readonly string[];
  /** The migration that brought the database to the spec (often nothing to do). */
  readonly applied: AppliedSchema;
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
      close: () => store.close(),
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
