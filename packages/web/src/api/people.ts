import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client.ts';

/** An account as those who manage people see it (`GET /api/users`, `PATCH /api/users/:id`). */
export interface Account {
  id: string;
  email: string;
  name: string;
  roles: string[];
  createdAt: string;
  active: boolean;
  deactivatedAt: string | null;
}

/** A page of the list of accounts, with how many match in all. */
export interface AccountPage {
  items: Account[];
  total: number;
  limit: number;
  offset: number;
}

/** One entry of an account's history (`GET /api/users/:id/history`). */
export interface AccountEvent {
  id: string;
  at: string;
  kind: 'created' | 'roles-changed' | 'deactivated' | 'reactivated' | 'password-reset';
  /** Who did it; null at the server's terminal. */
  by: { id: string; name: string } | null;
  how?: 'terminal' | 'sign-up' | 'invitation' | 'email';
  roles?: string[];
  from?: string[];
  to?: string[];
}

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
