import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { checkSpec, type Diagnostic, type Model } from '@ninepoint/spec';
import type { Logger } from 'pino';
import { MigrationRefusedError } from '../compile/migration-report.ts';
import { SqlSchemaError } from '../compile/sql-schema.ts';
import { defaultLogFormat, type LogFormat, LogLevelError } from '../http/logging.ts';
import { closeOnSignals } from '../http/shutdown.ts';
import { type MailSettings, MailSettingsError, mailSettingsFromEnv } from '../mail/mail-settings.ts';
import { smtpMailer } from '../mail/mailer.ts';
import {
  type MailOptions,
  type OidcSettings,
  OidcSettingsError,
  oidcSettingsFromEnv,
  SecretKeySettingError,
  secretKeyFromEnv,
} from '../people/index.ts';
import { DEFAULT_DB_PATH } from '../store/open-store.ts';
import { redact } from '../store/postgres/pg-store.ts';
import type { Store, Synchronous } from '../store/store.ts';
import {
  CodeModulesError,
  createServer,
  DEFAULT_HOST,
  DEFAULT_PORT,
  defaultLogger,
  type NinepointServer,
  type TrustProxy,
} from './server.ts';

export interface ServeOptions {
  /** The spec file; also names the spec in messages when `source` is given. */
  specPath: string;
  /** The spec's text, when the caller already has it (e.g. the built-in blank spec). */
  source?: string;
  /** Default 3000; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1: reachable from this machine only. */
  host?: string;
  /** Default `data/ninepoint.db`, relative to the working directory. */
  dbPath?: string;
  /** Default: the `DATABASE_URL` environment variable. */
  databaseUrl?: string;
  /**
   * Where uploaded files go (`--file-storage`, else `FILE_STORAGE`): a folder, or `s3://bucket/prefix`.
   * Default: `files/` beside the SQLite database, `data/files` with PostgreSQL.
   */
  fileStorage?: string;
  /** Default: `defaultLogger(logFormat)`, at `LOG_LEVEL`. */
  logger?: Logger | false;
  /**
   * How start-up lines are said: printed for a person (`pretty`) or, with a logger, logged as
   * records among the JSON lines (`json`). Default: pretty when stdout is a terminal.
   */
  logFormat?: LogFormat;
  /**
   * SQLite only: `full` has every commit reach the disk before its request is answered, so a power
   * loss cannot take back a write that was acknowledged (`--sqlite-synchronous`,
   * `SQLITE_SYNCHRONOUS`; docs/reliability.md). Default `normal`.
   */
  sqliteSynchronous?: Synchronous;
  /** Apply migration steps that could hide or invalidate stored data (`--allow-destructive`). Default false. */
  allowDestructive?: boolean;
  /** Development mode (`ninepoint dev`): demo users and dev sign-in, see `ServerOptions.devMode`. Default false. */
  devMode?: boolean;
  /** Close gracefully on SIGTERM and SIGINT, then exit (default true). */
  handleSignals?: boolean;
  /** Where the start-up line goes (default stdout). */
  print?: (line: string) => void;
  /** Where the reasons for not starting go (default stderr). */
  printError?: (line: string) => void;
  /**
   * Where the email settings are read from (`SMTP_URL` or `SMTP_HOST`…, `MAIL_FROM`, `APP_URL`;
   * see `mail/mail-settings.ts`). Default `process.env`.
   */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Where a page of the docs is, for the hints said at start-up: the CLI knows where the docs it
   * carries are installed. Default `docs/<page>`, as in a clone of the repository.
   */
  docsPage?: (page: string) => string;
}

/**
 * Says something once at start-up (where it serves, what to do next): a `Ninepoint: …` line for a
 * person, or a log record with `fields` among JSON logs.
 */
export type Say = (text: string, fields?: Record<string, unknown>, level?: 'info' | 'warn') => void;

export type ServeResult = { ok: true; server: NinepointServer; url: string; say: Say } | { ok: false; exitCode: 1 | 2 };

/**
 * `ninepoint serve`: reads and checks the spec, and serves it when it has no errors. It never
 * exits the process itself: on failure it prints why and returns the exit code to use
 * (2 for a request it cannot carry out as asked, 1 for a spec with errors or a server that could not start).
 *
 * @example
 * const result = await serve({ specPath: 'examples/blank.md' });
 * if (!result.ok) process.exit(result.exitCode);
 */
export async function serve(options: ServeOptions): Promise<ServeResult> {
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const printError = options.printError ?? ((line: string) => process.stderr.write(`${line}\n`));
  const format = options.logFormat ?? defaultLogFormat();
  const logger = loggerOf(options, format, printError);
  if (logger === null) return { ok: false, exitCode: 2 };
  const read = await readServable(options, printError);
  if (!read.ok) return read;
  const { model, databaseUrl } = read;
  const settings = readMailSettings(options.env ?? process.env, printError, { appUrlOptional: false });
  if (settings === null) return { ok: false, exitCode: 2 };
  const { smtp, from, appUrl } = settings;
  const oidc = readOidcSettings(options.env ?? process.env, appUrl, printError);
  if (oidc === undefined) return { ok: false, exitCode: 2 };
  const secretKey = readSecretKey(options.env ?? process.env, printError);
  if (secretKey === undefined) return { ok: false, exitCode: 2 };
  const mail: MailOptions | undefined =
    smtp && from && appUrl ? { mailer: smtpMailer(smtp, from), appUrl: () => appUrl } : undefined;

  const dbPath = options.dbPath ?? DEFAULT_DB_PATH;
  let server: NinepointServer;
  try {
    server = await createServer({
      model,
      dbPath,
      databaseUrl,
      logger,
      allowDestructive: options.allowDestructive ?? false,
      devMode: options.devMode ?? false,
      trustProxy: trustProxyFromEnv(process.env.TRUST_PROXY),
      // The modules point 7 names are beside the spec.
      codeFolder: dirname(resolve(options.specPath)),
      ...(options.sqliteSynchronous ? { sqlite: { synchronous: options.sqliteSynchronous } } : {}),
      ...(mail ? { mail } : {}),
      oidc,
      ...(options.fileStorage ? { fileStorage: options.fileStorage } : {}),
      filesEnv: { ...process.env, ...(options.env ?? {}) },
      secretKey,
      appUrl,
    });
  } catch (error) {
    printError(`Ninepoint: ${startFailure(error, databaseUrl ? redact(databaseUrl) : dbPath)}`);
    return { ok: false, exitCode: 1 };
  }
  const port = options.port ?? DEFAULT_PORT;
  const host = options.host ?? DEFAULT_HOST;
  let url: string;
  try {
    url = await server.listen({ port, host });
  } catch (error) {
    await server.close();
    printError(`Ninepoint: ${listenFailure(error, host, port)}`);
    return { ok: false, exitCode: 1 };
  }
  if (options.handleSignals ?? true) closeOnSignals(server, logger ? { logger } : {});
  const say: Say = (text, fields = {}, level = 'info') => {
    if (format === 'json' && logger) logger[level](fields, text);
    else print(`Ninepoint: ${text}`);
  };
  const database = where(server.store, dbPath);
  say(`serving "${model.product.name}" at ${url} (${database})`, { url, spec: model.product.name, database });
  if (server.files) {
    const files = server.files.storage.description;
    say(`uploaded files are kept in ${files}`, { files });
  }
  if (mail && smtp) verifyMailServer(mail, smtp.host, logger);
  else {
    say(
      `email is not configured: password reset links are not sent (set SMTP_URL, MAIL_FROM and APP_URL; see ${(options.docsPage ?? ((page) => `docs/${page}`))('sign-in.md')})`,
      {},
      'warn',
    );
  }
  return { ok: true, server, url, say };
}

/**
 * The logger `serve` and `dev` use: the one given, or one at `LOG_LEVEL`; null (having said why)
 * when `LOG_LEVEL` is not a level.
 */
export function loggerOf(
  options: Pick<ServeOptions, 'logger'>,
  format: LogFormat,
  printError: (line: string) => void,
): Logger | false | null {
  if (options.logger !== undefined) return options.logger;
  try {
    return defaultLogger(format);
  } catch (error) {
    if (!(error instanceof LogLevelError)) throw error;
    printError(`Ninepoint: ${error.message}`);
    return null;
  }
}

/** The email settings, or null after printing why they cannot be used (exit code 2). */
export function readMailSettings(
  env: Readonly<Record<string, string | undefined>>,
  printError: (line: string) => void,
  options: { appUrlOptional: boolean },
): MailSettings | null {
  try {
    return mailSettingsFromEnv(env, options);
  } catch (error) {
    if (!(error instanceof MailSettingsError)) throw error;
    printError(`Ninepoint: the email settings cannot be used: ${error.message}`);
    return null;
  }
}

/** `SECRET_KEY` (null: none), or undefined after printing why it cannot be used (exit code 2). */
export function readSecretKey(
  env: Readonly<Record<string, string | undefined>>,
  printError: (line: string) => void,
): string | null | undefined {
  try {
    return secretKeyFromEnv(env);
  } catch (error) {
    if (!(error instanceof SecretKeySettingError)) throw error;
    printError(`Ninepoint: ${error.message}`);
    return undefined;
  }
}

/** The OpenID Connect settings (null: none), or undefined after printing why they cannot be used (exit code 2). */
export function readOidcSettings(
  env: Readonly<Record<string, string | undefined>>,
  appUrl: string | null,
  printError: (line: string) => void,
): OidcSettings | null | undefined {
  try {
    return oidcSettingsFromEnv(env, appUrl);
  } catch (error) {
    if (!(error instanceof OidcSettingsError)) throw error;
    printError(`Ninepoint: the single sign-on settings cannot be used: ${error.message}`);
    return undefined;
  }
}

/** Says in the log whether the SMTP server answers, without holding up the start. */
export function verifyMailServer(mail: MailOptions, host: string, logger: Logger | false): void {
  mail.mailer.verify().then(
    () => {
      if (logger) logger.info({ host }, 'email: the SMTP server answers');
    },
    (error: unknown) => {
      if (logger)
        logger.warn(
          { host, reason: describe(error) },
          'email: the SMTP server does not answer; mails will fail until it does',
        );
    },
  );
}

/**
 * Reads and checks the spec `serve` and `dev` start with, printing its diagnostics; answers its
 * model, or the exit code when it cannot be served (2: unreadable or a bad DATABASE_URL; 1: errors).
 */
export async function readServable(
  options: Pick<ServeOptions, 'specPath' | 'source' | 'databaseUrl'>,
  printError: (line: string) => void,
): Promise<
  | { ok: true; source: string; model: Model; diagnostics: Diagnostic[]; databaseUrl: string | undefined }
  | { ok: false; exitCode: 1 | 2 }
> {
  const databaseUrl = (options.databaseUrl ?? process.env.DATABASE_URL) || undefined;
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    printError(
      'Ninepoint: DATABASE_URL must be a PostgreSQL URL (postgres://user@host:5432/database); ' +
        'unset it to serve from a SQLite file (--db).',
    );
    return { ok: false, exitCode: 2 };
  }
  let source: string;
  try {
    source = options.source ?? (await readFile(options.specPath, 'utf8'));
  } catch (error) {
    printError(`Ninepoint: cannot read the spec "${options.specPath}": ${describe(error)}.`);
    return { ok: false, exitCode: 2 };
  }
  const { model, diagnostics, ok } = checkSpec(source);
  for (const d of diagnostics) printError(formatDiagnostic(options.specPath, d));
  if (!ok) {
    const errors = diagnostics.filter((d) => d.severity === 'error').length;
    printError(`Ninepoint: "${options.specPath}" has ${errors} error${errors === 1 ? '' : 's'}; not serving it.`);
    return { ok: false, exitCode: 1 };
  }
  return { ok: true, source, model, diagnostics, databaseUrl };
}

/** Why `createServer` failed, in a sentence: the refused migration, the database, or the error. */
export function startFailure(error: unknown, database: string): string {
  const code = String((error as { code?: unknown }).code ?? '');
  if (error instanceof CodeModulesError) return `the modules the spec names are not ready:\n${error.message}`;
  return error instanceof SqlSchemaError || error instanceof MigrationRefusedError
    ? error.message
    : code.startsWith('SQLITE_') || code.startsWith('E') || /^[0-9A-Z]{5}$/.test(code)
      ? `cannot open the database "${database}": ${describe(error)}.`
      : `cannot start: ${describe(error)}.`;
}

/** Why listening failed, with what to do about a port in use. */
export function listenFailure(error: unknown, host: string, port: number): string {
  return (error as { code?: string }).code === 'EADDRINUSE'
    ? `port ${port} on ${host} is in use; pass another with --port.`
    : `cannot listen on ${host}:${port}: ${describe(error)}.`;
}

/** "SQLite: data/app.db" or "PostgreSQL: host/db", for start-up lines. */
export function where(store: Pick<Store, 'dialect' | 'location'>, dbPath: string): string {
  return store.dialect === 'postgres' ? `PostgreSQL: ${store.location}` : `SQLite: ${dbPath}`;
}

/** `spec.md:12:3: error [unknown-entity] …`, then the hint indented. */
export function formatDiagnostic(path: string, d: Diagnostic): string {
  const head = `${path}:${d.line}:${d.column}: ${d.severity} [${d.code}] ${d.message}`;
  return d.hint ? `${head}\n    ${d.hint}` : head;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * `TRUST_PROXY` as Fastify's `trustProxy`: `true`/`false`, a hop count, or a comma-separated
 * list of addresses or CIDRs; unset or empty trusts nothing.
 */
export function trustProxyFromEnv(value: string | undefined): TrustProxy {
  const text = value?.trim() ?? '';
  if (text === '' || text === 'false') return false;
  if (text === 'true') return true;
  if (/^\d+$/.test(text)) {
    // The n proxies nearest the server are trusted, as Fastify's hop count does.
    const hops = Number(text);
    return (_address, hop) => hop < hops;
  }
  return text;
}
