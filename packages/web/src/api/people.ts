import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client.ts';

import type { Account, AccountEvent, AccountPage } from './wire.ts';

export type { Account, AccountEvent, AccountPage } from './wire.ts';

/** How many accounts the Users screen shows a page. */
export const ACCOUNTS_PER_PAGE = 25;

/** Every account whose name or email contains `q`, a page at a time: for those who manage people. */
export function useAccounts(q: string, offset: number) {
  return useQuery({
    queryKey: ['accounts', q, offset],
    queryFn: async () => {
      const search = new URLSearchParams({ limit: String(ACCOUNTS_PER_PAGE), offset: String(offset) });
      if (q !== '') search.set('q', q);
      return (await api<AccountPage>('GET', `/api/users?${search}`)).body;
    },
    placeholderData: keepPreviousData,
  });
}

/** `PATCH /api/users/:id`: new roles, or deactivated / reactivated. */
export function useChangeAccount() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ...change }: { id: string; roles?: string[]; active?: boolean }) =>
      api<Account>('PATCH', `/api/users/${encodeURIComponent(id)}`, { body: change }),
    onSuccess: (_answer, { id }) =>
      Promise.all([
        client.invalidateQueries({ queryKey: ['accounts'] }),
        client.invalidateQueries({ queryKey: ['account-history', id] }),
        // Pickers and names: a deactivated user is no longer offered.
        client.invalidateQueries({ queryKey: ['users'] }),
        client.invalidateQueries({ queryKey: ['reference-options'] }),
        // The manager's own roles may have changed.
        client.invalidateQueries({ queryKey: ['me'] }),
      ]),
  });
}

/** An account's history, oldest first. */
export function useAccountHistory(id: string | null) {
  return useQuery({
    queryKey: ['account-history', id],
    queryFn: async () =>
      (await api<{ items: AccountEvent[] }>('GET', `/api/users/${encodeURIComponent(id ?? '')}/history`)).body.items,
    enabled: id !== null,
  });
}
