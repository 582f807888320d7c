import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client.ts';
import type { User } from './session.ts';

import type { Invitation } from './wire.ts';

export type { Invitation } from './wire.ts';

/** `POST /api/auth/sign-up`: mails a link to confirm the email; the same answer whether or not it has an account. */
export function useSignUp() {
  return useMutation({
    mutationFn: (input: { email: string; name: string; role?: string }) =>
      api<{ message: string }>('POST', '/api/auth/sign-up', { body: input }),
  });
}

/** `POST /api/auth/verify-email`: creates the account of the link's sign-up, with the password chosen there, and signs it in. */
export function useVerifyEmail() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { token: string; password: string }) =>
      api<{ user: User }>('POST', '/api/auth/verify-email', { body: input }),
    onSuccess: () => client.invalidateQueries(),
  });
}

/** `POST /api/invitations/accept`: creates the invitee's account with its roles and signs it in. */
export function useAcceptInvitation() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { token: string; name: string; password: string }) =>
      api<{ user: User }>('POST', '/api/invitations/accept', { body: input }),
    onSuccess: () => client.invalidateQueries(),
  });
}

/** What an invitation is, for the page its link opens; refused (INVITATION_INVALID) when it may not be accepted. */
export function useInvitationLookup(token: string) {
  return useQuery({
    queryKey: ['invitation-lookup', token],
    queryFn: async () =>
      (
        await api<{ email: string; roles: string[]; invitedBy: string; expiresAt: string }>(
          'POST',
          '/api/invitations/lookup',
          { body: { token } },
        )
      ).body,
    enabled: token !== '',
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/** The pending invitations the user sent (every one, for a user who manages people). */
export function useInvitations(enabled: boolean) {
  return useQuery({
    queryKey: ['invitations'],
    queryFn: async () => (await api<{ items: Invitation[] }>('GET', '/api/invitations')).body.items,
    enabled,
  });
}

/** `POST /api/invitations`: invites an email into roles. */
export function useInvite() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { email: string; roles: string[] }) =>
      api<Invitation>('POST', '/api/invitations', { body: input }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['invitations'] }),
  });
}

/** `DELETE /api/invitations/:id`: its link stops working. */
export function useRevokeInvitation() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<null>('DELETE', `/api/invitations/${encodeURIComponent(id)}`),
    onSuccess: () => client.invalidateQueries({ queryKey: ['invitations'] }),
  });
}
