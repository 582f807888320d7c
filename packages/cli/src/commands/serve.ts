import { resolve } from 'node:path';
import { serve } from '@ninepoint/server';
import { blankSpec } from '@ninepoint/spec';
import type { Command } from 'commander';
import type { Context } from '../context.ts';
import { UsageError } from '../usage-error.ts';

/**
 * `ninepoint serve`: runs a spec as an app. Without a spec it serves the blank spec, a product
 * with no visible behaviour, which is what a new project starts from.
 */
export function registerServe(program: Command, ctx: Context, version: string): void {
  program
    .command('serve')
    .description('Serve a spec as a running app: REST API, OpenAPI document and database.')
    .argument('[spec.md]', 'the spec to serve (default: the blank spec)')
    .option('--port <port>', 'port to listen on (0 picks a free one)', '3000')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--db <file>', 'SQLite database file (created if missing)', 'ninepoint.db')
    .option(
      '--allow-destructive',
      'migrate even when that hides or invalidates stored data (removed fields and entities keep their data)',
    )
    .version(version)
    .action(
      async (
        file: string | undefined,
        options: { port: string; host: string; db: string; allowDestructive?: boolean },
      ) => {
        const port = Number(options.port);
        if (!Number.isInteger(port) || port < 0 || port > 65535) {
          throw new UsageError(`--port must be a whole number from 0 to 65535, not "${options.port}".`);
        }
        const result = await serve({
          specPath: file ? resolve(ctx.io.cwd, file) : '(blank spec)',
          ...(file ? {} : { source: blankSpec() }),
          port,
          host: options.host,
          dbPath: resolve(ctx.io.cwd, options.db),
          allowDestructive: options.allowDestructive === true,
          print: (line) => ctx.io.stdout.write(`${line}\n`),
          printError: (line) => ctx.io.stderr.write(`${line}\n`),
        });
        if (!result.ok) ctx.exitCode = result.exitCode;
      },
    );
}
