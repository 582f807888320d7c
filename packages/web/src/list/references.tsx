import { type Model, USER_ENTITY } from '@ninepoint/spec';
import { useQueries } from '@tanstack/react-query';
import { useCallback } from 'react';
import { api } from '../api/client.ts';
import type { Me } from '../api/session.ts';
import { type DirectoryUser, useUsersById } from '../api/users.ts';
import { callOf, callUrl, entityOf, refusal, routeTo, screenFor } from '../app/screens.ts';
import { type ApiRecord, recordTitle, shortId } from '../format.ts';
import { SmallLink, SmallText } from './plain-cells.tsx';

/**
 * References shown readably: a record's title (fetched once per record and cached) linking to
 * its detail screen when the user may open one, a user's name from the user directory. When a
 * title cannot be had (no get call, no access, or more records than is sensible to fetch) the
 * reference shows a short id, still linked.
 */

/** At most this many referenced records are fetched for one page: one call each. */
const MAX_TITLE_FETCHES = 60;

/** The users a page names, by id (`GET /api/users?id=…`), and the signed-in user. */
export function useUserDirectory(me: Me, ids: readonly string[]): Map<string, DirectoryUser> {
  const users = useUsersById(ids, me.user !== null);
  if (me.user) users.set(me.user.id, me.user);
  return users;
}

/** What a user reference shows: `You` for oneself, a name from the directory, else a short id. */
export function userLabel(id: string, users: Map<string, DirectoryUser>, me: Me): string {
  if (me.user?.id === id) return `${me.user.name} (you)`;
  return users.get(id)?.name ?? `User ${shortId(id)}`;
}

export interface ReferenceKey {
  entity: string;
  id: string;
}

/** Titles of the records some references name, by `entity:id`; a missing one is not (yet) known. */
export function useRecordTitles(model: Model, me: Me, references: readonly ReferenceKey[]): Map<string, string> {
  const unique = new Map<string, ReferenceKey>();
  for (const ref of references) {
    if (ref.entity === USER_ENTITY || unique.size >= MAX_TITLE_FETCHES) continue;
    const access = me.access[ref.entity];
    if (!access || access.read === 'none' || !callOf(model, ref.entity, 'get')) continue;
    unique.set(`${ref.entity}:${ref.id}`, ref);
  }
  const keys = [...unique.keys()];
  const keyText = keys.join(' ');
  // The same map while the titles are the same (useQueries runs `combine` again only when it or
  // the results change): rows drawn from it are not drawn again.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the keys are their text
  const combine = useCallback(
    (results: { data: string | null | undefined }[]) => {
      const titles = new Map<string, string>();
      results.forEach((result, i) => {
        const key = keys[i];
        if (key !== undefined && typeof result.data === 'string') titles.set(key, result.data);
      });
      return titles;
    },
    [keyText],
  );
  return useQueries({
    queries: [...unique.values()].map((ref) => ({
      queryKey: ['reference-title', ref.entity, ref.id],
      queryFn: async () => {
        const call = callOf(model, ref.entity, 'get');
        const entity = entityOf(model, ref.entity);
        if (!call || !entity) return null;
        const record = (await api<ApiRecord>('GET', callUrl(call, ref.id))).body;
        return recordTitle(entity, record);
      },
      staleTime: 60_000,
      retry: false,
    })),
    combine,
  });
}

/** Where a reference leads: the referenced record's detail screen, when the user may open it. */
export function referenceHref(model: Model, me: Me, entity: string, id: string): string | null {
  if (entity === USER_ENTITY) return null;
  const detail = screenFor(model, entity, 'detail', true);
  if (!detail || refusal(detail, me) !== null) return null;
  return routeTo(detail, { [detail.params[0] ?? 'id']: id });
}

/** One reference in a table cell or a card. */
export function ReferenceValue({
  model,
  me,
  entity,
  id,
  titles,
  users,
}: {
  model: Model;
  me: Me;
  entity: string;
  id: string;
  titles: Map<string, string>;
  users: Map<string, DirectoryUser>;
}) {
  if (entity === USER_ENTITY) {
    const user = users.get(id);
    return <SmallText title={user?.email ?? id}>{userLabel(id, users, me)}</SmallText>;
  }
  const text = titles.get(`${entity}:${id}`) ?? `${entity} ${shortId(id)}`;
  const href = referenceHref(model, me, entity, id);
  // Plain elements (plain-cells.tsx): a list holds one of these per reference cell.
  return href ? <SmallLink to={href}>{text}</SmallLink> : <SmallText>{text}</SmallText>;
}
