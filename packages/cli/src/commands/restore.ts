import { resolve } from 'node:path';
import {
  BackupError,
  type BackupInspection,
  backupFilesFolder,
  blockingSteps,
  changesSchema,
  compileSqlSchema,
  defaultFilesFolder,
  formatMigrationPlan,
  inspectSqliteBackup,
  type Restored,
  restoreFiles,
  restoreSqlite,
} from '@ninepoint/server';
import type { Command } from 'commander';
import type { Context } from '../context.ts';
import { loadCheckedSpec } from '../load-spec.ts';
import { plural } from '../report-text.ts';
import { DEFAULT_DB } from '../serving.ts';
import { shellWord } from '../shell-word.ts';
import { EXIT, UsageError } from '../usage-error.ts';
import { formatSummary, postgresHelp } from './backup.ts';

const RESTORE_HELP = `
The backup is checked first, and nothing is changed if it fails: it must be an SQLite file that
passes PRAGMA integrity_check and holds a Ninepoint database. With a spec, serve must also be able
to open it with that spec (a migration that could lose data is refused; see ninepoint migrate).
Restoring replaces the whole database, so an existing one is replaced only with --force, and
never while an app has it open: stop the app, restore, start it again. The database it replaces
is moved aside, with its -wal file, as <db>.replaced-<UTC time>, never deleted.

Uploaded files backed up beside it (<backup-file>.files) are copied back into the disk store
(FILE_STORAGE, else files/ beside --db); files already there are kept.

With DATABASE_URL set the data is in PostgreSQL: restore it with pg_restore (docs/deploy.md).

Exit codes: as for backup (see ninepoint backup --help).`;

interface RestoreOptions {
  db: string;
  force?: boolean;
  check?: boolean;
}

/**
 * `ninepoint restore`: checks a backup (intact, a Ninepoint database, fits the spec if one is
 * given), then copies it into the app's database, replacing one only with `--force`.
 */
export function registerRestore(program: Command, ctx: Context, version: string): void {
  program
    .command('restore')
    .description("Check a backup, then restore it as an app's SQLite database (the app stopped).")
    .argument('<backup-file>', 'a file written by ninepoint backup')
    .argument('[spec.md]', 'the spec the app will serve: the backup must fit it')
    .option('--db <file>', 'SQLite database file to restore to, as given to serve', DEFAULT_DB)
    .option('--force', 'replace the database if it exists (it is kept as <db>.replaced-<time>)')
    .option('--check', 'only check the backup; change nothing')
    .version(version)
    .addHelpText('after', RESTORE_HELP)
    .action(async (file: string, specFile: string | undefined, options: RestoreOptions) => {
      if (ctx.io.env.DATABASE_URL) throw new UsageError(postgresHelp('restore'));
      const model = specFile === undefined ? undefined : await loadCheckedSpec(ctx, specFile);
      if (model === null) return;
      const backup = resolve(ctx.io.cwd, file);
      const target = resolve(ctx.io.cwd, options.db);
      const refuse = (message: string) => {
        ctx.io.stderr.write(`error: ${message}\nNothing was restored.\n`);
        ctx.exitCode = EXIT.refused;
      };
      let inspection: BackupInspection;
      try {
        inspection = await inspectSqliteBackup(backup, model ? { model, schema: compileSqlSchema(model) } : undefined);
      } catch (error) {
        if (!(error instanceof BackupError)) throw error;
        refuse(error.message);
        return;
      }
      const { summary, plan } = inspection;
      ctx.io.stdout.write(`Checked the backup ${backup}: "${summary.product}"\n${formatSummary(summary)}`);
      if (model && specFile !== undefined && plan) {
        if (model.product.name !== summary.product) {
          ctx.io.stderr.write(
            `warning: the backup is of "${summary.product}", ${specFile} specifies "${model.product.name}".\n`,
          );
        }
        if (blockingSteps(plan, false).length > 0) {
          ctx.io.stderr.write(formatMigrationPlan(plan, { allowDestructive: false, mode: 'refused' }));
          refuse(
            `serve would refuse to open this backup with ${specFile} (the steps above). ` +
              'Restore it with the spec it was taken with, then change the spec as docs/migrations.md says.',
          );
          return;
        }
        const steps = plan.steps.filter((s) => s.changes.length > 0).length;
        ctx.io.stdout.write(
          changesSchema(plan)
            ? `It fits ${specFile}: serve will migrate it at start (${plural(steps, 'step')}; no data is dropped).\n`
            : `It fits ${specFile} as it is.\n`,
        );
      }
      if (options.check === true) {
        ctx.io.stdout.write('Nothing was changed (--check).\n');
        return;
      }
      let restored: Restored;
      try {
        restored = await restoreSqlite(backup, target, { overwrite: options.force === true });
      } catch (error) {
        if (!(error instanceof BackupError)) throw error;
        refuse(error.message);
        return;
      }
      const { summary: after, replaced } = restored;
      // The uploaded files backed up beside it go back into the disk store (files already there are kept).
      const storage = ctx.io.env.FILE_STORAGE?.trim() || undefined;
      if (!storage?.startsWith('s3://')) {
        const folder = storage ? resolve(ctx.io.cwd, storage) : defaultFilesFolder({ dbPath: target });
        const files = await restoreFiles(backupFilesFolder(backup), folder);
        if (files.copied > 0) ctx.io.stdout.write(`Restored ${plural(files.copied, 'uploaded file')} to ${folder}.\n`);
      }
      const records = after.records.reduce((sum, r) => sum + r.count, 0);
      const serve = `npx ninepoint serve ${specFile === undefined ? '<spec.md>' : shellWord(specFile)}`;
      ctx.io.stdout.write(
        `Restored it to SQLite: ${target} (${plural(records, 'record')}, ${plural(after.users, 'user')}).\n` +
          (replaced ? `The database it replaced is kept as ${replaced}; delete it when you no longer need it.\n` : '') +
          `Start the app with: ${serve}${options.db === DEFAULT_DB ? '' : ` --db ${shellWord(options.db)}`}\n`,
      );
    });
}
