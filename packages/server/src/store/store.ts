import type { Model } from '@ninepoint/spec';
import type { SqlSchema } from '../compile/sql-schema.ts';

/**
 * Where an app's records live. One implementation per database (`sqlite/…`, later `postgres/…`);
 * the HTTP layer talks only to this interface.
 */
export interface Store {
  readonly dialect: 'sqlite' | 'postgres';
  /** Where the data is, for messages and logs: a file path, never a password. */
  readonly location: string;
  /**
   * Creates what the schema needs and is missing, in one transaction, and records the model
   * it was applied for. Existing tables are left as they are: changing them is a migration.
   */
  applySchema(schema: SqlSchema, model: Model): Promise<AppliedSchema>;
  /** Throws when the database does not answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface AppliedSchema {
  /** Tables this start created. */
  created: string[];
  /** Columns the schema has and an existing table lacks: the model changed since that table was made. */
  missingColumns: { table: string; columns: string[] }[];
  /** True when this model differs from the last one recorded, and was recorded. */
  recorded: boolean;
}

/** SQLite's durability choice: see `store/sqlite/sqlite-store.ts`. */
export type Synchronous = 'normal' | 'full';

/** Thrown for a database Ninepoint cannot use (yet): the message says what to do instead. */
export class UnsupportedDatabaseError extends Error {
  override name = 'UnsupportedDatabaseError';
}
