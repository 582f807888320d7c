import { AccountError, passwordProblem } from '@ninepoint/server';
import type { Context } from './context.ts';
import { UsageError } from './usage-error.ts';

/** Throws the usage error `readNewPassword` would, before anything else is done. */
export function checkPasswordSource(ctx: Context, fromStdin: boolean): void {
  if (fromStdin || ctx.io.stdin?.isTTY === true) return;
  throw new UsageError(
    'there is no terminal to ask for the password on: pipe it in with --password-stdin ' +
      '(a password is never taken as an argument).',
  );
}

/**
 * The password for a new user, never from the command line (where it would stay in the shell's
 * history and be visible to other users of the machine): with `fromStdin`, everything piped in
 * less one final line break; otherwise asked for twice on the terminal without echo. Null when the
 * person cancels. Throws `AccountError` for a weak password or two that differ.
 */
export async function readNewPassword(ctx: Context, fromStdin: boolean, email: string): Promise<string | null> {
  const stdin = ctx.io.stdin;
  if (fromStdin) return onePipedLine((await stdin?.readAll()) ?? '');
  checkPasswordSource(ctx, fromStdin);
  if (!stdin) return null;
  const password = await stdin.readSecret(`Password for ${email}: `);
  if (password === null) return null;
  const weak = passwordProblem(password);
  if (weak) throw new AccountError(`${weak} Nothing was changed.`);
  const again = await stdin.readSecret('The same password again: ');
  if (again === null) return null;
  if (again !== password) throw new AccountError('The two passwords differ. Nothing was changed.');
  return password;
}

/**
 * The password piped in: one line, its line break optional. More lines are refused: storing them
 * joined as one password (as before) would make a password nobody can type at the sign-in form.
 */
function onePipedLine(piped: string): string {
  const line = piped.replace(/\r?\n$/, '');
  const lines = line.split(/\r?\n|\r/).length;
  if (lines > 1) {
    throw new AccountError(
      `--password-stdin reads one line, but ${lines} lines were piped in: pipe only the password. Nothing was changed.`,
    );
  }
  return line;
}
