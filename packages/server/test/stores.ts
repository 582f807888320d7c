import { compileSqlSchema } from '../src/compile/sql-schema.ts';
import { openStore } from '../src/store/open-store.ts';
import type { ListQuery, Store } from '../src/store/store.ts';
import { TEST_DATABASES, type TestDatabase } from './databases.ts';
import { modelOf } from './helpers.ts';

/** An open store on a fresh database, and what removes both. */
export interface TestStore<S extends Store = Store> {
  store: S;
  close(): Promise<void>;
}

/** A store on a fresh database of `db`, with the schema of the spec `source` applied. */
export async function openSpecStore(db: TestDatabase, source: string): Promise<TestStore> {
  const fresh = await db.fresh();
  const store = await openStore(fresh.options);
  const close = async () => {
    await store.close();
    await fresh.remove();
  };
  try {
    const model = modelOf(source);
    await store.applySchema(compileSqlSchema(model), model);
  } catch (error) {
    await close();
    throw error;
  }
  return { store, close };
}

/** A list query: the first 50 records oldest first, with whatever `over` changes. */
export function listQuery(over: Partial<ListQuery> = {}): ListQuery {
  return {
    sort: { column: 'created_at', descending: false },
    filters: [],
    search: null,
    owner: null,
    after: null,
    limit: 50,
    count: false,
    ...over,
  };
}

/**
 * A function opening `openSpecStore`s on the database named `name`, as the store class it opens
 * (`is`), each closed by the test's `cleanups`.
 */
export function specStoreOpener<S extends Store>(
  name: TestDatabase['name'],
  is: (store: Store) => store is S,
  cleanups: (() => Promise<void>)[],
): (source: string) => Promise<S> {
  return async (source) => {
    const db = TEST_DATABASES.find((d) => d.name === name);
    if (!db) throw new Error(`${name} is not in TEST_DATABASES`);
    const { store, close } = await openSpecStore(db, source);
    cleanups.push(close);
    if (!is(store)) throw new Error(`not a ${name} store`);
    return store;
  };
}
