import { basename } from 'node:path';
import { compileApp, typedClient } from '@ninepoint/server';
import { effectiveCalls, errorCatalogue } from '@ninepoint/spec';
import type { Command } from 'commander';
import type { Context } from '../context.ts';
import { writeNewFile } from '../files.ts';
import { loadCheckedSpec } from '../load-spec.ts';
import { plural } from '../report-text.ts';

interface ClientOptions {
  out?: string;
}

/**
 * `ninepoint client`: a typed TypeScript client of the app's API (records, filters, transitions,
 * the catalogue's codes, sign-in, live events) over `fetch`, from the route table the server
 * serves. Written again whenever the spec changes; it is never edited by hand.
 */
export function registerClient(program: Command, ctx: Context, version: string): void {
  program
    .command('client')
    .description("Write a typed TypeScript client of the app's API, needing nothing but fetch.")
    .argument('<spec.md>', 'the spec')
    .option('--out <file>', 'where to write it (default: print it)')
    .version(version)
    .action(async (file: string, options: ClientOptions) => {
      const model = await loadCheckedSpec(ctx, file);
      if (!model) return;
      const { routes } = compileApp(model).routeTable;
      const text = typedClient(model, routes, basename(file));
      if (options.out === undefined) {
        ctx.io.stdout.write(text);
        return;
      }
      await writeNewFile(ctx.io.cwd, options.out, text, true);
      // The custom calls (`code …`) are served beside the route table, and the client has them too.
      const calls = [...routes, ...effectiveCalls(model).filter((c) => c.action.kind === 'code')];
      const entities = new Set(calls.map((c) => c.action.entity)).size;
      ctx.io.stdout.write(
        `Wrote ${options.out}: ${entities} ${entities === 1 ? 'entity' : 'entities'}, ${plural(calls.length, 'call')}, ${plural(errorCatalogue(model).length, 'error code')}.\n` +
          `Use it with: import { createClient } from './${basename(options.out)}'; const api = createClient({ baseUrl, token });\n`,
      );
    });
}
