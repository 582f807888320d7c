import { Command } from 'commander';
import { registerBackup } from './commands/backup.ts';
import { registerCalls } from './commands/calls.ts';
import { registerCheck } from './commands/check.ts';
import { registerClient } from './commands/client.ts';
import { registerDeliveries } from './commands/deliveries.ts';
import { registerDev } from './commands/dev.ts';
import { registerDiagram } from './commands/diagram.ts';
import { registerExplain } from './commands/explain.ts';
import { registerImport } from './commands/import.ts';
import { registerInit } from './commands/init.ts';
import { registerMigrate } from './commands/migrate.ts';
import { registerNew } from './commands/new.ts';
import { registerOpenApi } from './commands/openapi.ts';
import { registerRestore } from './commands/restore.ts';
import { registerServe } from './commands/serve.ts';
import { registerTokens } from './commands/tokens.ts';
import { registerTypes } from './commands/types.ts';
import { registerUsers } from './commands/users.ts';
import type { Context } from './context.ts';
import { wantsColor } from './io.ts';
import { VERSION } from './version.ts';

const EXIT_CODES_HELP = `
Exit codes:
  0  done; the spec has no errors (warnings allowed)
  1  the spec has errors, or a migration, a users or tokens command, a
     backup, a restore or an init was refused (an unknown role, a weak
     password, no such user, a file that exists, a damaged backup, a
     database init cannot read or whose rows an import refused)
  2  the command could not run: an unknown command or option, or a file
     that cannot be read or written`;

/**
 * A fresh program per run: commander keeps parsed state on the command objects, so sharing one
 * would leak options between in-process runs in tests. Commander must not exit the process;
 * `run` turns its outcomes into exit codes.
 */
export function createProgram(ctx: Context): Command {
  const program = new Command('ninepoint')
    .description('Make a nine-point product specification executable.')
    .version(VERSION)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => ctx.io.stdout.write(text),
      writeErr: (text) => ctx.io.stderr.write(text),
      getOutHasColors: () => wantsColor(ctx.io.stdout, ctx.io.env),
      getErrHasColors: () => wantsColor(ctx.io.stderr, ctx.io.env),
    })
    .showHelpAfterError('(add --help for usage)')
    .addHelpText('afterAll', EXIT_CODES_HELP);
  registerNew(program, ctx, VERSION);
  registerInit(program, ctx, VERSION);
  registerCheck(program, ctx, VERSION);
  registerExplain(program, ctx, VERSION);
  registerServe(program, ctx, VERSION);
  registerDev(program, ctx, VERSION);
  registerMigrate(program, ctx, VERSION);
  registerCalls(program, ctx, VERSION);
  registerDiagram(program, ctx, VERSION);
  registerOpenApi(program, ctx, VERSION);
  registerTypes(program, ctx, VERSION);
  registerClient(program, ctx, VERSION);
  registerUsers(program, ctx, VERSION);
  registerTokens(program, ctx, VERSION);
  registerImport(program, ctx, VERSION);
  registerDeliveries(program, ctx, VERSION);
  registerBackup(program, ctx, VERSION);
  registerRestore(program, ctx, VERSION);
  return program;
}
