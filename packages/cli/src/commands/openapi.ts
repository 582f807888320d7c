import { compileApp } from '@ninepoint/server';
import type { Command } from 'commander';
import type { Context } from '../context.ts';
import { loadCheckedSpec } from '../load-spec.ts';

/** `ninepoint openapi`: the OpenAPI 3.1 document the server would serve, from the same compiled artefacts. */
export function registerOpenApi(program: Command, ctx: Context, version: string): void {
  program
    .command('openapi')
    .description('Print the OpenAPI 3.1 document of the app a spec becomes.')
    .argument('<spec.md>', 'the spec')
    .version(version)
    .action(async (file: string) => {
      const model = await loadCheckedSpec(ctx, file);
      if (model) ctx.io.stdout.write(`${JSON.stringify(compileApp(model).openapi, null, 2)}\n`);
    });
}
