import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from './client.ts';
import type { User } from './wire.ts';

/** A new secret to set up (`POST /api/auth/two-factor/enrol`): typed, as an address, and as a QR code. */
export interface Enrolment {
  secret: string;
  uri: string;
  /** A `data:image/svg+xml` URL. */
  qr: string;
}

/** What a sign-in answers: signed in, or waiting for its second step (202). */
export type SignInAnswer = { user: User } | { secondStep: 'two-factor'; expiresAt: string };

/** `POST /api/auth/two-factor/enrol`: a new secret, not on until a code confirms it. */
export function useEnrolTwoFactor() {
  return useMutation({
    mutationFn: async () => (await api<Enrolment>('POST', '/api/auth/two-factor/enrol')).body,
  });
}

/** `POST /api/auth/two-factor/confirm`: turns it on; answers the recovery codes, shown once. */
export function useConfirmTwoFactor() {
  return useMutation({
    mutationFn: async (code: string) =>
      (await api<{ recoveryCodes: string[] }>('POST', '/api/auth/two-factor/confirm', { body: { code } })).body
        .recoveryCodes,
    // Not `me` at once: the page still shows the recovery codes, and a user held to enrolment
    // would be let through before reading them. `finishEnrolment` refreshes it.
  });
}

/** Once the recovery codes are read: everything the user may now do follows from `me`. */
export function useFinishEnrolment() {
  const client = useQueryClient();
  return () => client.invalidateQueries();
}

/** `POST /api/auth/two-factor/disable` with a code, a recovery code or the password. */
export function useDisableTwoFactor() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (proof: { code: string } | { recoveryCode: string } | { password: string }) =>
      api<null>('POST', '/api/auth/two-factor/disable', { body: proof }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['me'] }),
  });
}

/** `POST /api/auth/sign-in/two-factor`: the second step of a sign-in, with a code or a recovery code. */
export function useSecondStep() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (proof: { code: string } | { recoveryCode: string }) =>
      api<{ user: User }>('POST', '/api/auth/sign-in/two-factor', { body: proof }),
    onSuccess: () => client.invalidateQueries(),
  });
}

/** `DELETE /api/users/:id/two-factor`: those who manage people reset a user's second factor. */
export function useResetTwoFactor() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<null>('DELETE', `/api/users/${encodeURIComponent(id)}/two-factor`),
    onSuccess: (_answer, id) =>
      Promise.all([
        client.invalidateQueries({ queryKey: ['accounts'] }),
        client.invalidateQueries({ queryKey: ['account-history', id] }),
      ]),
  });
}
