import { readFileSync } from 'node:fs';
import { checkSpec } from '@ninepoint/spec';
import { type InfiniteData, QueryClient } from '@tanstack/react-query';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { storeChangedCards, storeRecord } from './api.ts';
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

describe('storing the cards someone else changed', () => {
  const model = checkSpec(readFileSync(new URL('../../../../examples/helpdesk.md', import.meta.url), 'utf8')).model;
  afterEach(() => vi.unstubAllGlobals());

  /** The server, as the page's `fetch` reaches it: a ticket's get answers from `tickets`, else 404. */
  const serve = (tickets: Record<string, ApiRecord>) => {
    const asked: string[] = [];
    vi.stubGlobal('fetch', async (path: string) => {
      asked.push(path);
      const found = tickets[path.split('/').at(-1) ?? ''];
      return found
        ? new Response(JSON.stringify(found), {
            status: 200,
            headers: { 'content-type': 'application/json', etag: '"2"' },
          })
        : new Response(JSON.stringify({ code: 'NOT_FOUND', status: 404, title: 'Not found' }), {
            status: 404,
            headers: { 'content-type': 'application/problem+json' },
          });
    });
    return asked;
  };

  it('leaves a card moved elsewhere in its new state’s column only, and takes a deleted or unreadable one off', async () => {
    const client = new QueryClient();
    client.setQueryData(['board', 'Ticket', 'waiting', []], column(ticket('a', 'waiting'), ticket('b', 'waiting')));
    client.setQueryData(
      ['board', 'Ticket', 'in_progress', []],
      column(ticket('c', 'in_progress'), ticket('d', 'in_progress')),
    );
    const asked = serve({ a: ticket('a', 'in_progress') });

    await storeChangedCards(client, model, [
      { entity: 'Ticket', id: 'a', kind: 'transition' },
      { entity: 'Ticket', id: 'a', kind: 'update' },
      { entity: 'Ticket', id: 'b', kind: 'update' },
      { entity: 'Ticket', id: 'c', kind: 'delete' },
      { entity: 'Ticket', id: 'e', kind: 'create' },
      { entity: 'Ticket', id: 'f', kind: 'update' },
    ]);

    // One get per changed card on the board: not for a create, a delete, or a record no column shows.
    expect(asked).toEqual(['/api/tickets/a', '/api/tickets/b']);
    expect(ids(client, 'waiting')).toEqual([]);
    expect(ids(client, 'in_progress')).toEqual(['d']);
    expect(client.getQueryData(['record', 'Ticket', 'a'])).toMatchObject({ body: { state: 'in_progress' } });
  });
});
