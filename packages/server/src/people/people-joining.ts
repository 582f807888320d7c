import { peopleAccess, signUpRoles } from '@ninepoint/spec';
import type { FastifyInstance } from 'fastify';
import type { CompiledApp } from '../compile/compiled-app.ts';
import type { SqlRunner } from '../store/sql-runner.ts';
import type { SignIn } from './auth.ts';
import type { AuthStore } from './auth-store.ts';
import { registerInvitations } from './invitations.ts';
import { JoiningStore } from './joining-store.ts';
import type { MailOptions } from './password-reset.ts';
import { roleLines } from './role-lines.ts';
import { registerSignUp } from './sign-up.ts';

/**
 * How people join an app, as point 6's `joins` and `people` columns say: self sign-up with email
 * verification (`sign-up.ts`) and invitations (`invitations.ts`), with their pending links in
 * tables of their own (`JoiningStore`), made here before the first call.
 */
export function registerPeopleJoining(
  app: FastifyInstance,
  options: {
    compiled: CompiledApp;
    auth: AuthStore;
    sql: SqlRunner;
    signIn: SignIn;
    mail: MailOptions | null;
    now: () => number;
  },
): void {
  const { compiled, auth, signIn, mail, now } = options;
  const { model, settings, catalogue } = compiled;
  const joining = new JoiningStore(options.sql);
  app.addHook('onReady', () => joining.setUp());
  const common = { auth, joining, settings, catalogue, productName: model.product.name, mail, signIn, now };
  registerSignUp(app, { ...common, roles: signUpRoles(model) });
  registerInvitations(app, {
    ...common,
    peopleAccess: (roles) => peopleAccess(model, roles),
    knownRoles: model.roles.map((r) => r.name),
    roleLine: roleLines(model),
  });
}
