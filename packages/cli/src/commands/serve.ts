import { assignableRoles, isDemoEmail, type NinepointServer } from '@ninepoint/server';
import type { Command } from 'commander';
import type { Context } from '../context.ts';
import { type ServingOptions, servingOptions, startServing } from '../serving.ts';
import { addUserCommand } from './users.ts';

/**
 * `ninepoint serve`: runs a spec as an app. Without a spec it serves the blank spec, a product
 * with no visible behaviour, which is what a new project starts from.
 */
export function registerServe(program: Command, ctx: Context, version: string): void {
  servingOptions(
    program
      .command('serve')
      .description('Serve a spec as a running app: REST API, OpenAPI document and database.')
      .argument('[spec.md]', 'the spec to serve (default: the blank spec)'),
  )
    .version(version)
    .action(async (file: string | undefined, options: ServingOptions) => {
      const result = await startServing(ctx, file, options);
      if (!result.ok || (await hasUsers(result.server))) return;
      const roles = assignableRoles(result.server.compiled.model);
      const command = addUserCommand(file ?? 'spec.md', options.db, roles, ctx);
      result.say(
        file
          ? `no users yet; add the first with: ${command}`
          : `no users yet; to add one, write a spec (npx ninepoint new spec.md), then: ${command}`,
        { command },
        'warn',
      );
    });
}

/** Whether anybody can sign in: demo users (`ninepoint dev`) cannot without dev mode, so they do not count. */
async function hasUsers(server: NinepointServer): Promise<boolean> {
  const count = await server.auth.users.count();
  // At most one demo user per role: with more users than roles, some are real; no need to read them all.
  if (count > assignableRoles(server.compiled.model).length) return true;
  return (await server.auth.users.all()).some((u) => !isDemoEmail(u.email));
}
