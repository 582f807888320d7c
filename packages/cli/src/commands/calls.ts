import { callsDeclared, effectiveCalls, formatCallsTable } from '@ninepoint/spec';
import type { Command } from 'commander';
import type { Context } from '../context.ts';
import { loadCheckedSpec } from '../load-spec.ts';

/**
 * `ninepoint calls`: the calls the app serves, as a point-7 table. When point 7 is not shown these
 * are the derived conventional calls, printed ready to paste into the spec.
 */
export function registerCalls(program: Command, ctx: Context, version: string): void {
  program
    .command('calls')
    .description('Print the calls the app serves as a Markdown table (derived when point 7 is not shown).')
    .argument('<spec.md>', 'the spec')
    .version(version)
    .action(async (file: string) => {
      const model = await loadCheckedSpec(ctx, file);
      if (!model) return;
      const shown = callsDeclared(model);
      ctx.io.stdout.write(`${formatCallsTable(effectiveCalls(model))}\n`);
      ctx.io.stderr.write(
        shown
          ? 'Point 7 is shown: these are the declared calls.\n'
          : 'Point 7 is not shown: these calls are derived. Paste the table under "## 7. The calls it makes" to declare them.\n',
      );
    });
}
