import type { Model } from '@ninepoint/spec';
import { type QueryClient, useQuery } from '@tanstack/react-query';
import { type Answer, ApiError, api } from '../api/client.ts';
import { leaveOtherColumns } from './board.ts';
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
