import { blankSpec } from '@ninepoint/spec';
import type { Command } from 'commander';
import type { Context } from '../context.ts';
import { writeNewFile } from '../files.ts';
import { shellWord } from '../shell-word.ts';
import { UsageError } from '../usage-error.ts';

interface NewOptions {
  name?: string;
  force?: boolean;
}

/** `ninepoint new`: every product starts as the blank spec, valid and runnable, so the first step cannot fail. */
export function registerNew(program: Command, ctx: Context, version: string): void {
  program
    .command('new')
    .description('Write a blank spec: nine points, all not shown. It is valid and runs as it is.')
    .argument('[file]', 'where to write it', 'spec.md')
    .option('--name <product>', 'the product name, written as the title', 'New product')
    .option('-f, --force', 'overwrite the file if it exists')
    .version(version)
    .action(async (file: string, options: NewOptions) => {
      const name = (options.name ?? '').trim();
      if (name === '' || /[\r\n]/.test(name)) {
        throw new UsageError('--name needs a product name on one line, e.g. --name "Lending desk".');
      }
      await writeNewFile(ctx.io.cwd, file, blankSpec(name), options.force === true);
      ctx.io.stdout.write(
        `Wrote ${file}: the spec of "${name}", nine points, all not shown.\n` +
          `Next: describe what the product does in point 1, then run\n\n  npx ninepoint check ${shellWord(file)}\n`,
      );
    });
}
