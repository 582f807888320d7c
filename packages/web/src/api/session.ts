import type { Model } from '@ninepoint/spec';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client.ts';

export type Access = 'none' | 'own' | 'all';

/** What point 6 lets the signed-in user (or a visitor) do with one entity, as the server enforces it. */
export interface EntityAccess {
  create: boolean;
  read: Access;
  update: Access;
  delete: Access;
  transitions: Record<string, Access>;
  /** The fields the user may set on create and change on update (point 6's `create (title)`); null for all. */
  createFields: string[] | null;
  updateFields: string[] | null;
  /** The states a record must be in to be updated or deleted (point 6's `while`); null for any. */
  updateStates?: string[] | null;
  deleteStates?: string[] | null;
  /** Whether `own` records are reached through references (`own via doctor.account`): the server decides. */
  ownedVia?: boolean;
  /** The fields the user sees of every record they may read (point 6's `read except (speaker)`); null for all. */
  readFields: string[] | null;
}

export interface User {
  id: string;
  email: string;
  name: string;
  roles: string[];
}

/** What the signed-in user may do with people's accounts (point 6's `people` column). */
export interface PeopleAccess {
  mayInvite: boolean;
  inviteRoles: string[];
  manage: boolean;
}

export interface Me {
  user: User | null;
  access: Record<string, EntityAccess>;
  /** Null when signed out. */
  people: PeopleAccess | null;
  /** The roles people may sign up to themselves, with the email domains each accepts (none: any). */
  signUp: { role: string; domains: string[] }[];
  /** Sign-in with an OpenID Connect provider, when the server has one: its button's words and where it starts. */
  singleSignOn: { name: string; start: string } | null;
}

/** The checked model of the spec being served (`GET /api/spec`); it never changes while the app runs. */
export function useModel() {
  return useQuery({
    queryKey: ['spec'],
    queryFn: async () => (await api<Model>('GET', '/api/spec')).body,
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/** Who is signed in and what they may do. */
export function useMe() {
  return useQuery({ queryKey: ['me'], queryFn: async () => (await api<Me>('GET', '/api/auth/me')).body });
}

export function useSignIn() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { email: string; password: string }) =>
      api<{ user: User }>('POST', '/api/auth/sign-in', { body: input }),
    // Everything the app shows depends on who is signed in.
    onSuccess: () => client.invalidateQueries(),
  });
}

export function useSignOut() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api<null>('POST', '/api/auth/sign-out'),
    onSuccess: () => {
      client.removeQueries({ predicate: (q) => q.queryKey[0] !== 'spec' });
      return client.invalidateQueries({ queryKey: ['me'] });
    },
  });
}

/** `POST /api/auth/password-reset`: mails a link to choose a new password, if an account has the email. */
export function useRequestPasswordReset() {
  return useMutation({
    mutationFn: (email: string) => api<{ message: string }>('POST', '/api/auth/password-reset', { body: { email } }),
  });
}

/** `POST /api/auth/password-reset/confirm`: sets the password of the link's account; answers its email. */
export function useConfirmPasswordReset() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { token: string; password: string }) =>
      api<{ email: string }>('POST', '/api/auth/password-reset/confirm', { body: input }),
    // Every session of the account has ended, this browser's too if it had one.
    onSuccess: () => client.invalidateQueries({ queryKey: ['me'] }),
  });
}
