import { createApiToken } from '@ninepoint/server';
import type { Command } from 'commander';
import { ACCOUNTS_HELP, type DbOption, dbOption, withAccounts } from '../accounts-db.ts';
import type { Context } from '../context.ts';
import { formatColumns, formatTime } from '../text-table.ts';
import { EXIT, UsageError } from '../usage-error.ts';

interface CreateOptions extends DbOption {
  name: string;
}

/** The name of a token made without `--name`: `tokens list` tells such tokens apart by id and time. */
const DEFAULT_TOKEN_NAME = 'token';

interface ListOptions extends DbOption {
  json?: boolean;
}

/**
 * `ninepoint tokens`: API tokens, with which programs call the API as a user
 * (`Authorization: Bearer npt_…`). A token's secret is printed once, when it is made; the
 * database keeps only its SHA-256.
 */
export function registerTokens(program: Command, ctx: Context, version: string): void {
  const tokens = program
    .command('tokens')
    .description('Manage API tokens, with which programs call the API as a user: create, list, revoke.')
    .version(version)
    .addHelpText('after', ACCOUNTS_HELP);

  dbOption(
    tokens
      .command('create')
      .description('Create an API token for a user and print its secret, this once.')
      .argument('<email>', 'the user the token acts as')
      .argument('<spec.md>', 'the spec whose app it calls')
      .option('--name <name>', 'what the token is for, shown by tokens list (e.g. ci, backup)', DEFAULT_TOKEN_NAME),
  )
    .version(version)
    .addHelpText(
      'after',
      '\nThe secret alone goes to stdout, so that it can be captured: TOKEN=$(npx ninepoint tokens create …).',
    )
    .action(async (email: string, file: string, options: CreateOptions) => {
      const name = options.name.trim();
      if (name === '' || /[\r\n]/.test(name) || name.length > 200) {
        throw new UsageError('--name needs a name on one line of at most 200 characters, e.g. --name ci.');
      }
      await withAccounts(ctx, file, options, async ({ db }) => {
        const { id, secret, user } = await createApiToken(db.auth, email, name);
        ctx.io.stderr.write(
          `Created the API token "${name}" (id ${id}) for ${user.email}. Its secret follows; ` +
            'it cannot be shown again, so store it now. Send it as the header: Authorization: Bearer <secret>\n',
        );
        ctx.io.stdout.write(`${secret}\n`);
      });
    });

  dbOption(
    tokens
      .command('list')
      .description('List the API tokens (never their secrets): id, user, name, created, last used, revoked.')
      .argument('<spec.md>', 'the spec whose app they call')
      .option('--json', 'print them as JSON: {"tokens": [{id, email, name, createdAt, lastUsedAt, revokedAt}]}'),
  )
    .version(version)
    .action(async (file: string, options: ListOptions) => {
      await withAccounts(ctx, file, options, async ({ db, where }) => {
        const all = await db.auth.tokens.all();
        if (options.json === true) {
          const iso = (at: number | null) => (at === null ? null : new Date(at).toISOString());
          const rows = all.map((t) => ({
            id: t.id,
            email: t.email,
            name: t.name,
            createdAt: iso(t.createdAt),
            lastUsedAt: iso(t.lastUsedAt),
            revokedAt: iso(t.revokedAt),
          }));
          ctx.io.stdout.write(`${JSON.stringify({ tokens: rows }, null, 2)}\n`);
          return;
        }
        if (all.length === 0) {
          ctx.io.stdout.write(`No API tokens in ${where}.\n`);
          return;
        }
        const time = (at: number | null) => (at === null ? '-' : formatTime(at));
        ctx.io.stdout.write(
          formatColumns(
            ['id', 'user', 'name', 'created', 'last used', 'revoked'],
            all.map((t) => [t.id, t.email, t.name, formatTime(t.createdAt), time(t.lastUsedAt), time(t.revokedAt)]),
          ),
        );
      });
    });

  dbOption(
    tokens
      .command('revoke')
      .description('Revoke an API token for good: calls with it are refused from now on.')
      .argument('<id>', 'the id tokens list shows')
      .argument('<spec.md>', 'the spec whose app it calls'),
  )
    .version(version)
    .action(async (id: string, file: string, options: DbOption) => {
      await withAccounts(ctx, file, options, async ({ db }) => {
        const token = (await db.auth.tokens.all()).find((t) => t.id === id.trim());
        if (!token || !(await db.auth.tokens.revoke(token.id, Date.now()))) {
          ctx.io.stderr.write(
            token
              ? `error: the API token ${token.id} was revoked already.\n`
              : `error: there is no API token with the id ${id}; tokens list shows them.\n`,
          );
          ctx.exitCode = EXIT.refused;
          return;
        }
        ctx.io.stdout.write(`Revoked the API token "${token.name}" (id ${token.id}) of ${token.email}.\n`);
      });
    });
}
