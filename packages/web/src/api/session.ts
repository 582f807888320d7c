import type { Model } from '@ninepoint/spec';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client.ts';

import type { SignInAnswer } from './two-factor.ts';
import type { Me } from './wire.ts';

export type { Access, EntityAccess, Me, PeopleAccess, User } from './wire.ts';

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
      api<SignInAnswer>('POST', '/api/auth/sign-in', { body: input }),
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
