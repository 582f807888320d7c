import type { CompiledApp } from '../compile/compiled-app.ts';
import type { Actor } from '../compile/permissions.ts';
import { coversEveryRecord } from '../compile/row-access.ts';
import { type SettledReads, settle } from '../store/settle-reads.ts';
import type { Store } from '../store/store.ts';

/** Records read per query while looking for the users a caller may see named. */
const PAGE = 200;

/**
 * Of these user ids, those the actor may see named (`GET /api/users?id=…` for someone who may not
 * pick users): themselves, and the users a record they may read names in a field they see: its
 * `created_by` (unless hidden from them: `read except (created_by)`) or a field referring to
 * `User` (unless hidden). So an id learned elsewhere (an old link, a guess) names nobody, and a
 * blind reviewer's directory cannot name a speaker that no talk they read shows them.
 *
 * Each entity the actor may read is asked, once per such column, for the records naming the ids
 * still unnamed, within the actor's own rows (SQL), and each record found is checked for the
 * column being hidden from the actor on it.
 */
export function namedUsers(
  compiled: CompiledApp,
  store: Store,
): (actor: Actor, ids: readonly string[]) => Promise<Set<string>> {
  return async (actor, ids) => {
    const named = new Set<string>();
    if (actor.userId === null) return named;
    if (ids.includes(actor.userId)) named.add(actor.userId);
    for (const entity of compiled.model.entities) {
      const permissions = compiled.permissions.get(entity.name);
      if (!permissions) continue;
      const grants = permissions.grants(actor, 'read');
      if (grants.length === 0) continue;
      const owner = coversEveryRecord(grants) ? null : { grants, userId: actor.userId };
      const unsearchable = permissions.unsearchable(actor);
      for (const column of permissions.ownerColumns) {
        let wanted = ids.filter((id) => !named.has(id));
        if (wanted.length === 0) return named;
        const reads: SettledReads = new Map();
        let after = null;
        do {
          const page = await store.records(entity.name).list({
            sort: { column: 'id', descending: false },
            filters: [{ op: 'among', column, values: wanted }],
            search: null,
            owner,
            after,
            limit: PAGE,
            count: false,
          });
          for (const record of page.records) {
            const user = String(record[column]);
            if (named.has(user)) continue;
            // A column some of the actor's records hide: asked of this record.
            const hidden = unsearchable.has(column)
              ? await settle((load) => permissions.hiddenOn(actor, record, load), store, reads)
              : null;
            if (!hidden?.has(column)) named.add(user);
          }
          wanted = wanted.filter((id) => !named.has(id));
          after = page.next;
        } while (after !== null && wanted.length > 0);
      }
    }
    return named;
  };
}
