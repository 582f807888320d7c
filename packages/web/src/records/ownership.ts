import { ANYONE, type Model, type RecordOperation, USER_ENTITY } from '@ninepoint/spec';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client.ts';
import type { Me } from '../api/session.ts';
import { accessTo, owns } from './access.ts';
import { recordKey } from './api.ts';
import { type ApiRecord, callFor, entityNamed, pathOf } from './calls.ts';

/** Whether a record is the user's own, per operation (`update own via doctor.account`). */
export type Owned = Readonly<Record<RecordOperation, boolean>>;

const OPERATIONS: readonly RecordOperation[] = ['read', 'update', 'delete'];

/**
 * The chains of fields that make a record the user's own for an operation (`doctor.account`),
 * from the `own` grants of their roles (and `anyone`) in point 6; a grant without `via` owns
 * through `created_by` and the fields referring to `User`.
 */
export function ownerChains(model: Model, me: Me, entity: string, operation: RecordOperation): string[][] {
  const roles = new Set([ANYONE, ...(me.user?.roles ?? [])]);
  const defaults = [
    ['created_by'],
    ...(entityNamed(model, entity)?.fields ?? [])
      .filter((f) => f.type.kind === 'reference' && f.type.entity === USER_ENTITY)
      .map((f) => [f.name]),
  ];
  return model.permissions
    .filter((p) => p.entity === entity && roles.has(p.role) && p[operation] === 'own')
    .flatMap((p) => p.via[operation] ?? defaults);
}

/** A record a chain passes through; undefined when there is none; throws when it cannot be told. */
export type ChainLoader = (entity: string, id: string) => Promise<Readonly<Record<string, unknown>> | undefined>;

/**
 * Whether one of the chains leads from the record to the user, as the server follows them: each
 * step but the last reads the referenced record. A step the loader cannot read (a record the user
 * may not see, a field hidden from them, no connection) counts as leading to the user: the server
 * decides, and the user is shown the button rather than denied one they have.
 */
export async function reachesUser(
  model: Model,
  entity: string,
  record: Readonly<Record<string, unknown>>,
  chains: readonly (readonly string[])[],
  userId: string,
  load: ChainLoader,
): Promise<boolean> {
  for (const chain of chains) {
    let current: Readonly<Record<string, unknown>> | undefined = record;
    let at = entity;
    let reached: boolean | null = null;
    for (const [i, name] of chain.entries()) {
      if (!current || !Object.hasOwn(current, name)) {
        reached = current ? null : false;
        break;
      }
      const value = current[name];
      if (i === chain.length - 1) {
        reached = typeof value === 'string' && value.toLowerCase() === userId.toLowerCase();
        break;
      }
      const field = entityNamed(model, at)?.fields.find((f) => f.name === name);
      if (typeof value !== 'string' || field?.type.kind !== 'reference') {
        reached = value === null ? false : null;
        break;
      }
      at = field.type.entity;
      try {
        current = await load(at, value);
      } catch {
        reached = null;
        break;
      }
    }
    if (reached !== false) return true;
  }
  return false;
}

/**
 * Whether the record is the user's own for each operation. Ownership through references (`own
 * via doctor.account`) reads the records on the way (cached with the screens'): until they are
 * in, nothing is owned, so no button shows that the server would refuse.
 */
export function useOwned(model: Model, me: Me, entity: string, record: ApiRecord): Owned {
  const client = useQueryClient();
  const via = Boolean(accessTo(me, entity).ownedVia) && me.user !== null;
  const userId = me.user?.id ?? '';
  const resolved = useQuery({
    queryKey: ['owned', entity, record.id, record.updated_at, userId],
    enabled: via,
    staleTime: 30_000,
    // A changed record (a transition taken) keeps its buttons while its owners are read again.
    placeholderData: (previous, query) => (query?.queryKey[2] === record.id ? previous : undefined),
    queryFn: async (): Promise<Owned> => {
      const load: ChainLoader = async (target, id) => {
        const call = callFor(model, target, 'get');
        if (!call) throw new Error(`${target} has no get call.`);
        const answer = await client.fetchQuery({
          queryKey: recordKey(target, id),
          queryFn: () => api<ApiRecord>('GET', pathOf(call, id)),
          staleTime: 30_000,
          retry: false,
        });
        return answer.body;
      };
      const owned: Partial<Record<RecordOperation, boolean>> = {};
      for (const operation of OPERATIONS) {
        const chains = ownerChains(model, me, entity, operation);
        owned[operation] = await reachesUser(model, entity, record, chains, userId, load);
      }
      return owned as Owned;
    },
  });
  if (!via) {
    const mine = owns(model, entity, record, me);
    return { read: mine, update: mine, delete: mine };
  }
  return resolved.data ?? { read: false, update: false, delete: false };
}
