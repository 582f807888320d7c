import { assignableRoles, DEV_ROUTES, type DevServer, demoEmail, STUDIO_ROUTES, serveDev } from '@ninepoint/server';
import type { Command } from 'commander';
import type { Context } from '../context.ts';
import { readSpec } from '../files.ts';
import { listenAddress, type ServingOptions, serveOptions, servingOptions } from '../serving.ts';
import { UsageError } from '../usage-error.ts';
import { addUserCommand } from './users.ts';

const DEV_HELP = `
Development mode serves the spec as \`serve\` does, and also:
  - watches the spec file and applies each save without a restart: it checks the spec, migrates
    the database when that is safe, and otherwise keeps serving the last good spec and says why;
  - serves the Studio at ${STUDIO_ROUTES.page}: an editor with the checker as you type, diagrams,
    the permission matrix and the nine points' progress; saving there writes the spec file;
  - makes one demo user per role of the spec (<role>@demo.ninepoint.test, with a random
    password that is never shown), at every start;
  - answers POST ${DEV_ROUTES.signInAs} {"role": "<role>"}, which signs in as that role's
    demo user without a password, and GET ${DEV_ROUTES.roles}.
Never use it in production: anyone who reaches it can sign in as any role. \`ninepoint serve\`
never answers these calls. It refuses to start when NODE_ENV is "production".`;

/**
 * `ninepoint dev`: `serve` for the person writing the spec: the Studio, the spec re-applied on
 * every save, a demo user per role and sign-in as any role (DEV_HELP lists it all).
 */
export function registerDev(program: Command, ctx: Context, version: string): void {
  servingOptions(
    program
      .command('dev')
      .description(
        'Serve a spec for development: as serve, plus the Studio, re-applying the spec on every save, and a demo user per role.',
      )
      .argument('<spec.md>', 'the spec to serve'),
  )
    .version(version)
    .addHelpText('after', DEV_HELP)
    .action(async (file: string, options: ServingOptions) => {
      await startDev(ctx, file, options);
    });
}

/** Starts the development server; answers it, or null when it did not start (the exit code is set). */
export async function startDev(ctx: Context, file: string, options: ServingOptions): Promise<DevServer | null> {
  if (ctx.io.env.NODE_ENV === 'production') {
    throw new UsageError(
      'ninepoint dev is for development, and NODE_ENV is "production"; serve the app with ninepoint serve.',
    );
  }
  const settings = serveOptions(ctx, file, options);
  // Worded as check and serve word it (the dev server reads the file again, and on every change).
  await readSpec(ctx.io.cwd, file);
  const result = await serveDev(settings);
  if (!result.ok) {
    ctx.exitCode = result.exitCode;
    return null;
  }
  ctx.io.stdout.write(devBanner(ctx, file, options, assignableRoles(result.server.current().compiled.model)));
  return result.server;
}

/** What dev mode adds, said plainly, with the demo users; a warning when reachable from other machines. */
function devBanner(ctx: Context, file: string, options: ServingOptions, roles: readonly string[]): string {
  const lines = [
    '',
    'Ninepoint: DEVELOPMENT MODE. Never use it in production: anyone who reaches it can sign in as any role.',
  ];
  if (roles.length > 0) {
    const width = Math.max(...roles.map((r) => r.length));
    lines.push('  Demo users, one per role, who sign in without a password:');
    for (const role of roles) lines.push(`    ${role.padEnd(width)}  ${demoEmail(role)}`);
    lines.push(
      `  Sign in as one: POST ${DEV_ROUTES.signInAs} {"role": "${roles[0]}"} (the roles: GET ${DEV_ROUTES.roles}).`,
    );
  } else {
    lines.push(
      '  The spec defines no roles (point 6 is not shown), so there are no demo users;',
      `  add a user with: ${addUserCommand(file, options.db, roles, ctx)}`,
    );
  }
  const { host } = listenAddress(ctx, options);
  if (!isLoopback(host)) {
    lines.push(`  Warning: listening on ${host}, so other machines may reach it; --host 127.0.0.1 keeps it local.`);
  }
  return `${lines.join('\n')}\n\n`;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}
