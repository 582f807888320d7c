import { basename, dirname, join, resolve } from 'node:path';
import { specTypes, specTypesFile } from '@ninepoint/spec';
import type { Command } from 'commander';
import type { Context } from '../context.ts';
import { writeNewFile } from '../files.ts';
import { loadCheckedSpec } from '../load-spec.ts';

interface TypesOptions {
  out?: string;
}

/**
 * `ninepoint types`: writes the spec's types (records, states, transitions, constants, error
 * codes, and `defineCall`/`defineHook`/`defineJob` typed with them) beside the spec, for the
 * TypeScript modules point 7 names. `ninepoint dev` writes the same file on every save.
 */
export function registerTypes(program: Command, ctx: Context, version: string): void {
  program
    .command('types')
    .description("Write the spec's TypeScript types beside it (spec.types.ts), for the modules point 7 names.")
    .argument('<spec.md>', 'the spec')
    .option('--out <file>', 'where to write them (default: <spec>.types.ts beside the spec)')
    .version(version)
    .action(async (file: string, options: TypesOptions) => {
      const model = await loadCheckedSpec(ctx, file);
      if (!model) return;
      const out = options.out ?? join(dirname(file), specTypesFile(basename(file)));
      await writeNewFile(ctx.io.cwd, out, specTypes(model, basename(file)), true);
      const entities = model.entities.length;
      ctx.io.stdout.write(
        `Wrote ${out}: ${entities} ${entities === 1 ? 'entity' : 'entities'}, ${model.constants.length} constants, ${model.errors.length} error codes of point 8.\n` +
          `Import defineCall, defineHook or defineJob from it in the modules beside ${basename(resolve(ctx.io.cwd, file))}.\n`,
      );
    });
}
