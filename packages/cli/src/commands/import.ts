import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import {
  compileApp,
  type ImportProgress,
  type ImportReport,
  importTable,
  ProblemError,
  TableError,
  type TableKind,
} from '@ninepoint/server';
import type { Command } from 'commander';
import { ACCOUNTS_HELP, type DbOption, dbOption, withAccounts } from '../accounts-db.ts';
import type { Context } from '../context.ts';
import type { Output } from '../io.ts';
import { plural } from '../report-text.ts';
import { formatColumns } from '../text-table.ts';
import { EXIT, UsageError } from '../usage-error.ts';

interface ImportOptions extends DbOption {
  as: string;
  dryRun?: boolean;
  json?: boolean;
}

const IMPORT_HELP = `
The file's first row names the fields, by name or label (any case; spaces, - and _ alike). Every
row is checked as a create by the --as user would be (their roles' create permission and the
fields they may set, the field rules, rules, the creating transition's guard, limits), and all
rows are created in one transaction, or none: each refusal is listed with its row and column. A
reference may name its record by id, by a unique field or by its title; a User field by email.
History records each new record as made by the --as user, with how: import.

Formulas in a workbook are refused, never evaluated; CSV is read as UTF-8 (with or without a
byte-order mark) or UTF-16.

Exit codes: 0 imported (or, with --dry-run, every row would be); 1 some row refused (nothing was
imported), the file cannot be read as a table, or the user may not create these records; 2 the
command could not run as asked.`;

/**
 * `ninepoint import spec.md Entity file.csv --as email`: imports a CSV or XLSX file into the app's
 * database through the same path as `POST /api/<collection>/import`, acting as a user, with a
 * progress bar on a terminal.
 */
export function registerImport(program: Command, ctx: Context, version: string): void {
  dbOption(
    program
      .command('import')
      .description("Import a CSV or XLSX file's rows as records of an entity, all or nothing.")
      .argument('<spec.md>', 'the spec whose app the records belong to')
      .argument('<Entity>', 'the entity the rows are records of (e.g. Book)')
      .argument('<file>', 'the .csv or .xlsx file; its first row names the fields')
      .requiredOption('--as <email>', 'the user the import acts as: their roles decide what may be created')
      .option('--dry-run', 'check every row and report, writing nothing')
      .option('--json', 'print the report as JSON: {dryRun, rows, imported, refused, errors, more}'),
  )
    .version(version)
    .addHelpText('after', `${IMPORT_HELP}\n${ACCOUNTS_HELP}`)
    .action(async (specFile: string, entityName: string, file: string, options: ImportOptions) => {
      const path = resolve(ctx.io.cwd, file);
      const found = await stat(path).catch(() => null);
      if (!found?.isFile()) throw new UsageError(`cannot read ${file}: no such file`);
      await withAccounts(ctx, specFile, options, async ({ db, model }) => {
        const entity = model.entities.find((e) => e.name.toLowerCase() === entityName.toLowerCase());
        if (!entity) {
          throw new UsageError(
            `${entityName} is not an entity of the spec; its entities are ${model.entities.map((e) => e.name).join(', ') || '(none)'}.`,
          );
        }
        const user = await db.auth.users.byEmail(options.as.trim().toLowerCase());
        if (!user) {
          ctx.io.stderr.write(`error: no user has the email ${options.as}; add one with ninepoint users add.\n`);
          ctx.exitCode = EXIT.refused;
          return;
        }
        const bar = progressBar(ctx.io.stderr);
        let report: ImportReport;
        try {
          report = await importTable({
            compiled: compileApp(model),
            store: db.store,
            auth: db.auth,
            user,
            entity: entity.name,
            file: createReadStream(path),
            kind: kindOf(file),
            dryRun: options.dryRun === true,
            ...(bar ? { progress: bar.show } : {}),
          });
        } catch (error) {
          bar?.clear();
          if (error instanceof TableError) {
            ctx.io.stderr.write(`error: ${file} cannot be imported: ${error.message}. Nothing was imported.\n`);
            ctx.exitCode = EXIT.refused;
            return;
          }
          if (error instanceof ProblemError) {
            const why =
              error.code === 'FORBIDDEN' || error.code === 'NOT_SIGNED_IN'
                ? `${user.email}'s roles (${user.roles.join(', ') || 'none'}) may not create ${entity.name} records`
                : (error.extras.detail ?? error.code);
            ctx.io.stderr.write(`error: ${why}. Nothing was imported.\n`);
            ctx.exitCode = EXIT.refused;
            return;
          }
          throw error;
        }
        bar?.clear();
        if (options.json === true) ctx.io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        else ctx.io.stdout.write(reportText(report, entity.name, file));
        if (report.refused > 0) ctx.exitCode = EXIT.refused;
      });
    });
}

/** The kind a file's name says; anything else is decided by its first bytes. */
function kindOf(file: string): TableKind | null {
  const ext = extname(file).toLowerCase();
  return ext === '.xlsx' ? 'xlsx' : ext === '.csv' ? 'csv' : null;
}

/** The report in words, with a table of the refusals. */
export function reportText(report: ImportReport, entity: string, file: string): string {
  const rows = plural(report.rows, 'row');
  if (report.refused === 0) {
    return report.dryRun
      ? `Checked ${rows} of ${file}: every row would be imported as ${entity} records. Nothing was written (--dry-run).\n`
      : `Imported ${rows} of ${file} as ${entity} records.\n`;
  }
  const table = formatColumns(
    ['row', 'column', 'code', 'message'],
    report.errors.map((e) => [String(e.row), e.column ?? '-', e.code, e.message]),
  );
  const more = report.more > 0 ? `…and ${plural(report.more, 'more refusal')}.\n` : '';
  return (
    `${table}${more}${report.refused} of ${rows} of ${file} cannot be imported, so nothing was imported` +
    `${report.dryRun ? ' (--dry-run writes nothing anyway)' : ''}.\n`
  );
}

/** A progress line on a terminal (stderr), redrawn in place; none elsewhere (a pipe, a log). */
export function progressBar(out: Output): { show: (p: ImportProgress) => void; clear: () => void } | null {
  if (out.isTTY !== true) return null;
  const WIDTH = 30;
  let shown = false;
  return {
    show: (p) => {
      shown = true;
      if (p.phase === 'checking' || p.total === null || p.total === 0) {
        out.write(`\rChecking rows… ${p.done.toLocaleString('en')}`);
        return;
      }
      const filled = Math.round((p.done / p.total) * WIDTH);
      const percent = Math.floor((p.done / p.total) * 100);
      out.write(
        `\rWriting [${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${String(percent).padStart(3)}% ` +
          `${p.done.toLocaleString('en')}/${p.total.toLocaleString('en')}`,
      );
    },
    clear: () => {
      if (shown) out.write('\r\u001b[2K');
    },
  };
}
