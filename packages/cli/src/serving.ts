import { resolve } from 'node:path';
import {
  createLogger,
  DEFAULT_HOST,
  DEFAULT_PORT,
  defaultLogFormat,
  LOG_FORMATS,
  type LogFormat,
  LogLevelError,
  parseLogLevel,
  type ServeOptions,
  type ServeResult,
  SYNCHRONOUS_MODES,
  type Synchronous,
  serve,
} from '@ninepoint/server';
import { blankSpec } from '@ninepoint/spec';
import { type Command, Option } from 'commander';
import type { Context } from './context.ts';
import { readSpec } from './files.ts';
import { wantsColor } from './io.ts';
import { docsPage } from './package-files.ts';
import { UsageError } from './usage-error.ts';

/** The SQLite file of `serve`, `dev`, `migrate`, `users` and `tokens` when `--db` is not given. */
export const DEFAULT_DB = 'ninepoint.db';

/** The options `serve` and `dev` share. */
export interface ServingOptions {
  /** Absent: PORT, else 3000. */
  port?: string;
  /** Absent: HOST, else 127.0.0.1. */
  host?: string;
  db: string;
  allowDestructive?: boolean;
  logFormat?: LogFormat;
  /** Absent: SQLITE_SYNCHRONOUS, else normal. */
  sqliteSynchronous?: Synchronous;
  /** Absent: FILE_STORAGE, else `files/` beside the database. */
  fileStorage?: string;
}

/** The environment `serve` and `dev` read, for their help. */
export const SERVING_ENV_HELP = `
Environment:
  DATABASE_URL  postgres://user:password@host:5432/database: serve from PostgreSQL
                instead of the SQLite file (--db is then ignored)
  PORT, HOST    where to listen when --port or --host is not given
  TRUST_PROXY   behind a reverse proxy that terminates HTTPS: true, a hop count
                (1) or the proxy's addresses/CIDRs; its X-Forwarded-* headers are
                then believed (client address, https: Secure cookies, HSTS)
  SMTP_URL, MAIL_FROM, APP_URL
                how the app sends mail (password reset, sign-up, invitations) and
                the address its links point to (docs/sign-in.md)
  OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OIDC_NAME
                sign-in with an OpenID Connect provider (needs APP_URL)
  FILE_STORAGE  where uploaded files go when --file-storage is not given: a folder,
                or s3://bucket/prefix (with AWS_REGION, AWS_ACCESS_KEY_ID,
                AWS_SECRET_ACCESS_KEY and S3_ENDPOINT; docs/deploy.md#file-storage)
  SECRET_KEY    at least 32 characters: seals two-factor secrets in the database,
                so a copy of it alone cannot make sign-in codes
  SQLITE_SYNCHRONOUS
                normal (default) or full: with full every write reaches the disk
                before it is answered (see --sqlite-synchronous)
  LOG_LEVEL     fatal, error, warn, info (default), debug, trace or silent
  NO_COLOR      no colours, even on a terminal`;

/** Adds the options `serve` and `dev` share, with the same defaults, and the environment to the help. */
export function servingOptions(command: Command): Command {
  return command
    .option('--port <port>', 'port to listen on; 0 picks a free one (default: PORT, else 3000)')
    .option('--host <host>', 'address to listen on (default: HOST, else 127.0.0.1)')
    .option('--db <file>', 'SQLite database file (created if missing)', DEFAULT_DB)
    .option(
      '--file-storage <folder or s3://bucket/prefix>',
      'where uploaded files go (default: FILE_STORAGE, else files/ beside the database)',
    )
    .option(
      '--allow-destructive',
      'migrate even when that hides or invalidates stored data (removed fields and entities keep their data)',
    )
    .addOption(
      new Option(
        '--log-format <format>',
        'pretty: one readable line per request; json: one JSON object a line (default: pretty on a terminal, else json)',
      ).choices(LOG_FORMATS),
    )
    .addOption(
      new Option(
        '--sqlite-synchronous <mode>',
        'normal: a killed process loses nothing, a power loss may lose the last writes; full: nothing acknowledged is lost, writes are slower (default: SQLITE_SYNCHRONOUS, else normal)',
      ).choices(SYNCHRONOUS_MODES),
    )
    .addHelpText('after', SERVING_ENV_HELP);
}

/**
 * Where to listen: `--port` and `--host`, else the PORT and HOST environment variables (as
 * container platforms set them), else 127.0.0.1:3000. A port that is not a port is a usage error
 * naming where it came from.
 */
export function listenAddress(
  ctx: Context,
  options: Pick<ServingOptions, 'port' | 'host'>,
): { port: number; host: string } {
  const fromEnv = (name: string) => {
    const value = ctx.io.env[name]?.trim();
    return value ? value : undefined;
  };
  const given = options.port ?? fromEnv('PORT');
  const port = given === undefined ? DEFAULT_PORT : Number(given);
  if (!/^\d+$/.test(given ?? '0') || !Number.isInteger(port) || port > 65535) {
    const source = options.port === undefined ? 'PORT' : '--port';
    throw new UsageError(`${source} must be a whole number from 0 to 65535, not "${given}".`);
  }
  return { port, host: options.host ?? fromEnv('HOST') ?? DEFAULT_HOST };
}

/** `--sqlite-synchronous`, else SQLITE_SYNCHRONOUS (any case), else undefined (normal); another value is a usage error. */
export function sqliteSynchronous(
  ctx: Context,
  options: Pick<ServingOptions, 'sqliteSynchronous'>,
): Synchronous | undefined {
  if (options.sqliteSynchronous) return options.sqliteSynchronous;
  const given = ctx.io.env.SQLITE_SYNCHRONOUS?.trim() ?? '';
  if (given === '') return undefined;
  const mode = SYNCHRONOUS_MODES.find((m) => m === given.toLowerCase());
  if (!mode) throw new UsageError(`SQLITE_SYNCHRONOUS must be normal or full, not "${given}".`);
  return mode;
}

/**
 * Starts serving a spec (the blank spec when `file` is undefined) as `serve` and `dev` do: the
 * start-up line on stdout, why it could not start on stderr (and the exit code set). DATABASE_URL
 * comes from the command's environment. An unreadable spec is the usage error `check` gives, in
 * the same words, before anything starts.
 */
export async function startServing(
  ctx: Context,
  file: string | undefined,
  options: ServingOptions,
  extra: { devMode?: boolean } = {},
): Promise<ServeResult> {
  const settings = serveOptions(ctx, file, options);
  if (file) await readSpec(ctx.io.cwd, file);
  const result = await serve({
    ...settings,
    devMode: extra.devMode === true,
    docsPage: (page) => docsPage(page, ctx.io.cwd),
  });
  if (!result.ok) ctx.exitCode = result.exitCode;
  return result;
}

/** `--file-storage`, else FILE_STORAGE: a folder (relative to where the command runs) or an s3:// address. */
function fileStorage(ctx: Context, options: Pick<ServingOptions, 'fileStorage'>): { fileStorage?: string } {
  const given = options.fileStorage ?? (ctx.io.env.FILE_STORAGE?.trim() || undefined);
  if (given === undefined) return {};
  return { fileStorage: given.startsWith('s3://') ? given : resolve(ctx.io.cwd, given) };
}

/** The server package's options for the command's arguments; a bad `--port` is a usage error. */
export function serveOptions(ctx: Context, file: string | undefined, options: ServingOptions): ServeOptions {
  const { port, host } = listenAddress(ctx, options);
  let level: ReturnType<typeof parseLogLevel>;
  try {
    level = parseLogLevel(ctx.io.env.LOG_LEVEL);
  } catch (error) {
    if (error instanceof LogLevelError) throw new UsageError(error.message);
    throw error;
  }
  const synchronous = sqliteSynchronous(ctx, options);
  const logFormat = options.logFormat ?? defaultLogFormat(ctx.io.stdout);
  const logger = createLogger({
    level,
    format: logFormat,
    color: wantsColor(ctx.io.stdout, ctx.io.env),
    // Pretty lines go where the command prints, so they stay in order with its own lines.
    ...(logFormat === 'pretty' ? { write: (text: string) => ctx.io.stdout.write(text) } : {}),
  });
  return {
    specPath: file ? resolve(ctx.io.cwd, file) : '(blank spec)',
    ...(file ? {} : { source: blankSpec() }),
    port,
    host,
    dbPath: resolve(ctx.io.cwd, options.db),
    databaseUrl: ctx.io.env.DATABASE_URL ?? '',
    ...fileStorage(ctx, options),
    // SMTP_URL or SMTP_HOST…, MAIL_FROM and APP_URL: how the app sends mail; OIDC_…: single sign-on.
    env: ctx.io.env,
    allowDestructive: options.allowDestructive === true,
    ...(synchronous ? { sqliteSynchronous: synchronous } : {}),
    logger,
    logFormat,
    print: (line) => ctx.io.stdout.write(`${line}\n`),
    printError: (line) => ctx.io.stderr.write(`${line}\n`),
  };
}
