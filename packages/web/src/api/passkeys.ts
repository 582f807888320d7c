import {
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  startAuthentication,
  startRegistration,
} from '@simplewebauthn/browser';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from './client.ts';
import type { User } from './wire.ts';

/** A passkey as listed (`GET /api/auth/passkeys`). */
export interface Passkey {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
}

/** Whether this browser can make and use passkeys at all. */
export const passkeysSupported = () => typeof window !== 'undefined' && 'PublicKeyCredential' in window;

/** `GET /api/auth/passkeys`: the signed-in user's passkeys. */
export function usePasskeys() {
  return useQuery({
    queryKey: ['passkeys'],
    queryFn: async () => (await api<{ items: Passkey[] }>('GET', '/api/auth/passkeys')).body.items,
  });
}

/** Registers a passkey: the server's options, the browser's authenticator, then the server keeps it. */
export function useAddPasskey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (name: string) => {
      const options = await api<PublicKeyCredentialCreationOptionsJSON>('POST', '/api/auth/passkeys/register/options');
      const credential = await startRegistration({ optionsJSON: options.body });
      return (await api<Passkey>('POST', '/api/auth/passkeys/register', { body: { credential, name } })).body;
    },
    onSuccess: () => client.invalidateQueries({ queryKey: ['passkeys'] }),
  });
}

/** `DELETE /api/auth/passkeys/:id`. */
export function useRemovePasskey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<null>('DELETE', `/api/auth/passkeys/${encodeURIComponent(id)}`),
    onSuccess: () => client.invalidateQueries({ queryKey: ['passkeys'] }),
  });
}

/** Signs in with a passkey this browser's authenticator holds: no email, no password, no code. */
export function usePasskeySignIn() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      const options = await api<PublicKeyCredentialRequestOptionsJSON>('POST', '/api/auth/passkeys/sign-in/options');
      const credential = await startAuthentication({ optionsJSON: options.body });
      return (await api<{ user: User }>('POST', '/api/auth/passkeys/sign-in', { body: { credential } })).body;
    },
    onSuccess: () => client.invalidateQueries(),
  });
}

/** `GET /api/users/:id/passkeys`: a user's passkeys, for those who manage people. */
export function useUserPasskeys(userId: string | null) {
  return useQuery({
    queryKey: ['user-passkeys', userId],
    enabled: userId !== null,
    queryFn: async () =>
      (await api<{ items: Passkey[] }>('GET', `/api/users/${encodeURIComponent(userId ?? '')}/passkeys`)).body.items,
  });
}

/** `DELETE /api/users/:id/passkeys/:passkeyId`: a lost device; the account's history records it. */
export function useRemoveUserPasskey(userId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (passkeyId: string) =>
      api<null>('DELETE', `/api/users/${encodeURIComponent(userId)}/passkeys/${encodeURIComponent(passkeyId)}`),
    onSuccess: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: ['user-passkeys', userId] }),
        client.invalidateQueries({ queryKey: ['account-history', userId] }),
      ]),
  });
}
