import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer, openAccounts } from '@ninepoint/server';
import { blankSpec, checkSpec } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import { POSTGRES_AVAILABLE, TEST_DATABASES } from '../../../server/test/databases.ts';
import { openEvents } from '../../../server/test/event-reader.ts';
import { LENDING_DESK } from '../../../server/test/helpers.ts';
import { userWithToken } from '../../../server/test/users.ts';
import { piped, runIn, SPEC_WITH_ERROR, tempDir, terminal } from '../test-support.ts';

const PASSWORD = 'correct horse battery staple';

/** A folder holding the lending desk (roles staff and member) as spec.md. */
const lendingDesk = () => tempDir({ 'spec.md': LENDING_DESK });

const add = (dir: string, email: string, ...rest: string[]) =>
  runIn(dir, ['users', 'add', email, 'spec.md', ...rest, '--password-stdin'], { stdin: piped(`${PASSWORD}\n`) });

const listJson = async (dir: string, ...rest: string[]) => {
  const result = await runIn(dir, ['users', 'list', 'spec.md', '--json', ...rest]);
  expect(result.code).toBe(0);
  return (JSON.parse(result.stdout) as { users: { email: string; name: string; roles: string[] }[] }).users;
};

/** Signs in with a password against the app served from the folder's database. */
async function signIn(dir: string, email: string, password: string) {
  const server = await createServer({
    model: checkSpec(LENDING_DESK).model,
    dbPath: join(dir, 'ninepoint.db'),
    logger: false,
  });
  try {
    const response = await server.app.inject({
      method: 'POST',
      url: '/api/auth/sign-in',
      payload: { email, password },
    });
    return { status: response.statusCode, body: response.json() as Record<string, unknown> };
  } finally {
    await server.close();
  }
}

describe('ninepoint users add', () => {
  it('adds a user whose password is piped in, who can then sign in with it', async () => {
    const dir = lendingDesk();
    const result = await add(dir, 'Ada@Example.org', '--role', 'staff', '--name', 'Ada Lovelace');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `Added ada@example.org (Ada Lovelace) with the role staff to SQLite: ${join(dir, 'ninepoint.db')}.\n`,
    );
    // The database was new: it was migrated to the spec first, as serve would have.
    expect(result.stderr).toMatch(/^Migrated SQLite: .* to the spec first \(2 steps; no data was dropped\)\.\n$/);
    expect(result.stdout + result.stderr).not.toContain(PASSWORD);
    expect(await listJson(dir)).toEqual([
      expect.objectContaining({ email: 'ada@example.org', name: 'Ada Lovelace', roles: ['staff'] }),
    ]);
    const signedIn = await signIn(dir, 'ada@example.org', PASSWORD);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user).toMatchObject({ email: 'ada@example.org', roles: ['staff'] });
  });

  it('asks for the password twice on a terminal, without it ever being an argument', async () => {
    const dir = lendingDesk();
    const stdin = terminal(PASSWORD, PASSWORD);
    const result = await runIn(
      dir,
      ['users', 'add', 'bob@example.org', 'spec.md', '--role', 'member', '--role', 'staff'],
      {
        stdin,
      },
    );
    expect(result.code).toBe(0);
    expect(stdin.prompts).toEqual(['Password for bob@example.org: ', 'The same password again: ']);
    expect(result.stdout).toContain('Added bob@example.org (bob) with the roles member, staff to SQLite:');
    expect((await signIn(dir, 'bob@example.org', PASSWORD)).status).toBe(200);
  });

  it('refuses two passwords that differ, a weak one and a cancelled prompt, adding no one', async () => {
    const dir = lendingDesk();
    const differ = await runIn(dir, ['users', 'add', 'bob@example.org', 'spec.md', '--role', 'staff'], {
      stdin: terminal(PASSWORD, `${PASSWORD}!`),
    });
    expect(differ.code).toBe(1);
    expect(differ.stderr).toContain('error: The two passwords differ. Nothing was changed.\n');

    const weakTerminal = terminal('short');
    const weak = await runIn(dir, ['users', 'add', 'bob@example.org', 'spec.md', '--role', 'staff'], {
      stdin: weakTerminal,
    });
    expect(weak.code).toBe(1);
    expect(weak.stderr).toContain('error: A password needs at least 10 characters. Nothing was changed.\n');
    expect(weakTerminal.prompts).toHaveLength(1);

    const weakPiped = await runIn(
      dir,
      ['users', 'add', 'bob@example.org', 'spec.md', '--role', 'staff', '--password-stdin'],
      {
        stdin: piped('short\n'),
      },
    );
    expect(weakPiped.code).toBe(1);
    expect(weakPiped.stderr).toContain('error: A password needs at least 10 characters.');

    const cancelled = await runIn(dir, ['users', 'add', 'bob@example.org', 'spec.md', '--role', 'staff'], {
      stdin: terminal(null),
    });
    expect(cancelled.code).toBe(1);
    expect(cancelled.stderr).toContain('Cancelled: no user was added.\n');
    expect(await listJson(dir)).toEqual([]);
  });

  it('reads one line from --password-stdin and refuses a second line, adding no one', async () => {
    const dir = lendingDesk();
    const twoLines = await runIn(
      dir,
      ['users', 'add', 'bob@example.org', 'spec.md', '--role', 'staff', '--password-stdin'],
      { stdin: piped(`${PASSWORD}\nsecond line\n`) },
    );
    expect(twoLines.code).toBe(1);
    expect(twoLines.stderr).toContain(
      'error: --password-stdin reads one line, but 2 lines were piped in: pipe only the password. Nothing was changed.\n',
    );
    expect(await listJson(dir)).toEqual([]);
    // One line without its line break (printf, a password manager) is the password as it is.
    expect(
      (
        await runIn(dir, ['users', 'add', 'bob@example.org', 'spec.md', '--role', 'staff', '--password-stdin'], {
          stdin: piped(`${PASSWORD}\r\n`),
        })
      ).code,
    ).toBe(0);
    expect((await signIn(dir, 'bob@example.org', PASSWORD)).status).toBe(200);
  });

  it('exits 2 with no terminal to ask on and no --password-stdin, before touching the database', async () => {
    const dir = lendingDesk();
    for (const stdin of [piped(PASSWORD), undefined]) {
      const result = await runIn(dir, ['users', 'add', 'ada@example.org', 'spec.md', '--role', 'staff'], {
        ...(stdin ? { stdin } : {}),
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        'error: there is no terminal to ask for the password on: pipe it in with --password-stdin ' +
          '(a password is never taken as an argument).\n',
      );
    }
    expect(existsSync(join(dir, 'ninepoint.db'))).toBe(false);
    // There is no option that takes a password.
    const asArgument = await runIn(dir, ['users', 'add', 'ada@example.org', 'spec.md', '--password', PASSWORD]);
    expect(asArgument.code).toBe(2);
    expect(asArgument.stderr).toContain("unknown option '--password'");
  });

  it('refuses a role the spec does not define, or none when it defines some, before asking for a password', async () => {
    const dir = lendingDesk();
    const stdin = terminal();
    const unknown = await runIn(dir, ['users', 'add', 'ada@example.org', 'spec.md', '--role', 'admin'], { stdin });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("error: Unknown role admin. The spec's roles are: staff, member.\n");
    const anyone = await runIn(dir, ['users', 'add', 'ada@example.org', 'spec.md', '--role', 'anyone'], { stdin });
    expect(anyone.code).toBe(1);
    const none = await runIn(dir, ['users', 'add', 'ada@example.org', 'spec.md'], { stdin });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(
      "error: Give the user at least one role with --role; the spec's roles are: staff, member.",
    );
    expect(stdin.prompts).toEqual([]);
  });

  it('adds a user without roles when the spec defines none, and refuses a role then', async () => {
    const dir = tempDir({ 'spec.md': blankSpec('Blank') });
    const roleless = await add(dir, 'ada@example.org');
    expect(roleless.code).toBe(0);
    expect(roleless.stdout).toContain('Added ada@example.org (ada) with no roles');
    const refused = await add(dir, 'bob@example.org', '--role', 'staff');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('The spec defines no roles (point 6 is not shown).');
  });

  it('refuses an email that is taken or is not an email, and a name on several lines', async () => {
    const dir = lendingDesk();
    expect((await add(dir, 'ada@example.org', '--role', 'staff')).code).toBe(0);
    const taken = await add(dir, ' ADA@example.org ', '--role', 'member');
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain(
      'error: a user with the email ada@example.org exists already; change their roles with ' +
        'npx ninepoint users set-role ada@example.org --role <role> spec.md\n',
    );
    const notEmail = await add(dir, 'ada', '--role', 'staff');
    expect(notEmail.code).toBe(1);
    expect(notEmail.stderr).toContain('error: "ada" is not an email address.');
    const name = await add(dir, 'bob@example.org', '--role', 'staff', '--name', 'Bob\nEvil');
    expect(name.code).toBe(2);
    expect(await listJson(dir)).toHaveLength(1);
  });

  it('refuses, changing nothing, when the database would need a migration that could lose data', async () => {
    const withNote = blankSpec('Shelf').replace(
      '## 3. Entities and their fields\nNot shown.\n',
      '## 3. Entities and their fields\n### Book\n| field | type | rules |\n|---|---|---|\n| title | text | required |\n| note | text | |\n',
    );
    const dir = tempDir({ 'spec.md': withNote });
    expect((await add(dir, 'ada@example.org')).code).toBe(0);
    const db = await openAccounts(checkSpec(withNote).model, { dbPath: join(dir, 'ninepoint.db') });
    try {
      const at = '2026-01-01T00:00:00.000Z';
      const record = { id: '00000000-0000-7000-8000-000000000001', created_at: at, updated_at: at, created_by: null };
      await db.store.records('Book').create({ ...record, title: 'Dune', note: 'signed' }, { at, by: null });
    } finally {
      await db.close();
    }
    writeFileSync(join(dir, 'spec.md'), withNote.replace('| note | text | |\n', ''));
    const refused = await add(dir, 'bob@example.org');
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('cannot be migrated to this spec without losing or invalidating data');
    expect(refused.stderr).toContain('  ! Field Book.note was removed; 1 row holds a value in books.note.');
    expect(refused.stderr).toContain('The users and tokens commands never apply such steps.');
    expect(refused.stderr).toContain('  npx ninepoint migrate spec.md --plan\n');
    writeFileSync(join(dir, 'spec.md'), withNote);
    expect((await listJson(dir)).map((u) => u.email)).toEqual(['ada@example.org']);
  });

  it('refuses a spec with errors (exit 1) and a DATABASE_URL that is not PostgreSQL (exit 2)', async () => {
    const broken = await add(tempDir({ 'spec.md': SPEC_WITH_ERROR }), 'ada@example.org');
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain('unknown-type');
    const mysql = await runIn(lendingDesk(), ['users', 'list', 'spec.md'], { env: { DATABASE_URL: 'mysql://x/y' } });
    expect(mysql.code).toBe(2);
    expect(mysql.stderr).toContain('DATABASE_URL must be a PostgreSQL URL');
  });

  it('uses the SQLite file --db names', async () => {
    const dir = lendingDesk();
    expect((await add(dir, 'ada@example.org', '--role', 'staff', '--db', 'data/app.db')).code).toBe(0);
    expect(existsSync(join(dir, 'data/app.db'))).toBe(true);
    expect(existsSync(join(dir, 'ninepoint.db'))).toBe(false);
    expect(await listJson(dir, '--db', 'data/app.db')).toHaveLength(1);
  });
});

describe('ninepoint users list', () => {
  it('lists email, name, roles and when each user was added, as text or JSON', async () => {
    const dir = lendingDesk();
    await add(dir, 'bob@example.org', '--role', 'member');
    await add(dir, 'ada@example.org', '--role', 'staff', '--role', 'member', '--name', 'Ada');
    const text = await runIn(dir, ['users', 'list', 'spec.md']);
    expect(text.code).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('email            name  roles          created               status');
    expect(lines[1]).toMatch(/^ada@example\.org {2}Ada {3}staff, member {2}\d{4}-\d\d-\d\d \d\d:\d\d UTC {2}active$/);
    expect(lines[2]).toMatch(/^bob@example\.org {2}bob {3}member {9}\d{4}-\d\d-\d\d \d\d:\d\d UTC {2}active$/);
    const json = await listJson(dir);
    expect(json.map((u) => Object.keys(u).sort())).toEqual([
      ['active', 'createdAt', 'deactivatedAt', 'email', 'id', 'name', 'roles'],
      ['active', 'createdAt', 'deactivatedAt', 'email', 'id', 'name', 'roles'],
    ]);
    expect(JSON.stringify(json)).not.toMatch(/argon2|password/i);
  });

  it('says how to add the first user when there is none', async () => {
    const empty = await runIn(lendingDesk(), ['users', 'list', 'spec.md', '--db', 'data/app.db']);
    expect(empty.code).toBe(0);
    expect(empty.stdout).toMatch(/^No users in SQLite: .*app\.db\.\n/);
    expect(empty.stdout).toContain(
      'Add the first with: npx ninepoint users add <email> --role <staff|member> --db data/app.db spec.md\n',
    );
  });
});

describe('ninepoint users set-role', () => {
  it("replaces a user's roles", async () => {
    const dir = lendingDesk();
    await add(dir, 'ada@example.org', '--role', 'staff');
    const result = await runIn(dir, ['users', 'set-role', 'ADA@example.org', 'spec.md', '--role', 'member']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('ada@example.org now has the role member (had staff).\n');
    expect((await listJson(dir))[0]?.roles).toEqual(['member']);
  });

  it('refuses an unknown role, no role, and a user who does not exist', async () => {
    const dir = lendingDesk();
    await add(dir, 'ada@example.org', '--role', 'staff');
    const unknown = await runIn(dir, ['users', 'set-role', 'ada@example.org', 'spec.md', '--role', 'stafff']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Unknown role stafff.');
    const none = await runIn(dir, ['users', 'set-role', 'ada@example.org', 'spec.md']);
    expect(none.code).toBe(1);
    const nobody = await runIn(dir, ['users', 'set-role', 'bob@example.org', 'spec.md', '--role', 'staff']);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toContain('error: there is no user with the email bob@example.org.\n');
    expect((await listJson(dir))[0]?.roles).toEqual(['staff']);
  });
});

describe('ninepoint users deactivate and reactivate', () => {
  it('deactivates a user, who can no longer sign in, and reactivates them; both are in their history', async () => {
    const dir = lendingDesk();
    await add(dir, 'ada@example.org', '--role', 'staff');
    const off = await runIn(dir, ['users', 'deactivate', 'Ada@example.org', 'spec.md']);
    expect(off.code).toBe(0);
    expect(off.stdout).toBe(
      'Deactivated ada@example.org: their sessions ended, their API tokens stop working, and they cannot sign in. ' +
        'Reactivate them with: npx ninepoint users reactivate ada@example.org spec.md\n',
    );
    expect((await listJson(dir))[0]).toMatchObject({ active: false });
    expect((await runIn(dir, ['users', 'list', 'spec.md'])).stdout).toMatch(/ {2}deactivated\n$/);
    expect((await signIn(dir, 'ada@example.org', PASSWORD)).body.code).toBe('ACCOUNT_DEACTIVATED');
    const twice = await runIn(dir, ['users', 'deactivate', 'ada@example.org', 'spec.md']);
    expect(twice.stdout).toBe('ada@example.org is deactivated already: nothing changed.\n');

    const on = await runIn(dir, ['users', 'reactivate', 'ada@example.org', 'spec.md']);
    expect(on.code).toBe(0);
    expect(on.stdout).toBe('Reactivated ada@example.org: they may sign in again, and their API tokens work again.\n');
    expect((await signIn(dir, 'ada@example.org', PASSWORD)).status).toBe(200);
    await runIn(dir, ['users', 'set-roles', 'ada@example.org', 'spec.md', '--role', 'member']);

    const db = await openAccounts(checkSpec(LENDING_DESK).model, { dbPath: join(dir, 'ninepoint.db') });
    try {
      const user = await db.auth.users.byEmail('ada@example.org');
      const history = await db.auth.users.history(user?.id ?? '');
      expect(history.map(({ kind, by }) => ({ kind, by }))).toEqual([
        { kind: 'created', by: null },
        { kind: 'deactivated', by: null },
        { kind: 'reactivated', by: null },
        { kind: 'roles-changed', by: null },
      ]);
    } finally {
      await db.close();
    }
  });

  it('refuses a user who does not exist', async () => {
    const dir = lendingDesk();
    const nobody = await runIn(dir, ['users', 'deactivate', 'bob@example.org', 'spec.md']);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toContain('error: there is no user with the email bob@example.org.\n');
  });
});

describe('ninepoint users reset-two-factor', () => {
  it("turns a user's two-factor sign-in off, so the password alone signs in, and records it", async () => {
    const dir = lendingDesk();
    await add(dir, 'ada@example.org', '--role', 'staff');
    const none = await runIn(dir, ['users', 'reset-two-factor', 'ada@example.org', 'spec.md']);
    expect(none.stdout).toBe('ada@example.org has no two-factor sign-in: nothing changed.\n');
    const db = await openAccounts(checkSpec(LENDING_DESK).model, { dbPath: join(dir, 'ninepoint.db') });
    try {
      const user = await db.auth.users.byEmail('ada@example.org');
      await db.auth.twoFactor.begin(user?.id ?? '', 'plain.JBSWY3DPEHPK3PXP', Date.now());
      await db.auth.twoFactor.confirm(user?.id ?? '', 1, [], Date.now());
    } finally {
      await db.close();
    }
    expect((await signIn(dir, 'ada@example.org', PASSWORD)).status).toBe(202);
    const reset = await runIn(dir, ['users', 'reset-two-factor', 'Ada@example.org', 'spec.md']);
    expect(reset.code).toBe(0);
    expect(reset.stdout).toBe(
      'Reset two-factor sign-in of ada@example.org: they sign in with their password alone, ' +
        'and set it up again if their role requires it.\n',
    );
    expect((await signIn(dir, 'ada@example.org', PASSWORD)).status).toBe(200);
    const again = await openAccounts(checkSpec(LENDING_DESK).model, { dbPath: join(dir, 'ninepoint.db') });
    try {
      const user = await again.auth.users.byEmail('ada@example.org');
      const history = await again.auth.users.history(user?.id ?? '');
      expect(history.map(({ kind, by }) => ({ kind, by }))).toEqual([
        { kind: 'created', by: null },
        { kind: 'two-factor-reset', by: null },
      ]);
    } finally {
      await again.close();
    }
    const nobody = await runIn(dir, ['users', 'reset-two-factor', 'bob@example.org', 'spec.md']);
    expect(nobody.code).toBe(1);
  });
});

describe('ninepoint users remove', () => {
  it('removes a user, ending their sessions and their API tokens', async () => {
    const dir = lendingDesk();
    await add(dir, 'ada@example.org', '--role', 'staff');
    await add(dir, 'bob@example.org', '--role', 'staff');
    const token = await runIn(dir, ['tokens', 'create', 'ada@example.org', 'spec.md', '--name', 'ci']);
    expect(token.code).toBe(0);
    const session = await signIn(dir, 'ada@example.org', PASSWORD);
    expect(session.status).toBe(200);

    const removed = await runIn(dir, ['users', 'remove', 'ada@example.org', 'spec.md']);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toBe(
      'Removed ada@example.org: their sessions ended and their API tokens were deleted. The records they made are kept.\n',
    );
    expect((await listJson(dir)).map((u) => u.email)).toEqual(['bob@example.org']);
    const db = await openAccounts(checkSpec(LENDING_DESK).model, { dbPath: join(dir, 'ninepoint.db') });
    try {
      expect(await db.auth.tokens.all()).toEqual([]);
      expect(await db.store.sql.all('SELECT * FROM "_ninepoint_sessions"')).toEqual([]);
    } finally {
      await db.close();
    }
    const again = await runIn(dir, ['users', 'remove', 'ada@example.org', 'spec.md']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('there is no user with the email ada@example.org');
  });
});

describe('ninepoint users and tokens (the commands)', () => {
  it.each([[['users']], [['users', 'add']], [['tokens']], [['tokens', 'create']], [['dev']]])(
    'prints help and exits 0 for %j --help',
    async (argv) => {
      const result = await runIn(tempDir(), [...argv, '--help']);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`Usage: ninepoint ${argv.join(' ')}`);
    },
  );

  it('exits 2 with the help for users or tokens without a subcommand, and for a missing argument', async () => {
    for (const argv of [['users'], ['tokens'], ['users', 'add', 'ada@example.org'], ['users', 'list']]) {
      const result = await runIn(tempDir(), argv);
      expect(result.code).toBe(2);
    }
  });
});

describe.skipIf(!POSTGRES_AVAILABLE)('ninepoint users and tokens on PostgreSQL', () => {
  it('adds, lists and removes users and tokens in the database DATABASE_URL names', async () => {
    const fresh = await TEST_DATABASES.find((db) => db.name === 'postgres')?.fresh();
    if (!fresh) throw new Error('PostgreSQL is not in TEST_DATABASES');
    try {
      const dir = lendingDesk();
      const env = { DATABASE_URL: fresh.env.DATABASE_URL };
      const added = await runIn(
        dir,
        ['users', 'add', 'ada@example.org', 'spec.md', '--role', 'staff', '--password-stdin'],
        {
          env,
          stdin: piped(PASSWORD),
        },
      );
      expect(added.code).toBe(0);
      expect(added.stdout).toMatch(/^Added ada@example\.org \(ada\) with the role staff to PostgreSQL: postgres:\/\//);
      const listed = await runIn(dir, ['users', 'list', 'spec.md', '--json'], { env });
      expect(JSON.parse(listed.stdout).users).toEqual([expect.objectContaining({ email: 'ada@example.org' })]);
      const token = await runIn(dir, ['tokens', 'create', 'ada@example.org', 'spec.md', '--name', 'ci'], { env });
      expect(token.code).toBe(0);
      const tokens = JSON.parse((await runIn(dir, ['tokens', 'list', 'spec.md', '--json'], { env })).stdout).tokens;
      expect(tokens).toEqual([expect.objectContaining({ email: 'ada@example.org', name: 'ci', revokedAt: null })]);
      expect((await runIn(dir, ['tokens', 'revoke', tokens[0].id, 'spec.md'], { env })).code).toBe(0);
      expect((await runIn(dir, ['users', 'remove', 'ada@example.org', 'spec.md'], { env })).code).toBe(0);
      expect(JSON.parse((await runIn(dir, ['users', 'list', 'spec.md', '--json'], { env })).stdout).users).toEqual([]);
      // Nothing went to a SQLite file.
      expect(existsSync(join(dir, 'ninepoint.db'))).toBe(false);
    } finally {
      await fresh.remove();
    }
  });
});

/** Runs the real bin to its end (another process, as at a terminal); resolves at its exit with its code and the time. */
function runProcess(cwd: string, args: string[], env: Record<string, string>) {
  const bin = fileURLToPath(new URL('../../bin/ninepoint.js', import.meta.url));
  const { DATABASE_URL: _unset, ...inherited } = process.env;
  return new Promise<{ code: number | null; exitedAt: number; output: string }>((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd, env: { ...inherited, NO_COLOR: '1', ...env } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('exit', (code) => resolve({ code, exitedAt: Date.now(), output }));
  });
}

// Another process at a terminal: on PostgreSQL it tells the servers through LISTEN/NOTIFY; on
// SQLite the server sees another process commit to its file (`PRAGMA data_version`, looked at
// every `ELSEWHERE_MS` while streams are open). The bound is from the command's exit: its own
// start-up (a second or more) is not the server's delay.
describe.each(TEST_DATABASES)('the terminal reaches live update streams on $name', (database) => {
  const commands = [
    {
      what: 'a deactivation',
      argv: (user: { email: string }) => ['users', 'deactivate', user.email, 'spec.md'],
      says: 'Deactivated',
    },
    {
      what: 'a revoked API token',
      argv: (_user: { email: string }, tokenId: string) => ['tokens', 'revoke', tokenId, 'spec.md'],
      says: 'Revoked the API token',
    },
  ];
  it.each(commands)(
    '$what ends the open /api/events stream within a second of the command, not at the next heartbeat',
    async ({ argv, says }) => {
      const dir = lendingDesk();
      const fresh = await database.fresh();
      const dbPath = fresh.options.dbPath ?? join(dir, 'ninepoint.db');
      const server = await createServer({
        model: checkSpec(LENDING_DESK).model,
        ...(fresh.options.databaseUrl ? { databaseUrl: fresh.options.databaseUrl } : { dbPath }),
        logger: false,
        // A heartbeat far off: the stream must end without it.
        live: { heartbeatMs: 600_000 },
      });
      try {
        const base = await server.listen({ port: 0 });
        const { user, authorization } = await userWithToken(server, ['member']);
        const tokenId = (await server.auth.tokens.all()).find((t) => t.userId === user.id)?.id ?? '';
        const events = await openEvents(base, { authorization });
        expect(events.status).toBe(200);
        let endedAt = 0;
        const ended = events.change().then((change) => {
          endedAt = Date.now();
          return change;
        });
        const result = await runProcess(
          dir,
          [...argv(user, tokenId), '--db', dbPath],
          fresh.env.DATABASE_URL ? { DATABASE_URL: fresh.env.DATABASE_URL } : {},
        );
        expect(result.output).toContain(says);
        expect(result.code).toBe(0);
        let timer: NodeJS.Timeout | undefined;
        const outcome = await Promise.race([
          ended,
          new Promise<'still open'>((resolve) => {
            timer = setTimeout(() => resolve('still open'), 5_000);
          }),
        ]);
        clearTimeout(timer);
        expect(outcome).toBeNull();
        const delay = endedAt - result.exitedAt;
        if (process.env.MEASURE)
          console.log(`${database.name}, ${argv(user, tokenId)[1]}: stream ended ${delay} ms after the command exited`);
        expect(delay).toBeLessThan(1_000);
      } finally {
        await server.close();
        await fresh.remove();
      }
    },
  );
});
