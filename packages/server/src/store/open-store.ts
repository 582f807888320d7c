import { PgStore, type PgStoreOptions } from './postgres/pg-store.ts';
import { SqliteStore, type SqliteStoreOptions } from './sqlite/sqlite-store.ts';
import { type Store, UnsupportedDatabaseError } from './store.ts';

export interface StoreOptions {
  /** The SQLite file (created with its folder when missing), or `:memory:`. */
  dbPath?: string;
  /** A PostgreSQL URL; when set it wins over `dbPath`. */
  databaseUrl?: string;
  sqlite?: SqliteStoreOptions;
  postgres?: PgStoreOptions;
}

/** Where `ninepoint serve` keeps its data when no path is given. */
export const DEFAULT_DB_PATH = 'data/ninepoint.db';

/** Opens the database the options name. */
export async function openStore(options: StoreOptions): Promise<Store> {
  if (options.databaseUrl) {
    if (!/^postgres(ql)?:\/\//.test(options.databaseUrl)) {
      throw new UnsupportedDatabaseError(
        'DATABASE_URL must be a PostgreSQL URL (postgres://user@host:5432/database); unset it to use SQLite (--db).',
      );
    }
    return PgStore.open(options.databaseUrl, options.postgres);
  }
  return SqliteStore.open(options.dbPath ?? DEFAULT_DB_PATH, options.sqlite);
}
