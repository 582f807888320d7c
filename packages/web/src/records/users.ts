import { useQuery } from '@tanstack/react-query';
import { ApiError, api } from '../api/client.ts';
import { useMe } from '../api/session.ts';
import { type DirectoryUser, offered, useUsersById } from '../api/users.ts';

/** The most users the directory answers in one call. */
const DIRECTORY_LIMIT = 100;

/**
 * The user directory (`GET /api/users`) as a map by id, to name the users records refer to. Users
 * who may not fill in a User field get FORBIDDEN: then only the signed-in user has a name.
 */
export function useUserDirectory() {
  const me = useMe();
  // Only those who may write something can search the directory (the server answers 403 otherwise).
  const writes = Object.values(me.data?.access ?? {}).some((a) => a.create || a.update !== 'none');
  const signedIn = Boolean(me.data?.user) && writes;
  return useQuery({
    queryKey: ['users', 'directory'],
    queryFn: async (): Promise<Map<string, DirectoryUser>> => {
      try {
        const { body } = await api<{ items: DirectoryUser[] }>('GET', `/api/users?limit=${DIRECTORY_LIMIT}`);
        return new Map(body.items.map((u) => [u.id, u]));
      } catch (error) {
        if (error instanceof ApiError && (error.status === 403 || error.status === 401)) return new Map();
        throw error;
      }
    },
    enabled: signedIn,
    staleTime: 5 * 60_000,
  });
}

/** Users whose name matches a search, for a User field's picker. */
export function useUserSearch(text: string, enabled: boolean) {
  return useQuery({
    queryKey: ['users', 'search', text],
    queryFn: async () =>
      (
        await api<{ items: DirectoryUser[] }>('GET', `/api/users?limit=20&q=${encodeURIComponent(text.slice(0, 200))}`)
      ).body.items.filter(offered),
    enabled,
    staleTime: 60_000,
    placeholderData: (previous) => previous,
  });
}

/** A short stand-in for a user the directory does not name: the end of their id. */
export function unnamedUser(id: string): string {
  return `User …${id.slice(-4)}`;
}

/** The user's name for an id: the signed-in user, else the directory, else a short stand-in. */
export function useUserName(id: string | null | undefined): { name: string; known: boolean; you: boolean } {
  const me = useMe();
  const self = me.data?.user;
  const byId = useUsersById(id ? [id] : [], Boolean(self) && id !== self?.id);
  if (!id) return { name: 'nobody', known: false, you: false };
  if (self && self.id === id) return { name: self.name, known: true, you: true };
  const user = byId.get(id);
  return user ? { name: user.name, known: true, you: false } : { name: unnamedUser(id), known: false, you: false };
}
