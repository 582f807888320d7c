import { type InfiniteData, QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { storeRecord } from './api.ts';
import type { ApiRecord, Page } from './calls.ts';

const ticket = (id: string, state: string): ApiRecord => ({
  id,
  state,
  created_at: '',
  updated_at: '',
  created_by: null,
});
const column = (...items: ApiRecord[]): InfiniteData<Page> => ({
  pages: [{ items, next: null, total: items.length }],
  pageParams: [''],
});
const ids = (client: QueryClient, state: string) =>
  client
    .getQueryData<InfiniteData<Page>>(['board', 'Ticket', state, []])
    ?.pages.flatMap((p) => p.items.map((r) => r.id));

describe('storing a record the server answered with', () => {
  it('takes a moved card out of the column it left, before any column is fetched again', () => {
    const client = new QueryClient();
    client.setQueryData(['board', 'Ticket', 'waiting', []], column(ticket('a', 'waiting'), ticket('b', 'waiting')));
    client.setQueryData(['board', 'Ticket', 'in_progress', []], column(ticket('c', 'in_progress')));
    client.setQueryData(['board', 'Order', 'waiting', []], column(ticket('a', 'waiting')));

    storeRecord(client, 'Ticket', { body: ticket('a', 'in_progress'), etag: null });

    expect(ids(client, 'waiting')).toEqual(['b']);
    expect(client.getQueryData<InfiniteData<Page>>(['board', 'Ticket', 'waiting', []])?.pages[0]?.total).toBe(1);
    // The column it entered is fetched again by the refresh that follows; another entity's is untouched.
    expect(ids(client, 'in_progress')).toEqual(['c']);
    expect(
      client.getQueryData<InfiniteData<Page>>(['board', 'Order', 'waiting', []])?.pages[0]?.items.map((r) => r.id),
    ).toEqual(['a']);
    expect(client.getQueryData(['record', 'Ticket', 'a'])).toMatchObject({ body: { state: 'in_progress' } });
  });
});
