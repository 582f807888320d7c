import type { SpecLine } from '@ninepoint/spec';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Actor } from '../compile/permissions.ts';
import { type ProblemCatalogue, ProblemError } from '../compile/problems.ts';
import { UUID } from '../store/uuidv7.ts';
import { type AccountChange, AccountError, changeAccount } from './accounts.ts';
import type { AuthStore } from './auth-store.ts';
import { tell } from './people-events.ts';
import { ACCOUNT_CHANGE_SCHEMA } from './people-schemas.ts';
import type { AccountHistoryEntry, ManagedAccount } from './users-store.ts';

/** The calls of user administration, for those whose roles may manage people. */
export const USER_ADMIN_ROUTES = {
  /** `PATCH { roles?, active? }`: changes an account's roles, deactivates or reactivates it. */
  account: '/api/users/:id',
  /** `GET`: the account's history, oldest first. */
  history: '/api/users/:id/history',
} as const;

/** How many accounts one page of the managers' list holds at most, and by default. */
export const ACCOUNT_PAGE = { max: 100, default: 50 } as const;

export interface UserAdminOptions {
  auth: AuthStore;
  catalogue: ProblemCatalogue;
  /** The roles a user may be given (the spec's, but `anyone`). */
  knownRoles: readonly string[];
  /** Whether these roles let their holder manage people (point 6: `people` is `manage`). */
  manages: (roles: readonly string[]) => boolean;
  /** The spec line of these roles' row in point 6, which a refusal names (see `roleLines`). */
  roleLine?: (roles: readonly string[]) => SpecLine | null;
  now: () => number;
  /** Told of each account changed (`PeopleEvents`). */
  accountChanged?: (userId: string) => void;
}

/** An entry of an account's history as the API answers it: who did it, by id and name. */
export type AccountHistoryAnswer = Omit<AccountHistoryEntry, 'by'> & { by: { id: string; name: string } | null };

/**
 * User administration for those whose roles `manage` people (anyone else: FORBIDDEN):
 *
 * - `PATCH /api/users/:id` with `{roles?, active?}` changes roles (the spec's only) and
 *   deactivates or reactivates the account; a manager may not deactivate themselves
 *   (CANNOT_DEACTIVATE_SELF) nor leave no active account that may manage people (LAST_MANAGER).
 *   Changes are made one at a time on this server, so two managers demoting each other at once
 *   cannot both pass the last-manager check.
 * - `GET /api/users/:id/history` answers the account's history.
 *
 * The managers' list is `GET /api/users` (`listAccountsFor`), which answers pickers to others.
 */
export function registerUserAdmin(app: FastifyInstance, options: UserAdminOptions): void {
  const { auth, manages, now } = options;
  let queue: Promise<unknown> = Promise.resolve();
  const oneAtATime = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work, work);
    queue = run.catch(() => {});
    return run;
  };

  const manager = (request: FastifyRequest): Actor => {
    const actor = request.actor;
    if (actor.user === null) throw new ProblemError('NOT_SIGNED_IN');
    if (!manages(actor.roles)) {
      throw new ProblemError(
        'FORBIDDEN',
        {},
        { detail: 'Only those whose roles manage people may do this.', spec: options.roleLine?.(actor.roles) },
      );
    }
    return actor;
  };

  const userId = (request: FastifyRequest): string => {
    const id = (request.params as { id: string }).id.toLowerCase();
    if (!UUID.test(id)) throw new ProblemError('NOT_FOUND', { entity: 'user', id });
    return id;
  };

  app.patch(USER_ADMIN_ROUTES.account, { schema: { body: ACCOUNT_CHANGE_SCHEMA } }, async (request, reply) => {
    const actor = manager(request);
    const id = userId(request);
    const change = request.body as AccountChange;
    let account: Awaited<ReturnType<typeof changeAccount>>;
    try {
      account = await oneAtATime(() =>
        changeAccount(auth, id, change, { by: actor.userId, knownRoles: options.knownRoles, manages, now: now() }),
      );
    } catch (error) {
      throw accountProblem(error, id, options);
    }
    request.log.info({ user: id, change }, 'account changed');
    tell(request, () => options.accountChanged?.(id));
    return reply.send(account);
  });

  app.get(USER_ADMIN_ROUTES.history, async (request, reply) => {
    manager(request);
    const id = userId(request);
    if (!(await auth.users.get(id))) throw new ProblemError('NOT_FOUND', { entity: 'user', id });
    return reply.send({ items: await historyAnswer(auth, await auth.users.history(id)) });
  });
}

/**
 * The answer of `GET /api/users` to someone who manages people: a page of every account, active
 * or not, with email, roles, status and whether two-factor sign-in is on; `q` searches names and emails.
 */
export async function listAccountsFor(
  auth: AuthStore,
  query: Record<string, string | string[] | undefined>,
): Promise<{ items: (ManagedAccount & { twoFactor: boolean })[]; total: number; limit: number; offset: number }> {
  const unknown = Object.keys(query).find((k) => k !== 'q' && k !== 'limit' && k !== 'offset');
  if (unknown !== undefined) throw invalid('the parameters of the list of accounts are q, limit and offset');
  const q = query.q ?? '';
  if (typeof q !== 'string' || q.length > 200 || q.includes('\u0000')) {
    throw invalid('q must be one text of at most 200 characters');
  }
  const limit = whole(query.limit, ACCOUNT_PAGE.default, 1, ACCOUNT_PAGE.max, 'limit');
  const offset = whole(query.offset, 0, 0, 1_000_000, 'offset');
  const page = await auth.users.page(q, limit, offset);
  const withTwoFactor = await auth.twoFactor.enabledAmong(page.items.map((account) => account.id));
  const items = page.items.map((account) => ({ ...account, twoFactor: withTwoFactor.has(account.id) }));
  return { items, total: page.total, limit, offset };
}

function whole(text: string | string[] | undefined, fallback: number, min: number, max: number, name: string): number {
  if (text === undefined) return fallback;
  const value = typeof text === 'string' && /^\d{1,7}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= min && value <= max)) throw invalid(`${name} must be a whole number from ${min} to ${max}`);
  return value;
}

/** An account's history with who did each change named (a removed user keeps their id, named by it). */
async function historyAnswer(auth: AuthStore, entries: AccountHistoryEntry[]): Promise<AccountHistoryAnswer[]> {
  const ids = [...new Set(entries.map((e) => e.by).filter((by): by is string => by !== null))];
  const names = new Map((await auth.users.byIds(ids)).map((u) => [u.id, u.name]));
  return entries.map((entry) => ({
    ...entry,
    by: entry.by === null ? null : { id: entry.by, name: names.get(entry.by) ?? entry.by },
  }));
}

function accountProblem(error: unknown, id: string, options: UserAdminOptions): unknown {
  if (!(error instanceof AccountError)) return error;
  switch (error.code) {
    case 'NOT_FOUND':
      return new ProblemError('NOT_FOUND', { entity: 'user', id });
    case 'UNKNOWN_ROLE': {
      const params = { field: 'roles', values: options.knownRoles.join(', ') };
      return new ProblemError(
        'VALIDATION_FAILED',
        {},
        {
          errors: [
            { field: 'roles', code: 'INVALID_CHOICE', message: options.catalogue.message('INVALID_CHOICE', params) },
          ],
        },
      );
    }
    case 'CANNOT_DEACTIVATE_SELF':
    case 'LAST_MANAGER':
      return new ProblemError(error.code, {}, { detail: error.message });
    default:
      return new ProblemError('INVALID_PAYLOAD', { detail: error.message });
  }
}

function invalid(detail: string): ProblemError {
  return new ProblemError('INVALID_PAYLOAD', { detail });
}
