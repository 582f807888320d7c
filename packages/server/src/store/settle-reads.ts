import { type ApiRecord, ReadPending } from '../compile/record-types.ts';
import type { RowLoader } from '../compile/row-access.ts';
import type { Store } from './store.ts';

/**
 * The reads `settle` has made, by entity and id: decisions about one request share them, so a
 * list's records that go through the same doctor read it once.
 */
export type SettledReads = Map<string, ApiRecord | undefined>;

/** More reads than this means the decision never settles: a bug, not a long chain. */
const MAX_READS = 64;

/**
 * Runs a synchronous decision that reads records (an `own via` chain), outside a write: each read
 * it asks for and has not got yet is a `ReadPending`; it is made from the store and the decision
 * runs again. Inside a write the store's `TxReader` answers the same reads in its transaction.
 */
export async function settle<T>(
  decide: (load: RowLoader) => T,
  store: Store,
  made: SettledReads = new Map(),
): Promise<T> {
  const keyOf = (entity: string, id: string) => `${entity}\u0000${id}`;
  let asked = 0;
  for (;;) {
    try {
      return decide((entity, id) => {
        const key = keyOf(entity, id);
        if (!made.has(key)) throw new ReadPending({ kind: 'get', entity, id });
        return made.get(key);
      });
    } catch (error) {
      if (!(error instanceof ReadPending) || error.read.kind !== 'get') throw error;
      if (++asked > MAX_READS) throw new Error(`A decision asked for more than ${MAX_READS} reads.`);
      const { entity, id } = error.read;
      made.set(keyOf(entity, id), (await store.records(entity).get(id))?.record);
    }
  }
}
