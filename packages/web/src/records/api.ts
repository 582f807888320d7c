import type { Model } from '@ninepoint/spec';
import { type QueryClient, useQuery } from '@tanstack/react-query';
import { type Answer, ApiError, api } from '../api/client.ts';
import { leaveColumns, leaveOtherColumns, onBoard } from './board.ts';
import { type ApiRecord, callFor, type HistoryEntry, pathOf } from './calls.ts';

/** The query key of one record (its answer with the ETag), shared by every screen that shows it. */
export function recordKey(entity: string, id: string) {
  return ['record', entity, id] as const;
}

/** The record, with its ETag; disabled when the id is missing or the spec serves no get call. */
export function useRecord(model: Model, entity: string, id: string | null | undefined) {
  const call = callFor(model, entity, 'get');
  return useQuery({
    queryKey: recordKey(entity, id ?? ''),
    queryFn: () => api<ApiRecord>('GET', pathOf(call as NonNullable<typeof call>, id ?? '')),
    enabled: Boolean(call && id),
  });
}

/** A record's history, oldest first; disabled when the spec serves no history call. */
export function useHistory(model: Model, entity: string, id: string | null | undefined) {
  const call = callFor(model, entity, 'history');
  return useQuery({
    queryKey: ['history', entity, id ?? ''],
    queryFn: async () =>
      (await api<{ items: HistoryEntry[] }>('GET', pathOf(call as NonNullable<typeof call>, id ?? ''))).body.items,
    enabled: Boolean(call && id),
  });
}

/**
 * After a write: every record, list, board and history may have changed (a transition moves a card,
 * a create adds a row), so all of them are fetched again; the spec and who is signed in stay.
 */
export function refreshRecords(client: QueryClient): Promise<void> {
  return client.invalidateQueries({ predicate: (q) => q.queryKey[0] !== 'spec' && q.queryKey[0] !== 'me' });
}

/**
 * Puts a record the server just answered with into the cache, so its screen shows it at once, and
 * out of the board columns of the states it has left (`leaveOtherColumns`).
 */
export function storeRecord(client: QueryClient, entity: string, answer: Answer<ApiRecord>): void {
  client.setQueryData(recordKey(entity, answer.body.id), answer);
  leaveOtherColumns(client, entity, answer.body);
}

/** At most this many changed cards are fetched on their own at once; past it the columns alone are. */
const CARDS_FETCHED = 20;

/**
 * Before the boards are fetched again after changes someone else made: each changed record a
 * cached board shows is fetched on its own and left in the column of its state only
 * (`storeRecord`), or taken off the board when it was deleted or may no longer be read. The
 * columns are fetched one by one, and a card moved elsewhere would otherwise show in two
 * columns, or in none, for the moment between their answers.
 */
export async function storeChangedCards(
  client: QueryClient,
  model: Model,
  changes: readonly { entity: string; id: string; kind: string }[],
): Promise<void> {
  const fetched = new Map<string, Promise<void>>();
  for (const { entity, id, kind } of changes) {
    const key = `${entity}\u0000${id}`;
    if (kind === 'create' || fetched.has(key) || !onBoard(client, entity, id)) continue;
    if (kind === 'delete') {
      leaveColumns(client, entity, id, null);
      continue;
    }
    const call = callFor(model, entity, 'get');
    if (!call) continue;
    if (fetched.size === CARDS_FETCHED) break;
    const gone = (error: unknown) => {
      if (error instanceof ApiError && (error.status === 403 || error.status === 404)) {
        leaveColumns(client, entity, id, null);
      }
    };
    fetched.set(
      key,
      api<ApiRecord>('GET', pathOf(call, id)).then((answer) => storeRecord(client, entity, answer), gone),
    );
  }
  await Promise.all(fetched.values());
}

/** The problem of a failed call, or a stand-in for an error that is not the API's. */
export function problemOf(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  return new ApiError({
    status: 0,
    code: 'UNKNOWN',
    title: 'Something went wrong',
    detail: error instanceof Error ? error.message : String(error),
  });
}
