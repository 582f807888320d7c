import type { FastifyRequest } from 'fastify';
import { ProblemError } from '../compile/problems.ts';
import { UUID } from '../store/uuidv7.ts';
import type { AuthStore } from './auth-store.ts';

/**
 * The `:id` of a call on another user's account (reset their second factor, list or remove their
 * passkeys): the caller must be signed in with a role that manages people, and the user must exist.
 */
export async function managedUserId(
  request: FastifyRequest,
  auth: AuthStore,
  manages: (roles: readonly string[]) => boolean,
): Promise<string> {
  const { actor } = request;
  if (actor.user === null) throw new ProblemError('NOT_SIGNED_IN');
  if (!manages(actor.roles)) {
    throw new ProblemError('FORBIDDEN', {}, { detail: 'Only those whose roles manage people may do this.' });
  }
  const id = (request.params as { id: string }).id.toLowerCase();
  if (!UUID.test(id) || !(await auth.users.get(id))) throw new ProblemError('NOT_FOUND', { entity: 'user', id });
  return id;
}

/**
 * A short-lived ceremony cookie (a waiting second step, a passkey challenge): strict, since the
 * ceremony is a call of the app's own pages, never a navigation from elsewhere.
 */
export function strictCookieOptions(request: FastifyRequest) {
  return { path: '/', httpOnly: true, sameSite: 'strict', secure: request.protocol === 'https' } as const;
}
