import { formatPermissionMatrix, permissionMatrix, specDiagrams } from '@ninepoint/spec';
import type { Command } from 'commander';
import type { Context } from '../context.ts';
import { loadCheckedSpec } from '../load-spec.ts';
import { UsageError } from '../usage-error.ts';

const KINDS = ['entities', 'states', 'permissions'] as const;
type Kind = (typeof KINDS)[number];

/**
 * `ninepoint diagram`: the Studio's pictures as Markdown for docs: the entity-relationship
 * diagram and a state diagram per machine as Mermaid blocks (which GitHub and most doc sites
 * draw), and the permission matrix as a table.
 */
export function registerDiagram(program: Command, ctx: Context, version: string): void {
  program
    .command('diagram')
    .description('Print the entity and state diagrams as Mermaid, and the permission matrix, as Markdown.')
    .argument('<spec.md>', 'the spec')
    .option('--only <kind>', `one kind of picture: ${KINDS.join(', ')}`)
    .version(version)
    .action(async (file: string, options: { only?: string }) => {
      const only = options.only;
      if (only !== undefined && !(KINDS as readonly string[]).includes(only)) {
        throw new UsageError(`--only must be one of ${KINDS.join(', ')}, not "${only}".`);
      }
      const wanted = (kind: Kind) => only === undefined || only === kind;
      const model = await loadCheckedSpec(ctx, file);
      if (!model) return;
      const parts: string[] = [];
      for (const diagram of specDiagrams(model)) {
        if (!wanted(diagram.kind)) continue;
        parts.push(`## ${diagram.title}\n\n\`\`\`mermaid\n${diagram.mermaid}\n\`\`\``);
      }
      if (wanted('permissions') && model.entities.length > 0) {
        const matrix = permissionMatrix(model);
        const note = matrix.derived
          ? '\n\nPoint 6 is not shown: every signed-in user may do everything, visitors nothing.'
          : '';
        parts.push(`## Permissions\n\n${formatPermissionMatrix(matrix)}${note}`);
      }
      if (parts.length === 0) {
        ctx.io.stderr.write('Nothing to draw: the spec has no entities yet (point 3 is not shown).\n');
        return;
      }
      ctx.io.stdout.write(`${parts.join('\n\n')}\n`);
    });
}
