import { peopleAccess, requiresTwoFactor, signUpRoles, USER_ENTITY } from '@ninepoint/spec';
import fastifyPlugin from 'fastify-plugin';
import type { CompiledApp } from '../compile/compiled-app.ts';
import { type Actor, accessSummary, assignableRoles } from '../compile/permissions.ts';
import type { SqlRunner } from '../store/sql-runner.ts';
import type { Store } from '../store/store.ts';
import { registerAuth } from './auth.ts';
import type { AuthStore } from './auth-store.ts';
import { registerDevRoutes } from './dev-mode.ts';
import { namedUsers } from './named-users.ts';
import { OIDC_START_PATH, registerOidc } from './oidc.ts';
import type { OidcSettings } from './oidc-settings.ts';
import type { OidcStore } from './oidc-store.ts';
import { registerPasskeys } from './passkeys.ts';
import { type MailOptions, registerPasswordReset } from './password-reset.ts';
import type { PeopleEvents } from './people-events.ts';
import { registerPeopleJoining } from './people-joining.ts';
import { roleLines } from './role-lines.ts';
import { SecretSealer } from './secret-key.ts';
import { TwoFactor } from './two-factor.ts';
import { registerUserAdmin } from './user-admin.ts';

export interface PeopleOptions {
  compiled: CompiledApp;
  /** People's tables, set up (`AuthStore.setUp`). */
  auth: AuthStore;
  /** The database, for the tables of joining (made when the app is ready). */
  sql: SqlRunner;
  /** The records, for the users a caller may see named (`namedUsers`). */
  store: Store;
  /** How mail is sent, or null: links are then not mailed, and the answers are the same. */
  mail: MailOptions | null;
  /** Single sign-on, when configured, with its pending logins' table set up. */
  oidc: { settings: OidcSettings; logins: OidcStore } | null;
  /** Dev mode's sign-in as a role's demo user (`dev-mode.ts`). */
  devMode: boolean;
  /**
   * `SECRET_KEY`: two-factor secrets are sealed with a key derived from it, so a copy of the
   * database alone cannot make codes (`secret-key.ts`); null or left out: kept as they are.
   */
  secretKey?: string | null;
  /**
   * `APP_URL`'s origin: passkeys are bound to it (its host is the WebAuthn RP ID). Null or left
   * out: each request's own origin (dev mode, tests).
   */
  appUrl?: string | null;
  /** For tests: the clock of sessions, links, lockouts and rate limits. */
  now?: () => number;
  /** Told of sign-outs and account changes once they are done (live updates end or update streams). */
  events?: PeopleEvents;
}

/**
 * People, as a Fastify plugin: who every call is from (session or API token), rate limits and the
 * cross-site check, for every call of the app, so it is not encapsulated (fastify-plugin); then
 * sign-in, `GET /api/auth/me` and the user directory, user administration, password reset,
 * sign-up and invitations, single sign-on when configured, and dev mode's demo sign-in.
 * Other features read `request.actor`, which it sets before any handler runs.
 */
export const people = fastifyPlugin<PeopleOptions>(
  (app, options, done) => {
    const { compiled, auth, mail, oidc } = options;
    const { model, settings, catalogue } = compiled;
    const now = options.now ?? Date.now;
    const manages = (roles: readonly string[]) => peopleAccess(model, roles).manage;
    const twoFactor = new TwoFactor({
      auth,
      settings,
      sealer: new SecretSealer(options.secretKey ?? null),
      issuer: model.product.name,
      requiredFor: (roles) => requiresTwoFactor(model, roles),
      requiredBy: roleLines({ ...model, roles: model.roles.filter((r) => r.twoFactor) }),
      requiredForSome: model.roles.some((role) => role.twoFactor),
      manages,
      now,
    });
    const { signIn } = registerAuth(app, {
      auth,
      settings,
      now: options.now,
      mayPickUsers: userPickers(compiled),
      namedUsers: namedUsers(compiled, options.store),
      managesPeople: (actor) => actor.userId !== null && peopleAccess(model, actor.roles).manage,
      accessOf: (actor) => accessSummary(compiled.permissions, model, actor),
      peopleOf: (actor) => peopleAccess(model, actor.roles),
      signUp: signUpRoles(model),
      singleSignOn: oidc === null ? null : { name: oidc.settings.name, start: OIDC_START_PATH },
      secondStep: twoFactor.beginSecondStep,
      twoFactorOf: twoFactor.statusOf,
      ...(options.events ? { signedOut: options.events.signedOut } : {}),
    });
    twoFactor.register(app, signIn);
    registerPasskeys(
      app,
      { auth, settings, rpName: model.product.name, appUrl: options.appUrl ?? null, manages, now },
      signIn,
    );
    registerUserAdmin(app, {
      auth,
      catalogue,
      knownRoles: assignableRoles(model),
      manages,
      roleLine: roleLines(model),
      now,
      ...(options.events ? { accountChanged: options.events.accountChanged } : {}),
    });
    registerPasswordReset(app, { auth, settings, catalogue, productName: model.product.name, mail, now });
    registerPeopleJoining(app, { compiled, auth, sql: options.sql, signIn, mail, now });
    if (oidc !== null) registerOidc(app, { ...oidc, auth, model, signIn, secondStep: twoFactor.beginSecondStep, now });
    if (options.devMode) registerDevRoutes(app, { auth, model, signIn });
    done();
  },
  { name: 'ninepoint-people', fastify: '5.x' },
);

/**
 * Who may search the user directory: those who may set a `User` field, on create or update (a
 * role whose `update (score)` leaves the `speaker` alone picks nobody).
 */
function userPickers(compiled: CompiledApp): (actor: Actor) => boolean {
  const withUserFields = compiled.model.entities.flatMap((e) => {
    const p = compiled.permissions.get(e.name);
    const userFields = e.fields.filter((f) => f.type.kind === 'reference' && f.type.entity === USER_ENTITY);
    return p && userFields.length > 0 ? [{ p, userFields }] : [];
  });
  return (actor) =>
    withUserFields.some(({ p, userFields }) => {
      const sets = (operation: 'create' | 'update') => {
        const settable = p.settable(actor, operation);
        return settable === null || userFields.some((f) => settable.has(f.name));
      };
      return (p.mayCreate(actor) && sets('create')) || (p.access(actor, 'update') !== 'none' && sets('update'));
    });
}
