import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addUser, assignableRoles, createServer } from '@ninepoint/server';
import { checkSpec } from '@ninepoint/spec';

export interface SignInTiming {
  /** The fastest failed sign-in of an email nobody has (the decoy hash's argon2id verify). */
  unknownMs: number;
  /** The fastest failed sign-in of an account with a wrong password (its own hash's verify). */
  wrongMs: number;
  /** unknown ÷ wrong: near 1 when an unknown email costs what a wrong password does. */
  ratio: number;
  attempts: number;
}

/** The lending desk with a sign-in limit the benchmark does not reach. */
function spec(): string {
  const source = readFileSync(new URL('../examples/lending-desk.md', import.meta.url), 'utf8');
  const constants = /^\| MAX_LOANS\b/m;
  if (!constants.test(source)) throw new Error('examples/lending-desk.md has no MAX_LOANS row to add a limit beside');
  return source.replace(
    constants,
    '| SIGN_IN_ATTEMPTS_PER_15_MINUTES | 10000 | the benchmark signs in often |\n| MAX_LOANS',
  );
}

/**
 * Times failed sign-ins through the app (`POST /api/auth/sign-in`, in-process): an unknown email
 * must cost one argon2id verify like a wrong password, so that the answer's time does not tell
 * which emails have accounts. The fastest of each is its real cost on a busy machine (load only
 * adds time). `packages/server/src/http/auth.test.ts` checks that both verify a hash; this measures
 * how alike they take.
 */
export async function benchSignIn(attempts = 12): Promise<SignInTiming> {
  const { model, ok, diagnostics } = checkSpec(spec());
  if (!ok) throw new Error(`the benchmark's spec has errors: ${diagnostics[0]?.message}`);
  const dir = mkdtempSync(join(tmpdir(), 'ninepoint-bench-sign-in-'));
  const server = await createServer({ model, dbPath: join(dir, 'app.db'), logger: false });
  try {
    const email = 'member@example.org';
    const roles = assignableRoles(model).slice(0, 1);
    await addUser(server.auth, { email, name: 'Mem Ber', roles, password: 'the right password, long enough' }, roles);
    let n = 0;
    const signIn = async (who: string) => {
      const started = performance.now();
      const answer = await server.app.inject({
        method: 'POST',
        url: '/api/auth/sign-in',
        headers: { 'content-type': 'application/json', host: 'app.example' },
        payload: JSON.stringify({ email: who, password: `not the password ${n}` }),
        remoteAddress: `10.0.${Math.floor(n / 250)}.${(n++ % 250) + 1}`,
      });
      const ms = performance.now() - started;
      if (answer.statusCode !== 401) throw new Error(`a failed sign-in answered ${answer.statusCode}: ${answer.body}`);
      return ms;
    };
    // The decoy hash is made on first use: not part of what is measured.
    await signIn('warm-up@example.org');
    const unknown: number[] = [];
    const wrong: number[] = [];
    for (let i = 0; i < attempts; i++) {
      unknown.push(await signIn(`nobody-${i}@example.org`));
      wrong.push(await signIn(email));
    }
    const unknownMs = Math.min(...unknown);
    const wrongMs = Math.min(...wrong);
    return { unknownMs, wrongMs, ratio: unknownMs / wrongMs, attempts };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
