import type { FastifyRequest } from 'fastify';
import type { Credential } from './credentials.ts';

/**
 * What people's calls tell other features once done: called by the calls themselves, so that the
 * other features need no hook on every answer to find the few that matter.
 */
export interface PeopleEvents {
  /** A browser signed out (`POST /api/auth/sign-out`) with this session or token. */
  signedOut(credential: Credential): void;
  /** A user's roles or status changed (`PATCH /api/users/:id`); the id in lower case. */
  accountChanged(userId: string): void;
}

/**
 * Tells another feature of something done (`PeopleEvents`): its failure is logged, and never
 * turns the answer of what was done into an error.
 */
export function tell(request: FastifyRequest, told: () => void): void {
  try {
    told();
  } catch (error) {
    request.log.error({ err: error }, 'a listener of people’s events failed');
  }
}
