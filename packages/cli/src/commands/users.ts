import {
  AccountError,
  addUser,
  changeAccount,
  checkEmail,
  checkRoles,
  recordAccountEvent,
  type UserAccount,
} from '@ninepoint/server';
import type { Command } from 'commander';
import { ACCOUNTS_HELP, type DbOption, dbOption, withAccounts } from '../accounts-db.ts';
import type { Context } from '../context.ts';
import { checkPasswordSource, readNewPassword } from '../password-input.ts';
import { DEFAULT_DB } from '../serving.ts';
import { shellWord } from '../shell-word.ts';
import { formatColumns, formatTime } from '../text-table.ts';
import { EXIT, UsageError } from '../usage-error.ts';

interface AddOptions extends DbOption {
  role: string[];
  name?: string;
  passwordStdin?: boolean;
}

interface RoleOptions extends DbOption {
  role: string[];
}

interface ListOptions extends DbOption {
  json?: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/**
 * `ninepoint users`: the people who may sign in to the app of a spec. Passwords are asked for on
 * the terminal or read from stdin, never taken as arguments; only their argon2id hash is kept.
 */
export function registerUsers(program: Command, ctx: Context, version: string): void {
  const users = program
    .command('users')
    .description(
      'Manage who may sign in to the app of a spec: add, list, set-role, deactivate, reactivate, reset-two-factor, remove.',
    )
    .version(version)
    .addHelpText('after', ACCOUNTS_HELP);

  dbOption(
    users
      .command('add')
      .description('Add a user who signs in with a password, asked for twice without echo (or read from stdin).')
      .argument('<email>', 'the email the user signs in with')
      .argument('<spec.md>', 'the spec whose app they sign in to')
      .option('--role <role>', 'a role of the spec (point 6); repeat it for several', collect, [])
      .option('--name <name>', 'the name the app shows (default: the email up to the @)')
      .option('--password-stdin', 'read the password from stdin, e.g. piped from a password manager'),
  )
    .version(version)
    .addHelpText('after', ACCOUNTS_HELP)
    .action(async (email: string, file: string, options: AddOptions) => {
      const name = options.name?.trim();
      if (name !== undefined && (name === '' || /[\r\n]/.test(name) || name.length > 200)) {
        throw new UsageError('--name needs a name on one line of at most 200 characters, e.g. --name "Ada Lovelace".');
      }
      checkPasswordSource(ctx, options.passwordStdin === true);
      await withAccounts(ctx, file, options, async ({ db, where }) => {
        // Everything that can be refused is, before the password is asked for.
        const normalized = checkEmail(email);
        requireRoles(options.role, db.roles);
        checkRoles(options.role, db.roles);
        if (await db.auth.users.byEmail(normalized)) {
          ctx.io.stderr.write(
            `error: a user with the email ${normalized} exists already; change their roles with ` +
              `npx ninepoint users set-role ${shellWord(normalized)} --role <role> ${shellWord(file)}\n`,
          );
          ctx.exitCode = EXIT.refused;
          return;
        }
        const password = await readNewPassword(ctx, options.passwordStdin === true, normalized);
        if (password === null) {
          ctx.io.stderr.write('Cancelled: no user was added.\n');
          ctx.exitCode = EXIT.refused;
          return;
        }
        const user = await addUser(db.auth, { email, roles: options.role, password, name }, db.roles);
        ctx.io.stdout.write(`Added ${describeUser(user)} to ${where}.\n`);
      });
    });

  dbOption(
    users
      .command('list')
      .description('List the users: email, name, roles, when they were added, and whether they are active.')
      .argument('<spec.md>', 'the spec whose app they sign in to')
      .option('--json', 'print them as JSON: {"users": [{id, email, name, roles, createdAt, active, deactivatedAt}]}'),
  )
    .version(version)
    .action(async (file: string, options: ListOptions) => {
      await withAccounts(ctx, file, options, async ({ db, where }) => {
        const all = await db.auth.users.accounts();
        if (options.json === true) {
          ctx.io.stdout.write(`${JSON.stringify({ users: all }, null, 2)}\n`);
          return;
        }
        if (all.length === 0) {
          ctx.io.stdout.write(
            `No users in ${where}.\nAdd the first with: ${addUserCommand(file, options.db, db.roles, ctx)}\n`,
          );
          return;
        }
        ctx.io.stdout.write(
          formatColumns(
            ['email', 'name', 'roles', 'created', 'status'],
            all.map((u) => [
              u.email,
              u.name,
              u.roles.join(', ') || '(none)',
              formatTime(u.createdAt),
              u.active ? 'active' : 'deactivated',
            ]),
          ),
        );
      });
    });

  dbOption(
    users
      .command('set-role')
      .alias('set-roles')
      .description("Replace a user's roles with the ones given; they apply to the user's next call.")
      .argument('<email>', 'the user')
      .argument('<spec.md>', 'the spec whose app they sign in to')
      .option('--role <role>', 'a role of the spec (point 6); repeat it for several', collect, []),
  )
    .version(version)
    .action(async (email: string, file: string, options: RoleOptions) => {
      await withAccounts(ctx, file, options, async ({ db }) => {
        requireRoles(options.role, db.roles);
        checkRoles(options.role, db.roles);
        const before = await db.auth.users.byEmail(email);
        const roles = [...new Set(options.role)];
        if (!before) {
          refuseUnknownUser(ctx, email);
          return;
        }
        // At the terminal: kept in the account's history as done there (by nobody signed in).
        await changeAccount(db.auth, before.id, { roles }, terminalChange(db));
        ctx.io.stdout.write(
          `${before.email} now has ${rolesText(roles)} (had ${before.roles.length > 0 ? before.roles.join(', ') : 'none'}).\n`,
        );
      });
    });

  for (const active of [false, true]) {
    const verb = active ? 'reactivate' : 'deactivate';
    dbOption(
      users
        .command(verb)
        .description(
          active
            ? 'Reactivate a deactivated user: they may sign in again, and their API tokens work again.'
            : 'Deactivate a user, keeping their account: their sessions end and their API tokens stop working at once, and they cannot sign in or reset their password.',
        )
        .argument('<email>', 'the user')
        .argument('<spec.md>', 'the spec whose app they sign in to'),
    )
      .version(version)
      .action(async (email: string, file: string, options: DbOption) => {
        await withAccounts(ctx, file, options, async ({ db }) => {
          const user = await db.auth.users.byEmail(email);
          if (!user) {
            refuseUnknownUser(ctx, email);
            return;
          }
          const before = await db.auth.users.managed(user.id);
          const after = await changeAccount(db.auth, user.id, { active }, terminalChange(db));
          if (before?.active === after.active) {
            ctx.io.stdout.write(`${user.email} is ${active ? 'active' : 'deactivated'} already: nothing changed.\n`);
            return;
          }
          ctx.io.stdout.write(
            active
              ? `Reactivated ${user.email}: they may sign in again, and their API tokens work again.\n`
              : `Deactivated ${user.email}: their sessions ended, their API tokens stop working, and they cannot sign in. ` +
                  `Reactivate them with: npx ninepoint users reactivate ${shellWord(user.email)} ${shellWord(file)}\n`,
          );
        });
      });
  }

  dbOption(
    users
      .command('reset-two-factor')
      .description(
        "Turn off a user's two-factor sign-in (a lost phone): their recovery codes stop working, they sign in with their password alone, and set it up again if their role requires it.",
      )
      .argument('<email>', 'the user')
      .argument('<spec.md>', 'the spec whose app they sign in to'),
  )
    .version(version)
    .action(async (email: string, file: string, options: DbOption) => {
      await withAccounts(ctx, file, options, async ({ db }) => {
        const user = await db.auth.users.byEmail(email);
        if (!user) {
          refuseUnknownUser(ctx, email);
          return;
        }
        if (!(await db.auth.twoFactor.remove(user.id))) {
          ctx.io.stdout.write(`${user.email} has no two-factor sign-in: nothing changed.\n`);
          return;
        }
        await recordAccountEvent(db.auth, user.id, { kind: 'two-factor-reset' }, null);
        ctx.io.stdout.write(
          `Reset two-factor sign-in of ${user.email}: they sign in with their password alone, ` +
            'and set it up again if their role requires it.\n',
        );
      });
    });

  dbOption(
    users
      .command('remove')
      .description('Remove a user: their sessions end and their API tokens stop working at once.')
      .argument('<email>', 'the user')
      .argument('<spec.md>', 'the spec whose app they sign in to'),
  )
    .version(version)
    .action(async (email: string, file: string, options: DbOption) => {
      await withAccounts(ctx, file, options, async ({ db }) => {
        const user = await db.auth.users.byEmail(email);
        if (!user || !(await db.auth.removeUser(email))) {
          refuseUnknownUser(ctx, email);
          return;
        }
        ctx.io.stdout.write(
          `Removed ${user.email}: their sessions ended and their API tokens were deleted. ` +
            'The records they made are kept.\n',
        );
      });
    });
}

/** A change made at the terminal: by nobody signed in, so never refused as the last manager's. */
function terminalChange(db: { roles: readonly string[] }) {
  return { by: null, knownRoles: db.roles, manages: () => false };
}

/** With roles in the spec, a user needs at least one: a user with none is almost always a slip. */
function requireRoles(given: readonly string[], known: readonly string[]): void {
  if (given.length > 0 || known.length === 0) return;
  throw new AccountError(`Give the user at least one role with --role; the spec's roles are: ${known.join(', ')}.`);
}

function refuseUnknownUser(ctx: Context, email: string): void {
  ctx.io.stderr.write(`error: there is no user with the email ${email.trim().toLowerCase()}.\n`);
  ctx.exitCode = EXIT.refused;
}

function rolesText(roles: readonly string[]): string {
  if (roles.length === 0) return 'no roles';
  return `${roles.length === 1 ? 'the role' : 'the roles'} ${roles.join(', ')}`;
}

function describeUser(user: UserAccount): string {
  return `${user.email} (${user.name}) with ${rolesText(user.roles)}`;
}

/**
 * The command that adds a user to the database a command used, ready to paste: the spec and,
 * when not the default, the SQLite file (with DATABASE_URL set, it selects the database).
 */
export function addUserCommand(file: string, db: string, roles: readonly string[], ctx: Context): string {
  const role = roles.length > 0 ? ` --role <${roles.join('|')}>` : '';
  const dbFlag = ctx.io.env.DATABASE_URL || db === DEFAULT_DB ? '' : ` --db ${shellWord(db)}`;
  return `npx ninepoint users add <email>${role}${dbFlag} ${shellWord(file)}`;
}
