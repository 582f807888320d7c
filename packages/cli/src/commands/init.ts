import { rm, stat } from 'node:fs/promises';
import { basename, extname, resolve } from 'node:path';
import { AccountError, addUser, checkEmail, openAccounts, passwordProblem } from '@ninepoint/server';
import { checkSpec } from '@ninepoint/spec';
import type { Command } from 'commander';
import type { Context } from '../context.ts';
import { writeNewFile } from '../files.ts';
import { copyOrder, copyRows } from '../init/copy-rows.ts';
import { NewPostgres } from '../init/new-postgres.ts';
import { describeUrl, openPostgres } from '../init/read-postgres.ts';
import { openSqlite } from '../init/read-sqlite.ts';
import { SourceError, type SourceRows, type SourceSchema } from '../init/source-schema.ts';
import { entityName, specFromSchema } from '../init/spec-from-schema.ts';
import { wantsColor } from '../io.ts';
import { paint } from '../paint.ts';
import { checkPasswordSource, readNewPassword } from '../password-input.ts';
import { formatDiagnostics, plural } from '../report-text.ts';
import { DEFAULT_DB } from '../serving.ts';
import { shellWord } from '../shell-word.ts';
import { EXIT, UsageError } from '../usage-error.ts';
import { progressBar, reportText } from './import.ts';

interface InitOptions {
  from: string;
  schema: string;
  name?: string;
  force?: boolean;
  importData?: boolean;
  as?: string;
  passwordStdin?: boolean;
  db: string;
  database?: string;
}

const INIT_HELP = `
The source is a PostgreSQL URL (postgres://user@host:5432/db; --schema picks the schema) or a
SQLite file. Each table becomes an entity named in the singular (order_items → OrderItem), each
column a field: NOT NULL is required, UNIQUE unique, CHECK (col IN ('a','b')) and enum types a
choice, simple CHECK bounds a range, varchar(n) a length, single-column foreign keys references,
columns unique together a limit (at most 1 Loan per member, book) with its own error code.
A generated key that other tables refer to is kept as an optional unique field (source_id), by
which the copied rows' references are matched. What has no translation is listed under its
entity in the spec and printed here. The spec written always checks clean.

With --import-data the rows are copied into a new SQLite database (--db), or with --database
postgres://… into PostgreSQL, whose schema (the URL's search_path, else public) must hold no table
yet, through the same path as ninepoint import: every row passes what a create passes, referenced
tables first, and history records how: import, by the --as user, who is added to the database (no
roles: the spec has none yet) with a password asked for or read from stdin. One refused row and no
row is kept: the database is removed (on PostgreSQL, the tables init made are dropped), the
refusals are listed, and the spec is kept.

Exit codes: 0 written (and copied); 1 the database cannot be read, has no tables, or a row was
refused; 2 the command could not run as asked (an unknown URL scheme, a file that exists).`;

/**
 * `ninepoint init --from <postgres URL | SQLite file> [spec.md]`: starts a spec from an existing
 * database's tables, and with `--import-data` copies its rows into the new app's database.
 */
export function registerInit(program: Command, ctx: Context, version: string): void {
  program
    .command('init')
    .description("Write a spec from an existing database's tables (PostgreSQL or SQLite), and copy its rows.")
    .argument('[file]', 'where to write the spec', 'spec.md')
    .requiredOption('--from <database>', 'a postgres:// URL or a SQLite file')
    .option('--schema <name>', 'the PostgreSQL schema to read', 'public')
    .option('--name <product>', 'the product name, written as the title (default: from the database)')
    .option('-f, --force', 'overwrite the spec file if it exists')
    .option('--import-data', 'also copy the rows into a new database (--db), through the import')
    .option('--as <email>', 'with --import-data: the user the rows are imported as (added to the database)')
    .option('--password-stdin', "with --import-data: read that user's password from stdin")
    .option('--db <file>', 'with --import-data: the SQLite database to create, as given to serve', DEFAULT_DB)
    .option('--database <url>', 'with --import-data: a postgres:// URL to copy into instead, its schema empty')
    .version(version)
    .addHelpText('after', INIT_HELP)
    .action(async (file: string, options: InitOptions) => {
      const from = options.from.trim();
      const isUrl = /^postgres(ql)?:\/\//i.test(from);
      const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(from)?.[1];
      if (!isUrl && scheme) {
        throw new UsageError(
          `--from ${scheme}:// is not a database init can read: give a postgres:// (or postgresql://) URL or a SQLite file.`,
        );
      }
      const name = (options.name ?? titleOf(from, isUrl)).trim();
      if (name === '' || /[\r\n]/.test(name)) throw new UsageError('--name needs a product name on one line.');
      const specPath = resolve(ctx.io.cwd, file);
      if (options.force !== true && (await stat(specPath).catch(() => null))) {
        throw new UsageError(`${file} already exists; pass --force to overwrite it, or name another file.`);
      }
      const dbPath = resolve(ctx.io.cwd, options.db);
      const database = options.database?.trim();
      if (options.importData === true) {
        if (!options.as) throw new UsageError('--import-data needs --as <email>: the user the rows are imported as.');
        if (database !== undefined && !/^postgres(ql)?:\/\//i.test(database)) {
          throw new UsageError('--database takes a postgres:// (or postgresql://) URL; a SQLite file is --db.');
        }
        if (ctx.io.env.DATABASE_URL && database === undefined) {
          // Filled only when named: DATABASE_URL may well be the database of another app.
          throw new UsageError(
            'init --import-data fills a new SQLite file (--db), or the PostgreSQL database named with --database; ' +
              'DATABASE_URL is set: pass --database "$DATABASE_URL" to copy into it, or unset it.',
          );
        }
        if (database === undefined && (await stat(dbPath).catch(() => null))) {
          throw new UsageError(
            `${options.db} already exists; init --import-data fills a new database: name another with --db, or remove it.`,
          );
        }
        try {
          checkEmail(options.as);
        } catch (error) {
          if (error instanceof AccountError) throw new UsageError(`--as: ${error.message}`);
          throw error;
        }
        checkPasswordSource(ctx, options.passwordStdin === true);
      } else if (options.as || options.passwordStdin || database !== undefined) {
        throw new UsageError('--as, --password-stdin and --database go with --import-data.');
      }
      const found = isUrl ? null : await stat(resolve(ctx.io.cwd, from)).catch(() => null);
      if (!isUrl && !found) {
        throw new UsageError(`cannot read ${from}: no such file (give a SQLite file or a postgres:// URL).`);
      }
      if (found && !found.isFile()) throw new UsageError(`cannot read ${from}: it is a folder, not a SQLite file.`);

      let source: SourceSchema & SourceRows;
      try {
        source = isUrl ? await openPostgres(from, options.schema) : openSqlite(resolve(ctx.io.cwd, from), from);
      } catch (error) {
        if (!(error instanceof SourceError)) throw error;
        ctx.io.stderr.write(`error: ${error.message}. Nothing was written.\n`);
        ctx.exitCode = EXIT.refused;
        return;
      }
      try {
        if (source.tables.length === 0) {
          const where = isUrl ? `the schema ${options.schema} of ${describeUrl(from)}` : from;
          ctx.io.stderr.write(
            `error: ${where} has no tables: there is nothing to write a spec from. Nothing was written.\n`,
          );
          ctx.exitCode = EXIT.refused;
          return;
        }
        const plan = specFromSchema(source, name);
        const checked = checkSpec(plan.text);
        if (!checked.ok) {
          // The translation's own fault: say so plainly rather than write a spec that does not check.
          const errors = checked.diagnostics.filter((d) => d.severity === 'error');
          ctx.io.stderr.write(
            `${formatDiagnostics(file, plan.text, errors, paint(wantsColor(ctx.io.stderr, ctx.io.env)))}error: the spec made from ${source.description} has ` +
              `${plural(errors.length, 'error')} (a fault of init, please report it). Nothing was written.\n`,
          );
          ctx.exitCode = EXIT.refused;
          return;
        }
        if (options.importData === true) {
          try {
            copyOrder(plan.entities);
          } catch (error) {
            if (!(error instanceof SourceError)) throw error;
            ctx.io.stderr.write(`error: ${error.message}\n`);
            ctx.exitCode = EXIT.refused;
            return;
          }
        }
        const email = options.as ?? '';
        let password: string | null = null;
        if (options.importData === true) {
          // Asked for before anything is written, so that a weak password or a cancel leaves nothing behind.
          try {
            password = await readNewPassword(ctx, options.passwordStdin === true, email);
            const weak = password === null ? null : passwordProblem(password);
            if (weak) throw new AccountError(`${weak} Nothing was written.`);
          } catch (error) {
            if (!(error instanceof AccountError)) throw error;
            ctx.io.stderr.write(`error: ${error.message}\n`);
            ctx.exitCode = EXIT.refused;
            return;
          }
          if (password === null) {
            ctx.io.stderr.write('Cancelled: nothing was written.\n');
            ctx.exitCode = EXIT.refused;
            return;
          }
        }
        // The PostgreSQL database to fill is checked before anything is written: reachable, its schema empty.
        let target: NewPostgres | null = null;
        if (options.importData === true && database !== undefined) {
          try {
            target = await NewPostgres.check(database);
          } catch (error) {
            if (!(error instanceof SourceError)) throw error;
            ctx.io.stderr.write(`error: ${error.message}. Nothing was written.\n`);
            ctx.exitCode = EXIT.refused;
            return;
          }
        }
        await writeNewFile(ctx.io.cwd, file, plan.text, options.force === true);
        const notes = plan.entities.flatMap((e) => e.notes.map((n) => `  ${e.entity}: ${n}\n`));
        ctx.io.stdout.write(
          `Wrote ${file} from ${source.description}: ${plan.entities.length === 1 ? '1 entity' : `${plan.entities.length} entities`} ` +
            `(${plan.entities.map((e) => e.entity).join(', ')}).\n` +
            (notes.length > 0
              ? `Not translated (${notes.length}; each is noted in the spec under its entity):\n${notes.join('')}`
              : ''),
        );
        if (options.importData !== true || password === null) {
          ctx.io.stdout.write(`Next: npx ninepoint check ${shellWord(file)}\n`);
          return;
        }
        const db = await openAccounts(checked.model, target ? { databaseUrl: target.url } : { dbPath });
        const into = target ? `PostgreSQL at ${target.where}` : options.db;
        let kept = false;
        try {
          const user = await addUser(db.auth, { email, roles: [], password }, db.roles);
          const bar = progressBar(ctx.io.stderr);
          const outcomes = await copyRows({
            source,
            tables: source.tables,
            entities: plan.entities,
            model: checked.model,
            db,
            user,
            ...(bar ? { progress: bar.show } : {}),
          });
          bar?.clear();
          const refused = outcomes.find((o) => o.report.refused > 0);
          if (refused) {
            ctx.io.stdout.write(reportText(refused.report, refused.entity.entity, `the table ${refused.entity.table}`));
            ctx.io.stderr.write(
              `error: no rows were copied: a row of ${refused.entity.table} was refused (above), so ` +
                `${target ? `the tables init made in ${into} were dropped` : `${options.db} was removed`}. ` +
                `${file} is kept; change it (or the data) and run init again with --force.\n`,
            );
            ctx.exitCode = EXIT.refused;
            return;
          }
          kept = true;
          const copied = outcomes.map((o) => `  ${o.entity.entity}: ${plural(o.report.imported, 'row')}\n`).join('');
          ctx.io.stdout.write(
            `Copied the rows into ${into} as ${user.email}:\n${copied}` +
              (target
                ? `Next: serve it with DATABASE_URL set to the --database URL: npx ninepoint serve ${shellWord(file)}\n`
                : `Next: npx ninepoint serve ${shellWord(file)}${options.db === DEFAULT_DB ? '' : ` --db ${shellWord(options.db)}`}\n`),
          );
        } finally {
          await db.close();
          if (!kept) await (target ? target.emptyAgain() : removeDatabase(dbPath));
        }
      } finally {
        await source.close();
      }
    });
}

/** The product's name from the database's: `shop.db` → Shop, `…/lending_desk` → Lending desk. */
function titleOf(from: string, isUrl: boolean): string {
  let base = isUrl ? (describeUrl(from).split('/').pop() ?? '') : basename(from, extname(from));
  base = base.replace(/[_-]+/g, ' ').trim();
  if (base === '') return entityName('database');
  return base.charAt(0).toUpperCase() + base.slice(1);
}

async function removeDatabase(path: string): Promise<void> {
  for (const suffix of ['', '-wal', '-shm', '-journal']) await rm(`${path}${suffix}`, { force: true });
}
