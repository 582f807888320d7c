import type { HiddenFields } from '../compile/entity-logic.ts';
import { type Actor, AUTHOR, type EntityPermissions } from '../compile/permissions.ts';
import type { ApiRecord } from '../compile/record-types.ts';
import type { HistoryEntry } from '../store/store.ts';

/**
 * What an actor does not see of one entity's records (point 6's `read except (speaker)`), per
 * record, since only the roles whose read grant covers a record (their `own`, `via` and `while`)
 * show its fields. Null when no role lists fields: the common case, which then costs nothing per
 * record.
 *
 * Every answer that carries record values passes through it: get, list, history, and the record
 * a create, an update or a transition answers with; refusals leave hidden fields out of their
 * messages (`HiddenFields` in the write checks).
 */
export function hiddenFieldsOf(permissions: EntityPermissions, actor: Actor): HiddenFields | null {
  if (!permissions.listsFields) return null;
  return (record, load) => permissions.hiddenOn(actor, record, load);
}

/** The record without the fields the actor does not see (`hidden` from `HiddenFields`). */
export function visibleRecord(record: ApiRecord, hidden: ReadonlySet<string>): ApiRecord {
  return without(record, hidden);
}

/**
 * A history entry whose `changes` and `before` hold only fields the actor sees (of `record`), and
 * without `by` when the actor does not see who made the record (`read except (created_by)`): who
 * changed it would name the author as surely.
 */
export function visibleEntry(entry: HistoryEntry, unseen: ReadonlySet<string>): HistoryEntry {
  if (unseen.size === 0) return entry;
  const visible = { ...entry, changes: without(entry.changes, unseen), before: without(entry.before, unseen) };
  if (!unseen.has(AUTHOR)) return visible;
  const { by: _by, ...anonymous } = visible;
  return anonymous as HistoryEntry;
}

function without<T extends Record<string, unknown>>(values: T, unseen: ReadonlySet<string>): T {
  if (unseen.size === 0) return values;
  const kept: Record<string, unknown> = {};
  for (const key of Object.keys(values)) if (!unseen.has(key)) kept[key] = values[key];
  return kept as T;
}
