import { CommanderError } from 'commander';
import type { Context } from './context.ts';
import type { Io } from './io.ts';
import { createProgram } from './program.ts';
import { EXIT, UsageError } from './usage-error.ts';

export { type Io, type Output, processIo } from './io.ts';
export { EXIT } from './usage-error.ts';

/**
 * Runs one `ninepoint` command line and returns its exit code, never exiting the process and never
 * throwing: the bin passes `process.argv.slice(2)`, tests pass an `Io` that captures the output.
 *
 * @example
 * const out: string[] = [];
 * const io = { stdout: { write: (t: string) => out.push(t) }, stderr: { write: () => {} }, cwd: '.', env: {} };
 * const code = await run(['check', 'examples/blank.md', '--json'], io); // 0
 */
export async function run(argv: readonly string[], io: Io): Promise<number> {
  const ctx: Context = { io, exitCode: EXIT.ok };
  try {
    await createProgram(ctx).parseAsync([...argv], { from: 'user' });
    return ctx.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    if (error instanceof UsageError) {
      io.stderr.write(`error: ${error.message}\n`);
      return EXIT.usage;
    }
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    io.stderr.write(`ninepoint: internal error, please report it with the command that caused it:\n${detail}\n`);
    return EXIT.usage;
  }
}
