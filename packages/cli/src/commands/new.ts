import { cp, readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { blankSpec, checkSpec } from '@ninepoint/spec';
import type { Command } from 'commander';
import type { Context } from '../context.ts';
import { writeNewFile } from '../files.ts';
import { docsPage, EXAMPLES_FOLDER, exampleNames } from '../package-files.ts';
import { shellWord } from '../shell-word.ts';
import { UsageError } from '../usage-error.ts';

interface NewOptions {
  name?: string;
  example?: string;
  force?: boolean;
}

/** `ninepoint new`: every product starts as the blank spec, valid and runnable, so the first step cannot fail. */
export function registerNew(program: Command, ctx: Context, version: string): void {
  program
    .command('new')
    .description('Write a blank spec: nine points, all not shown. It is valid and runs as it is.')
    .argument('[file]', 'where to write it', 'spec.md')
    .option('--name <product>', 'the product name, written as the title', 'New product')
    .option('--example <name>', `start from a whole example instead: ${exampleNames().join(', ')}`)
    .option('-f, --force', 'overwrite the file if it exists')
    .version(version)
    .action(async (file: string, options: NewOptions) => {
      if (options.example !== undefined) {
        await writeExample(ctx, file, options.example, options.force === true);
        return;
      }
      const name = (options.name ?? '').trim();
      if (name === '' || /[\r\n]/.test(name)) {
        throw new UsageError('--name needs a product name on one line, e.g. --name "Lending desk".');
      }
      await writeNewFile(ctx.io.cwd, file, blankSpec(name), options.force === true);
      ctx.io.stdout.write(
        `Wrote ${file}: the spec of "${name}", nine points, all not shown.\n` +
          `Next: describe what the product does in point 1 (the format: ${docsPage('spec-format.md', ctx.io.cwd)}), then run\n\n  npx ninepoint check ${shellWord(file)}\n`,
      );
    });
}

/**
 * Writes an example the CLI carries as `file`, with the TypeScript modules beside it that its
 * point 7 names (`quotes/`, and the types they import), so that it checks and serves as it is.
 */
async function writeExample(ctx: Context, file: string, example: string, force: boolean): Promise<void> {
  const names = exampleNames();
  if (!names.includes(example)) {
    throw new UsageError(`there is no example "${example}"; the examples are ${names.join(', ')}.`);
  }
  const source = await readFile(join(EXAMPLES_FOLDER, `${example}.md`), 'utf8');
  // Its modules (point 7's `code …`) and the types they import, named as the spec names them.
  const companions = [example, `${example}.types.ts`];
  const beside: string[] = [];
  for (const name of companions) if (await exists(join(EXAMPLES_FOLDER, name))) beside.push(name);
  const folder = dirname(resolve(ctx.io.cwd, file));
  if (!force) {
    for (const name of beside) {
      if (await exists(join(folder, name))) {
        throw new UsageError(
          `${join(dirname(file), name)} already exists; pass --force to overwrite it, or write the example elsewhere.`,
        );
      }
    }
  }
  await writeNewFile(ctx.io.cwd, file, source, force);
  for (const name of beside)
    await cp(join(EXAMPLES_FOLDER, name), join(folder, name), { recursive: true, force: true });
  const { model } = checkSpec(source);
  const role = model.roles.find((r) => r.name !== 'anyone')?.name;
  ctx.io.stdout.write(
    `Wrote ${file}: the ${example} example, "${model.product.name}"${beside.length > 0 ? `, with ${beside.map((n) => (n === example ? `${n}/` : n)).join(' and ')} beside it` : ''}.\n` +
      'Serve it, then sign in as someone you add:\n\n' +
      `  npx ninepoint serve ${shellWord(file)}\n` +
      (role ? `  npx ninepoint users add you@example.org ${shellWord(file)} --role ${role}\n` : '') +
      `\nThe format is described in ${docsPage('spec-format.md', ctx.io.cwd)}.\n`,
  );
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
