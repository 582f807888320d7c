import type { RowLoader } from '../compile/row-access.ts';
import { type ApiRecord, ReadPending, type Store } from './store.ts';

/** More reads than this means the decision never settles: a bug, not a long chain. */
const MAX_READS = 64;

/**
 * Runs a synchronous decision that reads records (an `own via` chain), outside a write: each read
 * it asks for and has not got yet is a `ReadPending`; it is made from the store and the decision
 * runs again. Inside a write the store's `TxReader` answers the same reads in its transaction.
 */
export async function settle<T>(decide: (load: RowLoader) => T, store: Store): Promise<T> {
  const made = new Map<string, ApiRecord | undefined>();
  const keyOf = (entity: string, id: string) => `${entity}\u0000${id}`;
  for (;;) {
    try {
      return decide((entity, id) => {
        const key = keyOf(entity, id);
        if (!made.has(key)) throw new ReadPending({ kind: 'get', entity, id });
        return made.get(key);
      });
    } catch (error) {
      if (!(error instanceof ReadPending) || error.read.kind !== 'get') throw error;
      if (made.size >= MAX_READS) throw new Error(`A decision asked for more than ${MAX_READS} reads.`);
      const { entity, id } = error.read;
      made.set(keyOf(entity, id), (await store.records(entity).get(id))?.record);
    }
  }
}
