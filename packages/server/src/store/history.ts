import type { ApiRecord, Value } from '../compile/record-types.ts';
import type { HistoryEntry } from './store.ts';

/** The values `changes` replace, as `record` holds them: a history entry's `before`. */
export function valuesBefore(changes: Record<string, Value>, record: ApiRecord): Record<string, Value> {
  return Object.fromEntries(Object.keys(changes).map((name) => [name, record[name] ?? null]));
}

/**
 * A record's fields, state and creator as its history leaves them: each entry's changes applied in
 * order, a transition's state included. After a delete, the values it had when deleted.
 */
export function replayHistory(
  entries: readonly Pick<HistoryEntry, 'by' | 'action' | 'to' | 'changes' | 'before'>[],
): ApiRecord {
  const record: ApiRecord = {};
  for (const entry of entries) {
    if (entry.action === 'create') record.created_by = entry.by;
    if (entry.action === 'delete') Object.assign(record, entry.before);
    Object.assign(record, entry.changes);
    if (entry.to !== null) record.state = entry.to;
  }
  return record;
}
