import type { FastifyRequest } from 'fastify';
import { SECURE_SESSION_COOKIE, SESSION_COOKIE } from './people-schemas.ts';
import { looksLikeSecret, secretHash } from './secrets.ts';

/** A session or an API token, as stored: the SHA-256 of its secret. */
export interface Credential {
  kind: 'session' | 'token';
  hash: string;
}

/** The session or token a request was signed in with, as stored (hashed). */
export function requestCredential(request: FastifyRequest): Credential | null {
  const { actor } = request;
  if (actor.via === 'token') {
    const secret = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
    return secret ? { kind: 'token', hash: secretHash(secret) } : null;
  }
  const secret = request.cookies[request.protocol === 'https' ? SECURE_SESSION_COOKIE : SESSION_COOKIE];
  if (secret === undefined || !looksLikeSecret('session', secret)) return null;
  return { kind: 'session', hash: secretHash(secret) };
}
