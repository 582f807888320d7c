import { useQuery } from '@tanstack/react-query';
import { api } from './client.ts';

import type { DirectoryUser } from './wire.ts';

export type { DirectoryUser } from './wire.ts';

/** Whether a picker may offer a user: deactivated accounts are not (their names still show on records). */
export const offered = (user: DirectoryUser): boolean => user.active !== false;

/** The most ids one `GET /api/users?id=…` call takes. */
const MAX_IDS = 100;

/**
 * The users these ids name (`GET /api/users?id=…`, open to every signed-in user), by id: to show
 * who a record or its history names. Ids are asked for in one call, sorted so that the same set
 * is one cached query; ids past the first hundred stay unnamed.
 */
export function useUsersById(ids: readonly string[], enabled = true): Map<string, DirectoryUser> {
  const wanted = [...new Set(ids.map((id) => id.toLowerCase()))].sort().slice(0, MAX_IDS);
  const query = useQuery({
    queryKey: ['users', 'by-id', wanted],
    queryFn: async () => {
      const search = wanted.map((id) => `id=${encodeURIComponent(id)}`).join('&');
      return (await api<{ items: DirectoryUser[] }>('GET', `/api/users?${search}`)).body.items;
    },
    enabled: enabled && wanted.length > 0,
    staleTime: 5 * 60_000,
    retry: false,
  });
  return new Map((query.data ?? []).map((u) => [u.id, u]));
}
