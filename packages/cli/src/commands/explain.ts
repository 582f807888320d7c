import { checkSpec, explainModel } from '@ninepoint/spec';
import type { Command } from 'commander';
import type { Context } from '../context.ts';
import { readSpec } from '../files.ts';
import { wantsColor } from '../io.ts';
import { paint } from '../paint.ts';
import { formatDiagnostics, plural } from '../report-text.ts';
import { shellWord } from '../shell-word.ts';
import { EXIT } from '../usage-error.ts';

/**
 * `ninepoint explain`: the model read back as sentences, to confirm the spec says what its author
 * meant. Errors go to stderr so stdout stays the explanation alone, fit to redirect to a file.
 */
export function registerExplain(program: Command, ctx: Context, version: string): void {
  program
    .command('explain')
    .description('Print the checked model as readable text: every point, entity, transition and permission.')
    .argument('<spec.md>', 'the spec to explain')
    .version(version)
    .action(async (file: string) => {
      const source = await readSpec(ctx.io.cwd, file);
      const { model, diagnostics, ok } = checkSpec(source);
      ctx.io.stdout.write(explainModel(model));
      if (ok) return;
      const errors = diagnostics.filter((d) => d.severity === 'error');
      ctx.io.stderr.write(
        `\n${formatDiagnostics(file, source, errors, paint(wantsColor(ctx.io.stderr, ctx.io.env)))}` +
          `${file} has ${plural(errors.length, 'error')}; the explanation shows only what could be read. ` +
          `Run: npx ninepoint check ${shellWord(file)}\n`,
      );
      ctx.exitCode = EXIT.specHasErrors;
    });
}
