import type { HiddenFields } from '../compile/entity-logic.ts';
import type { Actor, EntityPermissions } from '../compile/permissions.ts';
import type { ApiRecord, HistoryEntry } from '../store/store.ts';

/**
 * What an actor does not see of one entity's records (point 6's `read except (speaker)`), per
 * record, since a `read own` role may show more of the actor's own records than their other
 * roles show of the rest. Null when they see every field of every record: the common case, which
 * then costs nothing per record.
 *
 * Every answer that carries record values passes through it: get, list, history, and the record
 * a create, an update or a transition answers with; refusals leave hidden fields out of their
 * messages (`HiddenFields` in the write checks).
 */
export function hiddenFieldsOf(
  permissions: EntityPermissions,
  actor: Actor,
  owns: (record: ApiRecord) => boolean,
): HiddenFields | null {
  const others = permissions.hidden(actor, false);
  const own = permissions.hidden(actor, true);
  if (others.size === 0 && own.size === 0) return null;
  if (others === own || (own.size === others.size && [...own].every((f) => others.has(f)))) return () => others;
  return (record) => (owns(record) ? own : others);
}

/** The record without the fields the actor does not see. */
export function visibleRecord(record: ApiRecord, hidden: HiddenFields | null): ApiRecord {
  if (hidden === null) return record;
  return without(record, hidden(record));
}

/** A history entry whose `changes` and `before` hold only fields the actor sees (of `record`). */
export function visibleEntry(entry: HistoryEntry, unseen: ReadonlySet<string>): HistoryEntry {
  if (unseen.size === 0) return entry;
  return { ...entry, changes: without(entry.changes, unseen), before: without(entry.before, unseen) };
}

function without<T extends Record<string, unknown>>(values: T, unseen: ReadonlySet<string>): T {
  if (unseen.size === 0) return values;
  const kept: Record<string, unknown> = {};
  for (const key of Object.keys(values)) if (!unseen.has(key)) kept[key] = values[key];
  return kept as T;
}
