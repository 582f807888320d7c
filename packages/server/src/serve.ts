import { readFile } from 'node:fs/promises';
import { checkSpec, type Diagnostic } from '@ninepoint/spec';
import type { Logger } from 'pino';
import { MigrationRefusedError } from './compile/migration-plan.ts';
import { SqlSchemaError } from './compile/sql-schema.ts';
import {
  createServer,
  DEFAULT_HOST,
  DEFAULT_PORT,
  defaultLogger,
  type NinepointServer,
  type TrustProxy,
} from './http/server.ts';
import { closeOnSignals } from './http/shutdown.ts';
import { DEFAULT_DB_PATH } from './store/open-store.ts';
import { redact } from './store/postgres/pg-store.ts';

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
  logger?: Logger | false;
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
}

export type ServeResult = { ok: true; server: NinepointServer; url: string } | { ok: false; exitCode: 1 | 2 };

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

  const dbPath = options.dbPath ?? DEFAULT_DB_PATH;
  const logger = options.logger ?? defaultLogger();
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
    });
  } catch (error) {
    const code = String((error as { code?: unknown }).code ?? '');
    const reason =
      error instanceof SqlSchemaError || error instanceof MigrationRefusedError
        ? error.message
        : code.startsWith('SQLITE_') || code.startsWith('E') || /^[0-9A-Z]{5}$/.test(code)
          ? `cannot open the database "${databaseUrl ? redact(databaseUrl) : dbPath}": ${describe(error)}.`
          : `cannot start: ${describe(error)}.`;
    printError(`Ninepoint: ${reason}`);
    return { ok: false, exitCode: 1 };
  }
  const port = options.port ?? DEFAULT_PORT;
  const host = options.host ?? DEFAULT_HOST;
  let url: string;
  try {
    url = await server.listen({ port, host });
  } catch (error) {
    await server.close();
    const inUse = (error as { code?: string }).code === 'EADDRINUSE';
    printError(
      inUse
        ? `Ninepoint: port ${port} on ${host} is in use; pass another with --port.`
        : `Ninepoint: cannot listen on ${host}:${port}: ${describe(error)}.`,
    );
    return { ok: false, exitCode: 1 };
  }
  if (options.handleSignals ?? true) closeOnSignals(server, logger ? { logger } : {});
  const where = server.store.dialect === 'postgres' ? `PostgreSQL: ${server.store.location}` : `SQLite: ${dbPath}`;
  print(`Ninepoint: serving "${model.product.name}" at ${url} (${where})`);
  return { ok: true, server, url };
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
