import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  blockingSteps,
  compileApp,
  formatMigrationPlan,
  MigrationRefusedError,
  openStore,
  type Store,
  type StoreOptions,
  UnsupportedDatabaseError,
} from '@ninepoint/server';
import type { Command } from 'commander';
import type { Context } from '../context.ts';
import { loadCheckedSpec } from '../load-spec.ts';
import { EXIT, UsageError } from '../usage-error.ts';

const MIGRATE_HELP = `
A migration applies what cannot lose data (new entities, new fields, new indexes) in one
transaction, and refuses, changing nothing, what could hide or invalidate stored data (a removed
field or entity, a type change, a new required field rows lack, a rule rows break), saying what
and how many rows. A removed field's column and a removed entity's table are always kept.
DATABASE_URL (postgres://…) selects PostgreSQL instead of the SQLite file.

Exit codes of migrate:
  0  applied, or nothing to do (with --plan: the plan could be applied)
  1  refused (with --plan: would be refused), the spec has errors, or the
     database cannot be opened
  2  the command could not run as asked`;

interface MigrateOptions {
  plan?: boolean;
  db: string;
  allowDestructive?: boolean;
}

/**
 * `ninepoint migrate`: brings a database to a spec, the same migration `serve` runs at start-up,
 * without serving; with `--plan`, prints what it would do and changes nothing.
 */
export function registerMigrate(program: Command, ctx: Context, version: string): void {
  program
    .command('migrate')
    .description('Migrate a database to a spec without losing data, or print the plan.')
    .argument('<spec.md>', 'the spec')
    .option('--plan', 'print the plan without applying it')
    .option('--db <file>', 'SQLite database file (created if missing)', 'ninepoint.db')
    .option(
      '--allow-destructive',
      'also apply the steps that hide or invalidate stored data (removed fields and entities keep their data)',
    )
    .version(version)
    .addHelpText('after', MIGRATE_HELP)
    .action(async (file: string, options: MigrateOptions) => {
      const model = await loadCheckedSpec(ctx, file);
      if (!model) return;
      const planOnly = options.plan === true;
      const allowDestructive = options.allowDestructive === true;
      const databaseUrl = ctx.io.env.DATABASE_URL || undefined;
      const dbPath = resolve(ctx.io.cwd, options.db);
      // The plan for a file that does not exist is the plan for an empty database; opening it would create it.
      const storeOptions: StoreOptions = databaseUrl
        ? { databaseUrl }
        : { dbPath: planOnly && !existsSync(dbPath) ? ':memory:' : dbPath };
      const compiled = compileApp(model);
      let store: Store;
      try {
        store = await openStore(storeOptions);
      } catch (error) {
        if (error instanceof UnsupportedDatabaseError) throw new UsageError(error.message);
        ctx.io.stderr.write(
          `error: cannot open the database "${databaseUrl ? 'DATABASE_URL' : dbPath}": ${describe(error)}\n`,
        );
        ctx.exitCode = EXIT.specHasErrors;
        return;
      }
      const where = databaseUrl ? `PostgreSQL: ${store.location}` : `SQLite: ${dbPath}`;
      const header = `Migration of "${model.product.name}" to ${where}${planOnly ? ' (plan only)' : ''}\n`;
      try {
        const applied = await store.applySchema(compiled.sqlSchema, model, { allowDestructive, dryRun: planOnly });
        const mode = planOnly ? 'plan' : 'applied';
        ctx.io.stdout.write(`${header}${formatMigrationPlan(applied.plan, { allowDestructive, mode })}`);
        if (planOnly && blockingSteps(applied.plan, allowDestructive).length > 0) ctx.exitCode = EXIT.specHasErrors;
      } catch (error) {
        ctx.exitCode = EXIT.specHasErrors;
        if (error instanceof MigrationRefusedError) {
          ctx.io.stderr.write(`${header}${formatMigrationPlan(error.plan, { allowDestructive, mode: 'refused' })}`);
        } else {
          ctx.io.stderr.write(`error: the migration failed and nothing was changed: ${describe(error)}\n`);
        }
      } finally {
        await store.close();
      }
    });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
