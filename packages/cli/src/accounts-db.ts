import { resolve } from 'node:path';
import {
  AccountError,
  type AccountsDatabase,
  changesSchema,
  MigrationRefusedError,
  openAccounts,
  UnsupportedDatabaseError,
} from '@ninepoint/server';
import type { Model } from '@ninepoint/spec';
import type { Command } from 'commander';
import type { Context } from './context.ts';
import { loadCheckedSpec } from './load-spec.ts';
import { plural } from './report-text.ts';
import { DEFAULT_DB } from './serving.ts';
import { shellWord } from './shell-word.ts';
import { EXIT, UsageError } from './usage-error.ts';

export const ACCOUNTS_HELP = `
The spec comes last: its roles are the ones a user may have, and its database is the one
\`serve\` uses, migrated to the spec the way \`serve\` does it at start-up (a migration that could
hide or invalidate data is refused, changing nothing: run \`ninepoint migrate\` for it).
DATABASE_URL (postgres://…) selects PostgreSQL instead of the SQLite file (--db).

Exit codes of users and tokens:
  0  done
  1  refused (an unknown role, a weak password, no such user or token, a
     migration that could lose data), the spec has errors, or the database
     cannot be opened
  2  the command could not run as asked (e.g. no terminal to ask for the
     password on and no --password-stdin)`;

/** The option every users and tokens command has. */
export interface DbOption {
  db: string;
}

/** Adds `--db`, with `serve`'s default, so that these commands find the database `serve` uses. */
export function dbOption(command: Command): Command {
  return command.option('--db <file>', 'SQLite database file, as given to serve (created if missing)', DEFAULT_DB);
}

/** What an accounts command works with. */
export interface Accounts {
  db: AccountsDatabase;
  model: Model;
  /** The database, for messages: `SQLite: /abs/path.db` or `PostgreSQL: host/db`. */
  where: string;
}

/**
 * Runs a users or tokens command: checks the spec, opens its database migrated as `serve` would
 * (DATABASE_URL selects PostgreSQL, else the `--db` file), runs `action` and closes the database.
 * A migration that could lose data is refused (exit 1) and left to `ninepoint migrate`; an
 * `AccountError` from `action` is printed as a refusal (exit 1).
 */
export async function withAccounts(
  ctx: Context,
  file: string,
  options: DbOption,
  action: (accounts: Accounts) => Promise<void>,
): Promise<void> {
  const model = await loadCheckedSpec(ctx, file);
  if (!model) return;
  const databaseUrl = ctx.io.env.DATABASE_URL || undefined;
  const dbPath = resolve(ctx.io.cwd, options.db);
  let db: AccountsDatabase;
  try {
    db = await openAccounts(model, databaseUrl ? { databaseUrl } : { dbPath });
  } catch (error) {
    if (error instanceof UnsupportedDatabaseError) throw new UsageError(error.message);
    ctx.exitCode = EXIT.refused;
    if (error instanceof MigrationRefusedError) {
      const db = databaseUrl || options.db === DEFAULT_DB ? '' : ` --db ${shellWord(options.db)}`;
      ctx.io.stderr.write(
        `error: ${error.message}` +
          'The users and tokens commands never apply such steps. See the plan with\n\n' +
          `  npx ninepoint migrate ${shellWord(file)}${db} --plan\n\n` +
          'and apply it with migrate or serve and --allow-destructive if that is what you want, or change the spec.\n',
      );
    } else {
      ctx.io.stderr.write(
        `error: cannot open the database "${databaseUrl ? 'DATABASE_URL' : dbPath}": ${describe(error)}\n`,
      );
    }
    return;
  }
  const where = db.store.dialect === 'postgres' ? `PostgreSQL: ${db.store.location}` : `SQLite: ${dbPath}`;
  try {
    const { plan } = db.applied;
    if (changesSchema(plan)) {
      const steps = plan.steps.filter((s) => s.changes.length > 0).length;
      ctx.io.stderr.write(`Migrated ${where} to the spec first (${plural(steps, 'step')}; no data was dropped).\n`);
    }
    await action({ db, model, where });
  } catch (error) {
    if (!(error instanceof AccountError)) throw error;
    ctx.io.stderr.write(`error: ${error.message}\n`);
    ctx.exitCode = EXIT.refused;
  } finally {
    await db.close();
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
