import { SqliteStore, type SqliteStoreOptions } from './sqlite/sqlite-store.ts';
import { type Store, UnsupportedDatabaseError } from './store.ts';

export interface StoreOptions {
  /** The SQLite file (created with its folder when missing), or `:memory:`. */
  dbPath?: string;
  /** A PostgreSQL URL; when set it wins over `dbPath`. */
  databaseUrl?: string;
  sqlite?: SqliteStoreOptions;
}

/** Where `ninepoint serve` keeps its data when no path is given. */
export const DEFAULT_DB_PATH = 'data/ninepoint.db';

/** Opens the database the options name. */
export async function openStore(options: StoreOptions): Promise<Store> {
  if (options.databaseUrl) {
    throw new UnsupportedDatabaseError(
      'PostgreSQL support is not built yet; this version serves SQLite only. Unset DATABASE_URL to use SQLite.',
    );
  }
  return SqliteStore.open(options.dbPath ?? DEFAULT_DB_PATH, options.sqlite);
}
