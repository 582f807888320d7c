import { blankSpec } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import { LENDING_DESK } from '../../../server/test/helpers.ts';
import { runIn, SPEC_WITH_ERROR, startBin, tempDir } from '../test-support.ts';

describe('ninepoint dev', () => {
  it('serves the spec with a banner, a demo user per role, and sign-in as a role from the app’s own pages', async () => {
    const dir = tempDir({ 'spec.md': LENDING_DESK });
    const dev = await startBin(dir, ['dev', 'spec.md', '--port', '0']);
    try {
      await dev.waitFor(/GET \/api\/dev\/roles\)\.\n/);
      expect(dev.stdout()).toContain(
        `Ninepoint: serving "Lending desk" at ${dev.url} (SQLite: ${dir}/ninepoint.db)\n` +
          `Ninepoint: Studio at ${dev.url}/studio; watching ${dir}/spec.md for changes.\n` +
          `Ninepoint: no SMTP settings: mails are printed here and kept at ${dev.url}/api/dev/outbox, not sent.\n\n` +
          'Ninepoint: DEVELOPMENT MODE. Never use it in production: anyone who reaches it can sign in as any role.\n' +
          '  Demo users, one per role, who sign in without a password:\n' +
          '    staff   staff@demo.ninepoint.test\n' +
          '    member  member@demo.ninepoint.test\n' +
          '  Sign in as one: POST /api/dev/sign-in-as {"role": "staff"} (the roles: GET /api/dev/roles).\n',
      );
      expect(dev.stdout()).not.toContain('Warning');
      expect(dev.stdout()).not.toContain('no users yet');

      const roles = await fetch(`${dev.url}/api/dev/roles`);
      expect(await roles.json()).toEqual({
        roles: [
          { role: 'staff', email: 'staff@demo.ninepoint.test' },
          { role: 'member', email: 'member@demo.ninepoint.test' },
        ],
      });
      const signIn = (origin: string) =>
        fetch(`${dev.url}/api/dev/sign-in-as`, {
          method: 'POST',
          headers: { origin, 'content-type': 'application/json' },
          body: JSON.stringify({ role: 'member' }),
        });
      const signedIn = await signIn(dev.url);
      expect(signedIn.status).toBe(200);
      const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';', 1)[0] ?? '';
      expect(cookie).toMatch(/^np_session=nps_/);
      const me = await fetch(`${dev.url}/api/auth/me`, { headers: { cookie } });
      expect(await me.json()).toMatchObject({ user: { email: 'member@demo.ninepoint.test', roles: ['member'] } });

      const crossSite = await signIn('https://evil.example');
      expect(crossSite.status).toBe(403);
      expect(((await crossSite.json()) as { code: string }).code).toBe('FORBIDDEN');
    } finally {
      expect(await dev.stop()).toBe(0);
    }
  });

  it('says there are no demo users when the spec has no roles, and warns when other machines may reach it', async () => {
    const dir = tempDir({ 'spec.md': blankSpec('Blank') });
    const dev = await startBin(dir, ['dev', 'spec.md', '--port', '0', '--host', '0.0.0.0', '--db', 'data/dev.db']);
    try {
      await dev.waitFor(/Warning: .*\n/);
      expect(dev.stdout()).toContain(
        '  The spec defines no roles (point 6 is not shown), so there are no demo users;\n' +
          '  add a user with: npx ninepoint users add <email> --db data/dev.db spec.md\n' +
          '  Warning: listening on 0.0.0.0, so other machines may reach it; --host 127.0.0.1 keeps it local.\n',
      );
    } finally {
      await dev.stop();
    }
  });

  it('refuses to start when NODE_ENV is production (exit 2)', async () => {
    const result = await runIn(tempDir({ 'spec.md': LENDING_DESK }), ['dev', 'spec.md'], {
      env: { NODE_ENV: 'production' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'error: ninepoint dev is for development, and NODE_ENV is "production"; serve the app with ninepoint serve.\n',
    );
  });

  it('refuses a spec with errors (exit 1), a missing spec and a bad port (exit 2), without starting', async () => {
    const broken = await runIn(tempDir({ 'spec.md': SPEC_WITH_ERROR }), ['dev', 'spec.md', '--port', '0']);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain('not serving it');
    expect((await runIn(tempDir(), ['dev'])).code).toBe(2);
    expect((await runIn(tempDir({ 'spec.md': LENDING_DESK }), ['dev', 'spec.md', '--port', '-1'])).code).toBe(2);
  });
});
