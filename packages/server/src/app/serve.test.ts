import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { blankSpec } from '@ninepoint/spec';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { POSTGRES_AVAILABLE, TEST_DATABASES } from '../../test/databases.ts';
import { LENDING_DESK, replaceOnce, tempDir } from '../../test/helpers.ts';
import { resetLink, startSmtpCatcher } from '../../test/smtp-catcher.ts';
import { createLogger } from '../http/logging.ts';
import { addUser } from '../people/accounts.ts';
import type { SqliteStore } from '../store/sqlite/sqlite-store.ts';
import { serve } from './serve.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function setup(source: string) {
  const temp = tempDir();
  cleanups.push(temp.remove);
  const specPath = join(temp.dir, 'spec.md');
  writeFileSync(specPath, source);
  const out: string[] = [];
  const err: string[] = [];
  const options = {
    specPath,
    dbPath: temp.dbPath,
    port: 0,
    databaseUrl: '',
    logger: false as const,
    handleSignals: false,
    print: (line: string) => out.push(line),
    printError: (line: string) => err.push(line),
    env: {} as Record<string, string>,
  };
  return { options, out, err, temp };
}

/** What `serve` says once at start without SMTP settings. */
const NO_EMAIL =
  'email is not configured: password reset links are not sent (set SMTP_URL, MAIL_FROM and APP_URL; see docs/sign-in.md)';

describe('serve', () => {
  it('serves the blank spec and says where', async () => {
    const { options, out, err, temp } = setup(blankSpec('Blank'));
    const result = await serve(options);
    if (!result.ok) throw new Error(err.join('\n'));
    cleanups.push(() => result.server.close());
    expect(result.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(out).toEqual([
      `Ninepoint: serving "Blank" at ${result.url} (SQLite: ${temp.dbPath})`,
      `Ninepoint: ${NO_EMAIL}`,
    ]);
    expect(err).toEqual([]);
    expect(existsSync(temp.dbPath)).toBe(true);
    const health = await fetch(`${result.url}/api/health`);
    expect(await health.json()).toEqual({ status: 'ok', spec: 'Blank', database: 'sqlite' });
  });

  it('logs where it serves as a record, not a printed line, among JSON logs', async () => {
    const { options, out, err, temp } = setup(blankSpec('Blank'));
    const records: Record<string, unknown>[] = [];
    const logger = createLogger({ format: 'json', write: (line) => void records.push(JSON.parse(line)) });
    const result = await serve({ ...options, logger, logFormat: 'json' });
    if (!result.ok) throw new Error(err.join('\n'));
    cleanups.push(() => result.server.close());
    expect(out).toEqual([]);
    expect(records).toEqual([
      expect.objectContaining({
        level: 30,
        msg: `serving "Blank" at ${result.url} (SQLite: ${temp.dbPath})`,
        url: result.url,
        spec: 'Blank',
        database: `SQLite: ${temp.dbPath}`,
      }),
      expect.objectContaining({ level: 40, msg: NO_EMAIL }),
    ]);
  });

  it('refuses a LOG_LEVEL that is not a level with exit code 2, before reading the spec', async () => {
    const { options, err } = setup(blankSpec());
    const { logger: _none, ...withoutLogger } = options;
    const saved = process.env.LOG_LEVEL;
    process.env.LOG_LEVEL = 'verbose';
    try {
      const result = await serve(withoutLogger);
      expect(result).toEqual({ ok: false, exitCode: 2 });
      expect(err).toEqual([
        'Ninepoint: LOG_LEVEL must be fatal, error, warn, info, debug, trace or silent, not "verbose".',
      ]);
    } finally {
      if (saved === undefined) delete process.env.LOG_LEVEL;
      else process.env.LOG_LEVEL = saved;
    }
  });

  it('refuses a spec with errors, listing them', async () => {
    const broken = replaceOnce(LENDING_DESK, /^\|\s*book\s*\|\s*Book\s*\|.*$/m, () => '| book | Bok | required |');
    const { options, out, err, temp } = setup(broken);
    const result = await serve(options);
    expect(result).toEqual({ ok: false, exitCode: 1 });
    expect(out).toEqual([]);
    expect(err.some((line) => line.startsWith(`${options.specPath}:`) && line.includes('error [unknown-entity]'))).toBe(
      true,
    );
    expect(err.join('\n')).toContain('Did you mean "Book"?');
    expect(err.at(-1)).toMatch(/has \d+ errors?; not serving it\.$/);
    expect(existsSync(temp.dbPath)).toBe(false);
  });

  it('refuses a DATABASE_URL that is not PostgreSQL with exit code 2', async () => {
    const { options, err } = setup(blankSpec());
    const result = await serve({ ...options, databaseUrl: 'mysql://127.0.0.1:3306/test' });
    expect(result).toEqual({ ok: false, exitCode: 2 });
    expect(err.join('\n')).toMatch(/DATABASE_URL must be a PostgreSQL URL/);
  });

  it('says which database does not answer, without its password', async () => {
    const { options, err } = setup(blankSpec());
    const result = await serve({ ...options, databaseUrl: 'postgres://app:secret@127.0.0.1:1/test' });
    expect(result).toEqual({ ok: false, exitCode: 1 });
    expect(err.join('\n')).toMatch(/cannot open the database "postgres:\/\/app:\*\*\*@127\.0\.0\.1:1\/test"/);
    expect(err.join('\n')).not.toMatch(/secret/);
  });

  it.skipIf(!POSTGRES_AVAILABLE)('serves from PostgreSQL when DATABASE_URL is set', async () => {
    const { options, out } = setup(LENDING_DESK);
    const fresh = await TEST_DATABASES[1]?.fresh();
    if (!fresh) throw new Error('PostgreSQL is not in TEST_DATABASES');
    try {
      const result = await serve({ ...options, databaseUrl: fresh.env.DATABASE_URL });
      if (!result.ok) throw new Error(`serve failed with ${result.exitCode}`);
      try {
        expect(out.join('\n')).toMatch(/\(PostgreSQL: postgres:\/\//);
        const health = await fetch(`${result.url}/api/health`);
        expect(await health.json()).toMatchObject({ status: 'ok', database: 'postgres' });
      } finally {
        await result.server.close();
      }
    } finally {
      await fresh.remove();
    }
  });

  it('says when the spec cannot be read', async () => {
    const { options, err } = setup(blankSpec());
    const result = await serve({ ...options, specPath: join(options.specPath, 'missing.md') });
    expect(result).toEqual({ ok: false, exitCode: 2 });
    expect(err[0]).toMatch(/^Ninepoint: cannot read the spec ".*missing\.md"/);
  });

  it('says when the port is taken', async () => {
    const first = setup(blankSpec());
    const running = await serve(first.options);
    if (!running.ok) throw new Error(first.err.join('\n'));
    cleanups.push(() => running.server.close());
    const port = Number(new URL(running.url).port);
    const second = setup(blankSpec());
    const result = await serve({ ...second.options, port });
    expect(result).toEqual({ ok: false, exitCode: 1 });
    expect(second.err).toEqual([`Ninepoint: port ${port} on 127.0.0.1 is in use; pass another with --port.`]);
  });

  it('refuses to start when migrating would hide stored data, printing the plan; starts with allowDestructive', async () => {
    const first = setup(LENDING_DESK);
    const running = await serve(first.options);
    if (!running.ok) throw new Error(first.err.join('\n'));
    const at = '2026-01-01T00:00:00.000Z';
    const book = { id: '00000000-0000-7000-8000-000000000001', created_at: at, updated_at: at, created_by: null };
    await running.server.store
      .records('Book')
      .create({ ...book, title: 'Dune', isbn: '9780441013593', copies: 1 }, { at, by: null });
    await running.server.close();

    const withoutIsbn = replaceOnce(LENDING_DESK, /^\|\s*isbn\s*\|.*\n/m, () => '');
    writeFileSync(first.options.specPath, withoutIsbn);
    const err: string[] = [];
    const refused = await serve({ ...first.options, printError: (line) => err.push(line) });
    expect(refused).toEqual({ ok: false, exitCode: 1 });
    const report = err.join('\n');
    expect(report).toMatch(
      /^Ninepoint: the database ".*" cannot be migrated to this spec without losing or invalidating data/,
    );
    expect(report).toContain('  ! Field Book.isbn was removed; 1 row holds a value in books.isbn.');
    expect(report).toContain('Refused: nothing was changed.');

    const allowed = await serve({ ...first.options, allowDestructive: true });
    if (!allowed.ok) throw new Error('did not start with allowDestructive');
    cleanups.push(() => allowed.server.close());
  });

  it('says when the database cannot be opened', async () => {
    const { options, err, temp } = setup(blankSpec());
    // A folder where the file should be.
    const result = await serve({ ...options, dbPath: temp.dir });
    expect(result).toEqual({ ok: false, exitCode: 1 });
    expect(err[0]).toMatch(/^Ninepoint: cannot open the database/);
  });

  it('refuses email settings it cannot use with exit code 2, saying which and what to write', async () => {
    const { options, out, err } = setup(blankSpec());
    const badPort = await serve({ ...options, env: { SMTP_HOST: 'smtp.example.org', SMTP_PORT: 'abc' } });
    expect(badPort).toEqual({ ok: false, exitCode: 2 });
    expect(err).toEqual([
      'Ninepoint: the email settings cannot be used: SMTP_PORT must be a whole number from 1 to 65535, not "abc".',
    ]);
    const noAppUrl = await serve({ ...options, env: { SMTP_URL: 'smtp://smtp.example.org', MAIL_FROM: 'a@b.org' } });
    expect(noAppUrl).toEqual({ ok: false, exitCode: 2 });
    expect(err.at(-1)).toMatch(/APP_URL is required with the SMTP settings/);
    expect(out).toEqual([]);
  });

  it('refuses a SECRET_KEY too short to protect anything with exit code 2', async () => {
    const { options, out, err } = setup(blankSpec());
    const result = await serve({ ...options, env: { SECRET_KEY: 'short' } });
    expect(result).toEqual({ ok: false, exitCode: 2 });
    expect(err).toEqual([
      'Ninepoint: SECRET_KEY must have at least 32 characters (openssl rand -base64 32 makes one).',
    ]);
    expect(out).toEqual([]);
  });

  it('says once at start that email is not configured, and answers a reset all the same', async () => {
    const { options } = setup(blankSpec());
    const { logger, lines } = capturedLog();
    const result = await serve({ ...options, logger });
    if (!result.ok) throw new Error('did not start');
    cleanups.push(() => result.server.close());
    for (const email of ['nobody@example.org', 'somebody@example.org']) {
      const answer = await fetch(`${result.url}/api/auth/password-reset`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email }),
      });
      expect(answer.status).toBe(202);
    }
    expect(lines().filter((line) => line.includes('email is not configured'))).toHaveLength(1);
  });

  it('mails reset links through the SMTP server of SMTP_URL, as MAIL_FROM, to pages at APP_URL', async () => {
    const smtp = await startSmtpCatcher();
    cleanups.push(() => smtp.close());
    const { options } = setup(LENDING_DESK);
    const { logger, lines } = capturedLog();
    const env = { SMTP_URL: smtp.url, MAIL_FROM: 'Desk <desk@example.org>', APP_URL: 'https://desk.example.org' };
    const result = await serve({ ...options, env, logger });
    if (!result.ok) throw new Error('did not start');
    cleanups.push(() => result.server.close());
    await addUser(
      result.server.auth,
      { email: 'ada@example.org', roles: ['member'], password: 'correct horse battery staple' },
      ['staff', 'member'],
    );
    const answer = await fetch(`${result.url}/api/auth/password-reset`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ada@example.org' }),
    });
    expect(answer.status).toBe(202);
    const mail = await smtp.next('ada@example.org');
    expect(mail.from).toBe('Desk <desk@example.org>');
    expect(resetLink(mail).origin).toBe('https://desk.example.org');
    expect(lines().some((line) => line.includes('email is not configured'))).toBe(false);
    // Checked after the start without holding it up.
    for (let i = 0; i < 100 && !lines().some((line) => line.includes('the SMTP server answers')); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(lines().some((line) => line.includes('the SMTP server answers'))).toBe(true);
    // Neither the link's secret nor the SMTP password is ever logged, though the page is opened with it.
    const token = resetLink(mail).searchParams.get('token') ?? '';
    const link = resetLink(mail);
    await fetch(`${result.url}${link.pathname}${link.search}`, { headers: { accept: 'text/html' } });
    const done = await fetch(`${result.url}/api/auth/password-reset/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, password: 'a new password for ada' }),
    });
    expect(done.status).toBe(200);
    expect(lines().some((line) => line.includes('/reset-password?token=***'))).toBe(true);
    expect(lines().join('\n')).not.toContain(token);
    expect(lines().join('\n')).not.toContain(smtp.password);
  });
});

/** A pino logger whose lines are kept. */
function capturedLog() {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return { logger: pino({ level: 'trace' }, stream), lines: () => chunks.join('').split('\n') };
}

describe('serve on SQLite', () => {
  it('syncs every commit to disk with sqliteSynchronous full, and only at checkpoints by default', async () => {
    for (const [mode, pragma] of [
      [undefined, 1],
      ['full', 2],
    ] as const) {
      const { options } = setup(LENDING_DESK);
      const result = await serve({ ...options, ...(mode ? { sqliteSynchronous: mode } : {}) });
      if (!result.ok) throw new Error('serve did not start');
      cleanups.push(() => result.server.close());
      const { db } = result.server.store as SqliteStore;
      expect(db.pragma('synchronous', { simple: true })).toBe(pragma);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    }
  });
});
