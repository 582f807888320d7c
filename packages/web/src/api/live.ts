import type { Model } from '@ninepoint/spec';
import { type Query, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { refreshRecords, storeChangedCards } from '../records/api.ts';
import { callFor } from '../records/calls.ts';

/** A committed change of a record another page (or user) made, as `GET /api/events` tells it. */
export interface LiveChange {
  entity: string;
  id: string;
  kind: 'create' | 'update' | 'transition' | 'delete';
  at: string;
}

const EVENTS_PATH = '/api/events';
/** Changes arriving this close together are fetched for once. */
const BATCH_MS = 150;
/** After the server refused the stream (signed out, too many open): try again this much later. */
const RETRY_MS = 30_000;

/**
 * Whether a cached query shows something the changes touched: the entity's lists, boards and
 * dashboard figures, the options and titles of pickers naming it, and each changed record with its history.
 */
export function touchedBy(model: Model, changes: readonly LiveChange[]): (query: Pick<Query, 'queryKey'>) => boolean {
  const entities = new Set(changes.map((c) => c.entity));
  const records = new Set(changes.map((c) => `${c.entity}\u0000${c.id}`));
  const lists = new Set<string>();
  for (const entity of entities) {
    const list = callFor(model, entity, 'list');
    if (list) lists.add(list.path);
  }
  return ({ queryKey }) => {
    const [kind, first, second] = queryKey as readonly unknown[];
    switch (kind) {
      case 'list':
        return lists.has(String(first));
      case 'board':
      case 'summary':
      case 'options':
      case 'reference-options':
      case 'owned':
        return entities.has(String(first));
      case 'record':
      case 'history':
      case 'reference-title':
        return records.has(`${String(first)}\u0000${String(second)}`);
      default:
        return false;
    }
  };
}

/**
 * Keeps what the app shows up to date while the user is signed in: one server-sent event stream
 * for the whole app, whose changes refetch the queries they touch (lists, boards, detail pages).
 * The browser reconnects a dropped stream on its own; after a reconnect everything is fetched
 * again, since changes may have been missed meanwhile. A stream the server refused (the session
 * ended) makes the app ask who is signed in, and is tried again later.
 */
export function useLiveUpdates(model: Model, userId: string | null): void {
  const client = useQueryClient();
  useEffect(() => {
    if (userId === null || typeof EventSource === 'undefined') return;
    let source: EventSource | null = null;
    let pending: LiveChange[] = [];
    let batch: ReturnType<typeof setTimeout> | null = null;
    let retry: ReturnType<typeof setTimeout> | null = null;
    let opened = false;
    const flush = () => {
      batch = null;
      const changes = pending;
      pending = [];
      // Moved cards first, each in its one column: then the columns are fetched again.
      void storeChangedCards(client, model, changes).finally(() =>
        client.invalidateQueries({ predicate: touchedBy(model, changes) }),
      );
    };
    const connect = () => {
      retry = null;
      const stream = new EventSource(EVENTS_PATH);
      source = stream;
      stream.addEventListener('open', () => {
        if (opened) void refreshRecords(client);
        opened = true;
      });
      stream.addEventListener('change', (event) => {
        const change = parseChange((event as MessageEvent<string>).data);
        if (change === null) return;
        pending.push(change);
        batch ??= setTimeout(flush, BATCH_MS);
      });
      // A notification for this user (point 7, the bell): its list is fetched again.
      stream.addEventListener('notification', () => {
        void client.invalidateQueries({ queryKey: ['notifications'] });
      });
      stream.addEventListener('error', () => {
        if (stream.readyState !== EventSource.CLOSED) return;
        void client.invalidateQueries({ queryKey: ['me'] });
        retry = setTimeout(connect, RETRY_MS);
      });
    };
    connect();
    return () => {
      source?.close();
      if (batch !== null) clearTimeout(batch);
      if (retry !== null) clearTimeout(retry);
    };
  }, [client, model, userId]);
}

function parseChange(data: string): LiveChange | null {
  try {
    const value = JSON.parse(data) as Partial<LiveChange>;
    return typeof value.entity === 'string' && typeof value.id === 'string' ? (value as LiveChange) : null;
  } catch {
    return null;
  }
}
