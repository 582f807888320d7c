import { dirname, resolve } from 'node:path';
import { loadModules } from '@ninepoint/server';
import { checkModules, checkSpec, codeNeeds, summarizePoints } from '@ninepoint/spec';
import type { Command } from 'commander';
import type { Context } from '../context.ts';
import { readSpec } from '../files.ts';
import { wantsColor } from '../io.ts';
import { paint } from '../paint.ts';
import { formatCheckJson, toCheckJson } from '../report-json.ts';
import { formatCheckReport } from '../report-text.ts';
import { EXIT } from '../usage-error.ts';

interface CheckOptions {
  json?: boolean;
}

/** `ninepoint check`: the compiler pass. Exit 1 on errors so CI fails; warnings alone do not fail a build. */
export function registerCheck(program: Command, ctx: Context, version: string): void {
  program
    .command('check')
    .description('Check a spec like a compiler: diagnostics with line and column, then a nine-point summary.')
    .argument('<spec.md>', 'the spec to check')
    .option('--json', 'print the result as one JSON document (stable, versioned) instead of text')
    .version(version)
    .action(async (file: string, options: CheckOptions) => {
      const source = await readSpec(ctx.io.cwd, file);
      const checked = checkSpec(source);
      const { model } = checked;
      // The modules point 7 names, looked for beside the spec (the spec package never reads files):
      // loading one runs its top level, as serving it would.
      const modules =
        codeNeeds(model).length > 0
          ? checkModules(model, (await loadModules(model, dirname(resolve(ctx.io.cwd, file)))).facts)
          : [];
      const diagnostics = [...checked.diagnostics, ...modules].sort(
        (a, b) => a.line - b.line || a.column - b.column || a.code.localeCompare(b.code),
      );
      const ok = !diagnostics.some((d) => d.severity === 'error');
      const points = summarizePoints(model);
      ctx.io.stdout.write(
        options.json === true
          ? formatCheckJson(toCheckJson(file, points, diagnostics))
          : formatCheckReport(file, source, points, diagnostics, paint(wantsColor(ctx.io.stdout, ctx.io.env))),
      );
      ctx.exitCode = ok ? EXIT.ok : EXIT.specHasErrors;
    });
}
