import { checkSpec, type Model } from '@ninepoint/spec';
import type { Context } from './context.ts';
import { readSpec } from './files.ts';
import { wantsColor } from './io.ts';
import { paint } from './paint.ts';
import { formatDiagnostics, plural } from './report-text.ts';
import { shellWord } from './shell-word.ts';
import { EXIT } from './usage-error.ts';

/**
 * Reads and checks a spec for a command that needs a model without errors. On errors it prints
 * them to stderr, sets exit code 1 and returns null, so stdout stays empty for redirection.
 */
export async function loadCheckedSpec(ctx: Context, file: string): Promise<Model | null> {
  const source = await readSpec(ctx.io.cwd, file);
  const { model, diagnostics, ok } = checkSpec(source);
  if (ok) return model;
  const errors = diagnostics.filter((d) => d.severity === 'error');
  ctx.io.stderr.write(
    `${formatDiagnostics(file, source, errors, paint(wantsColor(ctx.io.stderr, ctx.io.env)))}` +
      `${file} has ${plural(errors.length, 'error')}; fix ${errors.length === 1 ? 'it' : 'them'} first (npx ninepoint check ${shellWord(file)}).\n`,
  );
  ctx.exitCode = EXIT.specHasErrors;
  return null;
}
