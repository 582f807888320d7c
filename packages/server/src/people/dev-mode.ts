import { randomBytes } from 'node:crypto';
import type { Model } from '@ninepoint/spec';
import type { FastifyInstance } from 'fastify';
import type { JsonSchema } from '../compile/json-schemas.ts';
import { assignableRoles } from '../compile/permissions.ts';
import { ProblemError } from '../compile/problems.ts';
import { refuseNamedHost } from '../http/local-host.ts';
import { sameOrigin } from '../http/same-origin.ts';
import { AccountError, addUser } from './accounts.ts';
import type { SignIn } from './auth.ts';
import type { AuthStore } from './auth-store.ts';
import type { UserAccount } from './users-store.ts';

/**
 * Development mode (`ninepoint dev`, `createServer({ devMode: true })`): one demo user per role
 * and a call that signs in as one without a password, so that every role's view of the app can
 * be tried in seconds. Nothing here is registered unless the server is made with `devMode`, so
 * `ninepoint serve` never answers these calls.
 */

/** Demo users' emails end with this: `.test` is reserved (RFC 2606), so no real mailbox has it. */
export const DEMO_EMAIL_DOMAIN = 'demo.ninepoint.test';

/** The calls dev mode adds. */
export const DEV_ROUTES = {
  /** `GET`: the roles there is a demo user for. */
  roles: '/api/dev/roles',
  /** `POST { "role": "staff" }`: signs in as that role's demo user, as password sign-in does. */
  signInAs: '/api/dev/sign-in-as',
} as const;

/** The demo user of a role: `staff@demo.ninepoint.test` (role names are lowercase words joined by _ or -). */
export function demoEmail(role: string): string {
  return `${role}@${DEMO_EMAIL_DOMAIN}`;
}

/** Whether an email is a demo user's. */
export function isDemoEmail(email: string): boolean {
  return email.toLowerCase().endsWith(`@${DEMO_EMAIL_DOMAIN}`);
}

/**
 * Makes sure each assignable role has its demo user, with that one role, and that no demo user
 * is left for a role the spec no longer has; safe to run at every start. A new demo user gets a
 * random password that is never shown: demo users sign in only through `DEV_ROUTES.signInAs`.
 * Answers the demo users, in the spec's order of roles.
 */
export async function ensureDemoUsers(auth: AuthStore, model: Pick<Model, 'roles'>): Promise<UserAccount[]> {
  const roles = assignableRoles(model);
  const wanted = new Set(roles.map(demoEmail));
  for (const user of await auth.users.all()) {
    if (isDemoEmail(user.email) && !wanted.has(user.email)) await auth.removeUser(user.email);
  }
  const users: UserAccount[] = [];
  for (const role of roles) users.push(await ensureDemoUser(auth, role, roles));
  return users;
}

async function ensureDemoUser(auth: AuthStore, role: string, roles: readonly string[]): Promise<UserAccount> {
  const email = demoEmail(role);
  const existing = await auth.users.byEmail(email);
  if (existing) {
    if (existing.roles.length === 1 && existing.roles[0] === role) return existing;
    await auth.users.setRoles(email, [role]);
    return { ...existing, roles: [role] };
  }
  const password = randomBytes(32).toString('base64url');
  try {
    return await addUser(auth, { email, name: `Demo ${role}`, roles: [role], password }, roles);
  } catch (error) {
    // Another dev server on the same database made it a moment ago.
    const made = error instanceof AccountError ? await auth.users.byEmail(email) : undefined;
    if (made) return made;
    throw error;
  }
}

const SIGN_IN_AS_SCHEMA: JsonSchema = {
  type: 'object',
  properties: { role: { type: 'string', minLength: 1, maxLength: 100 } },
  required: ['role'],
  additionalProperties: false,
};

export interface DevRoutesOptions {
  auth: AuthStore;
  model: Pick<Model, 'roles'>;
  /** Password sign-in's own session start (`registerAuth`), so a dev sign-in is a real session. */
  signIn: SignIn;
}

/**
 * Registers `DEV_ROUTES` (no spec call can have their paths: a call path has one static segment
 * before its id). Sign-in-as follows the rules of password sign-in: a new session id each
 * time (the browser's old session ends), the same cookie, and a request from another origin is
 * refused. It also answers only requests addressed to `localhost` or an IP address, so that a web
 * page cannot reach it through a DNS name rebound to this machine.
 */
export function registerDevRoutes(app: FastifyInstance, options: DevRoutesOptions): void {
  const { auth, signIn } = options;
  const roles = assignableRoles(options.model);

  app.get(DEV_ROUTES.roles, async (request, reply) => {
    refuseNamedHost(request);
    return reply.send({ roles: roles.map((role) => ({ role, email: demoEmail(role) })) });
  });

  app.post(DEV_ROUTES.signInAs, { schema: { body: SIGN_IN_AS_SCHEMA } }, async (request, reply) => {
    refuseNamedHost(request);
    if (request.headers.origin !== undefined && !sameOrigin(request)) {
      throw new ProblemError('FORBIDDEN', {}, { detail: 'Dev sign-in must come from this app’s own pages.' });
    }
    const { role } = request.body as { role: string };
    if (!roles.includes(role)) {
      const known = roles.length > 0 ? `one of ${roles.join(', ')}` : 'none: the spec defines no roles';
      throw new ProblemError('INVALID_PAYLOAD', { detail: `role must be a role of the spec (${known})` });
    }
    // Made again if it was removed (`ninepoint users remove`) while the server ran.
    const user = await ensureDemoUser(auth, role, roles);
    await signIn(request, reply, user);
    return reply.send({ user });
  });
}
