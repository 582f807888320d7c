import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { api } from './client.ts';

import type { DirectoryUser } from './wire.ts';

export type { DirectoryUser } from './wire.ts';

/** Whether a picker may offer a user: deactivated accounts are not (their names still show on records). */
export const offered = (user: DirectoryUser): boolean => user.active !== false;

/** The most ids one `GET /api/users?id=…` call takes. */
const MAX_IDS = 100;

/**
 * The query that names these users (`GET /api/users?id=…`, open to every signed-in user): ids are
 * asked for in one call, sorted so that the same set is one cached query; ids past the first
 * hundred stay unnamed. A list's page starts it as soon as the page arrives (see
 * `list/first-page.ts`), before the rows that show the names are drawn.
 */
export function usersByIdQuery(ids: readonly string[]) {
  const wanted = [...new Set(ids.map((id) => id.toLowerCase()))].sort().slice(0, MAX_IDS);
  return {
    queryKey: ['users', 'by-id', wanted],
    queryFn: async () => {
      const search = wanted.map((id) => `id=${encodeURIComponent(id)}`).join('&');
      return (await api<{ items: DirectoryUser[] }>('GET', `/api/users?${search}`)).body.items;
    },
    staleTime: 5 * 60_000,
    retry: false,
  } as const;
}

/** The users these ids name, by id: to show who a record or its history names. */
export function useUsersById(ids: readonly string[], enabled = true): Map<string, DirectoryUser> {
  const query = usersByIdQuery(ids);
  const found = useQuery({ ...query, enabled: enabled && query.queryKey[2].length > 0 });
  // The same map while the answer is the same: rows drawn from it are not drawn again.
  return useMemo(() => new Map((found.data ?? []).map((u) => [u.id, u])), [found.data]);
}
