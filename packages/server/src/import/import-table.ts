import type { CompiledApp } from '../compile/compiled-app.ts';
import { ProblemError } from '../compile/problems.ts';
import type { AuthStore, RequestActor, UserAccount } from '../people/index.ts';
import { recordCreators } from '../records/index.ts';
import type { Store } from '../store/store.ts';
import { type TableKind, tableRows } from './read-table.ts';
import { ReferenceResolver } from './references.ts';
import { type ImportProgress, type ImportReport, runImport } from './run-import.ts';

export interface ImportTableOptions {
  compiled: CompiledApp;
  store: Store;
  auth: AuthStore;
  /** The user the import acts as: their roles decide what may be created and set, and history names them. */
  user: UserAccount;
  /** The entity, by name. */
  entity: string;
  /** The file's bytes. */
  file: AsyncIterable<Uint8Array>;
  /** CSV or XLSX; null decides by the first bytes. */
  kind: TableKind | null;
  dryRun: boolean;
  progress?: (progress: ImportProgress) => void;
  now?: () => number;
}

/**
 * An import outside HTTP (`ninepoint import`): the same path as `POST /api/<collection>/import`,
 * acting as `user`. Throws a `TableError` for a file that cannot be read, and a `ProblemError` for a
 * user who may not create these records or an entity the spec's calls do not create.
 */
export async function importTable(options: ImportTableOptions): Promise<ImportReport> {
  const { compiled, store, user } = options;
  const now = options.now ?? Date.now;
  const creator = recordCreators(compiled, store, () => {}, now).get(options.entity);
  if (!creator) {
    throw new ProblemError('UNKNOWN_CALL', {}, { detail: `${options.entity} has no create call to import through` });
  }
  const actor: RequestActor = { userId: user.id, roles: user.roles, user, via: null };
  const userByEmail = async (email: string) => (await options.auth.users.byEmail(email))?.id;
  return runImport({
    creator,
    catalogue: compiled.catalogue,
    resolver: new ReferenceResolver(compiled, store, actor, userByEmail),
    actor,
    rows: tableRows(options.file, options.kind),
    dryRun: options.dryRun,
    now,
    ...(options.progress ? { progress: options.progress } : {}),
  });
}
