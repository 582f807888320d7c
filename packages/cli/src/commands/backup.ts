import { resolve } from 'node:path';
import {
  BackupError,
  backupFiles,
  backupFilesFolder,
  backupSqlite,
  type DatabaseSummary,
  defaultFilesFolder,
} from '@ninepoint/server';
import type { Command } from 'commander';
import type { Context } from '../context.ts';
import { plural } from '../report-text.ts';
import { DEFAULT_DB } from '../serving.ts';
import { shellWord } from '../shell-word.ts';
import { formatColumns, formatTime } from '../text-table.ts';
import { EXIT, UsageError } from '../usage-error.ts';

const BACKUP_HELP = `
The copy is SQLite's online backup: one consistent snapshot, safe while the app is serving and
writing (nothing is stopped or locked for long), including what is still in the -wal file. It is
checked (PRAGMA integrity_check) and written as one self-contained file; a file of that name is
never replaced unless --force is given. Copying the database file with cp instead can miss or
tear the latest writes.

Uploaded files in the disk store (files/ beside the database, or --file-storage / FILE_STORAGE)
are copied beside the backup, into <backup-file>.files: those the snapshot's records hold. With
files in S3 (FILE_STORAGE=s3://…) back the bucket up with its own versioning or replication.

With DATABASE_URL set the data is in PostgreSQL: back it up with pg_dump (docs/deploy.md).

Exit codes of backup and restore:
  0  done
  1  refused: the file exists already, the database is in use, or a file is
     not an intact Ninepoint database (or does not fit the spec given)
  2  the command could not run as asked (e.g. DATABASE_URL is set)`;

/** What `backup` and `restore` say when the app's data is in PostgreSQL, which they do not copy. */
export function postgresHelp(command: 'backup' | 'restore'): string {
  return (
    `DATABASE_URL is set, so the app's data is in PostgreSQL, which ninepoint ${command} does not copy. ` +
    "Use PostgreSQL's own tools (docs/deploy.md):\n\n" +
    '  pg_dump --format=custom --file ninepoint.dump "$DATABASE_URL"\n' +
    '  pg_restore --clean --if-exists --no-owner --dbname "$DATABASE_URL" ninepoint.dump\n'
  );
}

interface BackupOptions {
  db: string;
  force?: boolean;
  fileStorage?: string;
}

/**
 * `ninepoint backup`: an online backup of the SQLite database of an app, running or stopped, to
 * a file the user names (never replacing one unless `--force`).
 */
export function registerBackup(program: Command, ctx: Context, version: string): void {
  program
    .command('backup')
    .description('Back up the SQLite database of an app, running or stopped, to a file.')
    .argument('<backup-file>', 'the file to write, e.g. backups/ninepoint-2026-05-01.db')
    .option('--db <file>', 'SQLite database file, as given to serve', DEFAULT_DB)
    .option('--force', 'replace the backup file if it exists')
    .option(
      '--file-storage <folder>',
      'where the app keeps uploaded files, as given to serve (default: FILE_STORAGE, else files/ beside --db)',
    )
    .version(version)
    .addHelpText('after', BACKUP_HELP)
    .action(async (file: string, options: BackupOptions) => {
      if (ctx.io.env.DATABASE_URL) throw new UsageError(postgresHelp('backup'));
      const source = resolve(ctx.io.cwd, options.db);
      const destination = resolve(ctx.io.cwd, file);
      let summary: DatabaseSummary;
      try {
        summary = await backupSqlite(source, destination, { overwrite: options.force === true });
      } catch (error) {
        if (!(error instanceof BackupError)) throw error;
        ctx.io.stderr.write(`error: ${error.message}\nNo backup was written.\n`);
        ctx.exitCode = EXIT.refused;
        return;
      }
      ctx.io.stdout.write(
        `Backed up "${summary.product}" (SQLite: ${source}) to ${destination}:\n${formatSummary(summary)}`,
      );
      const storage = options.fileStorage ?? (ctx.io.env.FILE_STORAGE?.trim() || undefined);
      if (storage?.startsWith('s3://')) {
        ctx.io.stdout.write(
          `Uploaded files are in ${storage}: back the bucket up with its own versioning or replication.\n`,
        );
      } else {
        const folder = storage ? resolve(ctx.io.cwd, storage) : defaultFilesFolder({ dbPath: source });
        const copied = await backupFiles(destination, folder, backupFilesFolder(destination));
        if (copied.copied + copied.missing > 0) {
          ctx.io.stdout.write(
            `Copied ${plural(copied.copied, 'uploaded file')} (${copied.bytes} bytes) from ${folder} to ${backupFilesFolder(destination)}.\n`,
          );
        }
        if (copied.missing > 0) {
          ctx.io.stderr.write(
            `warning: ${plural(copied.missing, 'file')} the backup names were removed from ${folder} after the snapshot (replaced or deleted since): back up again for a copy with every file.\n`,
          );
        }
      }
      ctx.io.stdout.write(`Restore it with: npx ninepoint restore ${shellWord(file)} --db ${shellWord(options.db)}\n`);
    });
}

/** Size, tables, records per entity and users of a database, for people. */
export function formatSummary(summary: DatabaseSummary): string {
  const records = summary.records.reduce((sum, r) => sum + r.count, 0);
  const rows = [...summary.records.map((r) => [r.entity, String(r.count)]), ['(users)', String(summary.users)]];
  const table = formatColumns(['entity', 'records'], rows)
    .split('\n')
    .map((line) => (line ? `  ${line}` : line))
    .join('\n');
  return (
    `  ${formatBytes(summary.bytes)}, ${plural(summary.tables, 'table')}, ${plural(records, 'record')}, ${plural(summary.users, 'user')}; ` +
    `spec last applied ${formatTime(summary.appliedAt)}; integrity checked.\n${table}`
  );
}

/** A file size for people: 812 B, 196 KB, 12.4 MB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  return `${(bytes / (1024 * 1024 * 1024)).toFixed(1)} GB`;
}
