import { resolve } from 'node:path';
import {
  createLogger,
  defaultLogFormat,
  LOG_FORMATS,
  type LogFormat,
  LogLevelError,
  parseLogLevel,
  type ServeOptions,
  type ServeResult,
  serve,
} from '@ninepoint/server';
import { blankSpec } from '@ninepoint/spec';
import { type Command, Option } from 'commander';
import type { Context } from './context.ts';
import { wantsColor } from './io.ts';
import { UsageError } from './usage-error.ts';

/** The SQLite file of `serve`, `dev`, `migrate`, `users` and `tokens` when `--db` is not given. */
export const DEFAULT_DB = 'ninepoint.db';

/** The options `serve` and `dev` share. */
export interface ServingOptions {
  port: string;
  host: string;
  db: string;
  allowDestructive?: boolean;
  logFormat?: LogFormat;
}

/** Adds the options `serve` and `dev` share, with the same defaults. */
export function servingOptions(command: Command): Command {
  return command
    .option('--port <port>', 'port to listen on (0 picks a free one)', '3000')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--db <file>', 'SQLite database file (created if missing)', DEFAULT_DB)
    .option(
      '--allow-destructive',
      'migrate even when that hides or invalidates stored data (removed fields and entities keep their data)',
    )
    .addOption(
      new Option(
        '--log-format <format>',
        'pretty: one readable line per request; json: one JSON object a line (default: pretty on a terminal, else json)',
      ).choices(LOG_FORMATS),
    );
}

/**
 * Starts serving a spec (the blank spec when `file` is undefined) as `serve` and `dev` do: the
 * start-up line on stdout, why it could not start on stderr (and the exit code set). DATABASE_URL
 * comes from the command's environment.
 */
export async function startServing(
  ctx: Context,
  file: string | undefined,
  options: ServingOptions,
  extra: { devMode?: boolean } = {},
): Promise<ServeResult> {
  const result = await serve({ ...serveOptions(ctx, file, options), devMode: extra.devMode === true });
  if (!result.ok) ctx.exitCode = result.exitCode;
  return result;
}

/** The server package's options for the command's arguments; a bad `--port` is a usage error. */
export function serveOptions(ctx: Context, file: string | undefined, options: ServingOptions): ServeOptions {
  const port = Number(options.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`--port must be a whole number from 0 to 65535, not "${options.port}".`);
  }
  let level: ReturnType<typeof parseLogLevel>;
  try {
    level = parseLogLevel(ctx.io.env.LOG_LEVEL);
  } catch (error) {
    if (error instanceof LogLevelError) throw new UsageError(error.message);
    throw error;
  }
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
    host: options.host,
    dbPath: resolve(ctx.io.cwd, options.db),
    databaseUrl: ctx.io.env.DATABASE_URL ?? '',
    allowDestructive: options.allowDestructive === true,
    logger,
    logFormat,
    print: (line) => ctx.io.stdout.write(`${line}\n`),
    printError: (line) => ctx.io.stderr.write(`${line}\n`),
  };
}
