import {
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StudioStatus } from '@ninepoint/spec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SQLITE_ONLY } from '../../test/databases.ts';
import { LENDING_DESK, replaceOnce } from '../../test/helpers.ts';
import { problemOf, rawExchange } from '../../test/raw-http.ts';
import { addUser } from '../people/accounts.ts';
import { type DevServer, serveDev } from './dev-server.ts';

/** The lending desk's Book with one more field. */
const WITH_PAGES = replaceOnce(LENDING_DESK, /\| copies +\|/, (row) => `| pages | integer | optional |\n${row}`);
/** …and a new transition out of `overdue`. */
const WITH_TRANSITION = replaceOnce(
  WITH_PAGES,
  /\| return +\|/,
  (row) => `| forgive | overdue | returned | staff | | |\n${row}`,
);
const quiet = () => undefined;

/** Waits until `check` holds, polling: the watcher reacts within a few hundred milliseconds (30 s is for a slow shared machine). */
async function eventually(check: () => boolean | Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting until ${what}`);
}

describe.each(SQLITE_ONLY)('ninepoint dev on $name', (db) => {
  let dir: string;
  let specPath: string;
  let dev: DevServer;
  let remove: () => Promise<void>;
  const errors: string[] = [];
  const printed: string[] = [];

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ninepoint-dev-'));
    specPath = join(dir, 'spec.md');
    writeFileSync(specPath, LENDING_DESK);
    const fresh = await db.fresh();
    remove = fresh.remove;
    errors.length = 0;
    printed.length = 0;
    const result = await serveDev({
      specPath,
      ...fresh.options,
      port: 0,
      logger: false,
      handleSignals: false,
      print: (line) => printed.push(line),
      printError: (line) => errors.push(line),
      env: {},
    });
    if (!result.ok) throw new Error(`dev did not start: ${errors.join('\n')}`);
    dev = result.server;
  });

  afterEach(async () => {
    await dev.close();
    await remove();
    rmSync(dir, { recursive: true, force: true });
  });

  const bookFields = async () => {
    const spec = (await (await fetch(`${dev.url}/api/spec`)).json()) as {
      entities: { name: string; fields: { name: string }[] }[];
    };
    return spec.entities.find((e) => e.name === 'Book')?.fields.map((f) => f.name) ?? [];
  };

  it('applies a spec saved in any editor without a restart, migrating the database', async () => {
    expect(await bookFields()).not.toContain('pages');
    writeFileSync(specPath, WITH_PAGES);
    await eventually(async () => (await bookFields()).includes('pages'), 'the new field is served');
    expect(dev.status()).toMatchObject({ version: 2, outcome: 'applied' });
    expect(dev.status().message).toMatch(/^Applied version 2: .*pages/);
    const made = await dev.current().store.records('Book');
    expect(made).toBeDefined();
  });

  it('keeps serving the last good spec when the saved one has errors, and says where', async () => {
    const status = await dev.save(LENDING_DESK.replace('| book     | Book |', '| book     | Bok |'));
    expect(status.outcome).toBe('invalid');
    expect(status.message).toMatch(
      /^Not applied: the spec has \d+ errors?; the app keeps serving the last good spec\.$/,
    );
    expect(status.diagnostics).toContainEqual(
      expect.objectContaining({ code: 'unknown-entity', severity: 'error', expected: ['Book'] }),
    );
    expect(errors.some((line) => /spec\.md:\d+:\d+: error \[unknown-entity\]/.test(line))).toBe(true);
    expect((await fetch(`${dev.url}/api/health`)).status).toBe(200);
    expect(dev.status().version).toBe(1);
    expect(readFileSync(specPath, 'utf8')).toContain('| Bok |');

    const fixed = await dev.save(WITH_TRANSITION);
    expect(fixed).toMatchObject({ outcome: 'applied', version: 2 });
    const spec = (await (await fetch(`${dev.url}/api/spec`)).json()) as {
      machines: { entity: string; transitions: { name: string }[] }[];
    };
    expect(spec.machines.find((m) => m.entity === 'Loan')?.transitions.map((t) => t.name)).toContain('forgive');
  });

  it('refuses a destructive edit with the migration plan, and the app keeps its field', async () => {
    await dev.save(WITH_PAGES);
    const staff = await signInAs('staff');
    const created = await fetch(`${dev.url}/api/books`, {
      method: 'POST',
      headers: { cookie: staff, origin: dev.url, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Dune', isbn: '9780441013593', copies: 2, pages: 412 }),
    });
    expect(created.status).toBe(201);

    const status = await dev.save(LENDING_DESK);
    expect(status.outcome).toBe('refused');
    expect(status.message).toMatch(/^Not applied: migrating the database would lose or invalidate data \(.*pages.*\)/);
    expect(status.plan).toMatch(/pages/);
    expect(await bookFields()).toContain('pages');
    const list = await fetch(`${dev.url}/api/books`, { headers: { cookie: staff } });
    expect(((await list.json()) as { items: { pages: number }[] }).items[0]?.pages).toBe(412);
  });

  it('rebuilds nothing for a save that only moves text, and says so', async () => {
    const before = dev.current();
    const status = await dev.save(LENDING_DESK.replace('## 3.', '\n\n## 3.'));
    expect(status).toMatchObject({ version: 1, outcome: 'unchanged' });
    expect(status.message).toBe('Nothing to apply: the spec describes the same app as the one being served.');
    expect(dev.current()).toBe(before);
    expect(await dev.save(WITH_PAGES)).toMatchObject({ version: 2, outcome: 'applied' });
  });

  it('answers malformed HTTP with a catalogued problem, as serve does', async () => {
    const { text, closedByServer } = await rawExchange(Number(new URL(dev.url).port), 'NOT HTTP AT ALL\r\n\r\n');
    expect(text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(problemOf(text)).toMatchObject({ code: 'INVALID_PAYLOAD', status: 400 });
    expect(closedByServer).toBe(true);
  });

  it('tells open pages about every attempt through server-sent events', async () => {
    const controller = new AbortController();
    const response = await fetch(`${dev.url}/api/dev/events`, { signal: controller.signal });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = response.body?.getReader();
    if (!reader) throw new Error('no body');
    const seen: StudioStatus[] = [];
    let buffer = '';
    const read = async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += new TextDecoder().decode(value);
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const data = /^data: (.*)$/m.exec(buffer.slice(0, end))?.[1];
          buffer = buffer.slice(end + 2);
          if (data) seen.push(JSON.parse(data) as StudioStatus);
        }
      }
    };
    const reading = read().catch(() => undefined);
    await eventually(() => seen.length === 1, 'the current status arrives on connect');
    await dev.save(WITH_PAGES);
    await eventually(() => seen.length === 2, 'the applied status arrives');
    expect(seen.map((s) => [s.version, s.outcome])).toEqual([
      [1, 'applied'],
      [2, 'applied'],
    ]);
    controller.abort();
    await reading;
  });

  it('keeps mails in an outbox without SMTP settings: printed with their link, at GET /api/dev/outbox, across saves', async () => {
    expect(printed.at(-1)).toBe(
      `Ninepoint: no SMTP settings: mails are printed here and kept at ${dev.url}/api/dev/outbox, not sent.`,
    );
    const email = 'ada@example.org';
    await addUser(dev.current().auth, { email, roles: ['member'], password: 'correct horse battery staple' }, [
      'staff',
      'member',
    ]);
    const asked = await fetch(`${dev.url}/api/auth/password-reset`, {
      method: 'POST',
      headers: { origin: dev.url, 'content-type': 'application/json' },
      body: JSON.stringify({ email }),
    });
    expect(asked.status).toBe(202);
    type Outbox = { mailer: string; mails: { to: string; subject: string; text: string; from: string }[] };
    const outbox = async () => (await (await fetch(`${dev.url}/api/dev/outbox`)).json()) as Outbox;
    await eventually(async () => (await outbox()).mails.length === 1, 'the mail is in the outbox');
    const [mail] = (await outbox()).mails;
    expect(mail).toMatchObject({ to: email, subject: 'Reset your password for Lending desk' });
    const link = /\S+\/reset-password\?token=\S+/.exec(mail?.text ?? '')?.[0] ?? '';
    expect(link.startsWith(`${dev.url}/reset-password?token=npr_`)).toBe(true);
    expect(printed.join('\n')).toContain(`Ninepoint: mail to ${email}`);
    expect(printed.join('\n')).toContain(link);

    // The outbox belongs to the dev server: a save that replaces the app keeps it.
    writeFileSync(specPath, WITH_PAGES);
    expect((await dev.reload()).outcome).toBe('applied');
    expect((await outbox()).mails).toHaveLength(1);
    const done = await fetch(`${dev.url}/api/auth/password-reset/confirm`, {
      method: 'POST',
      headers: { origin: dev.url, 'content-type': 'application/json' },
      body: JSON.stringify({ token: new URL(link).searchParams.get('token'), password: 'a new password for ada' }),
    });
    expect(done.status).toBe(200);
  });

  it('lets people sign up as soon as a save opens a role to it, the link in the outbox', async () => {
    const open = LENDING_DESK.replace(
      '| role   | Book                         | Loan                 |',
      '| role   | Book                         | Loan                 | joins   |',
    )
      .replace(
        '| ------ | ---------------------------- | -------------------- |',
        '| ------ | ---------------------------- | -------------------- | ------- |',
      )
      .replace(
        '| staff  | create, read, update, delete | create, read, update |',
        '| staff  | create, read, update, delete | create, read, update | -       |',
      )
      .replace(
        '| member | read                         | read own             |',
        '| member | read                         | read own             | sign up |',
      );
    writeFileSync(specPath, open);
    expect((await dev.reload()).outcome).toBe('applied');
    const me = (await (await fetch(`${dev.url}/api/auth/me`)).json()) as { signUp: unknown };
    expect(me.signUp).toEqual([{ role: 'member', domains: [] }]);
    const email = 'grace@example.org';
    const asked = await fetch(`${dev.url}/api/auth/sign-up`, {
      method: 'POST',
      headers: { origin: dev.url, 'content-type': 'application/json' },
      body: JSON.stringify({ email, name: 'Grace' }),
    });
    expect(asked.status).toBe(202);
    type Outbox = { mails: { to: string; subject: string; text: string }[] };
    const outbox = async () => (await (await fetch(`${dev.url}/api/dev/outbox`)).json()) as Outbox;
    await eventually(async () => (await outbox()).mails.length === 1, 'the mail is in the outbox');
    const link = /\S+\/verify-email\?token=\S+/.exec((await outbox()).mails[0]?.text ?? '')?.[0] ?? '';
    expect(link.startsWith(`${dev.url}/verify-email?token=npv_`)).toBe(true);
    const done = await fetch(`${dev.url}/api/auth/verify-email`, {
      method: 'POST',
      headers: { origin: dev.url, 'content-type': 'application/json' },
      body: JSON.stringify({ token: new URL(link).searchParams.get('token'), password: 'a long enough password' }),
    });
    expect(done.status).toBe(200);
    expect(((await done.json()) as { user: { roles: string[] } }).user.roles).toEqual(['member']);
  });

  it('answers the Studio: the file, its status, and saving only from its own pages', async () => {
    const studio = (await (await fetch(`${dev.url}/api/dev/studio`)).json()) as { path: string; source: string };
    expect(studio).toMatchObject({ path: specPath, source: LENDING_DESK });
    const put = (origin: string) =>
      fetch(`${dev.url}/api/dev/studio/source`, {
        method: 'PUT',
        headers: { origin, 'content-type': 'application/json' },
        body: JSON.stringify({ source: WITH_PAGES }),
      });
    const crossSite = await put('https://evil.example');
    expect(crossSite.status).toBe(403);
    expect(readFileSync(specPath, 'utf8')).toBe(LENDING_DESK);
    const saved = await put(dev.url);
    expect(saved.status).toBe(200);
    expect(((await saved.json()) as { status: StudioStatus }).status.outcome).toBe('applied');
    expect(readFileSync(specPath, 'utf8')).toBe(WITH_PAGES);
    const page = await fetch(`${dev.url}/studio`, { headers: { accept: 'text/html' } });
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('keeps the database of a replaced app open until a call it took has finished, though its caller hung up', async () => {
    const old = dev.current();
    const seen: string[] = [];
    let started = () => {};
    const began = new Promise<void>((resolve) => {
      started = resolve;
    });
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const ping = old.store.ping.bind(old.store);
    old.store.ping = async () => {
      started();
      await gate;
      await ping();
      seen.push('ping');
    };
    const close = old.store.close.bind(old.store);
    old.store.close = async () => {
      seen.push('close');
      await close();
    };
    const controller = new AbortController();
    const call = fetch(`${dev.url}/api/health`, { signal: controller.signal }).catch(() => undefined);
    await began;
    controller.abort();
    await call;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await dev.save(WITH_PAGES)).toMatchObject({ outcome: 'applied', version: 2 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen).toEqual([]);
    release();
    await eventually(() => seen.includes('close'), 'the replaced app closes');
    // The store is closed twice (by Fastify's onClose, then by the server): after the call, both.
    expect(seen[0]).toBe('ping');
    expect(seen).toContain('close');
  });

  it('ends the live update streams of a replaced app, so that it closes and pages reconnect to the new one', async () => {
    const old = dev.current();
    let closed = false;
    const close = old.store.close.bind(old.store);
    old.store.close = async () => {
      closed = true;
      await close();
    };
    const cookie = await signInAs('staff');
    const events = await fetch(`${dev.url}/api/events`, { headers: { cookie } });
    expect(events.status).toBe(200);
    const reader = events.body?.getReader();
    await reader?.read();
    expect(await dev.save(WITH_PAGES)).toMatchObject({ outcome: 'applied', version: 2 });
    let done = false;
    while (!done) done = (await reader?.read())?.done ?? true;
    await eventually(() => closed, 'the replaced app closes');
    const again = await fetch(`${dev.url}/api/events`, { headers: { cookie } });
    expect(again.status).toBe(200);
    await again.body?.cancel();
  });

  it('applies no save that arrives while it closes', async () => {
    const before = dev.current();
    const closing = dev.close();
    const saved = await dev.save(WITH_PAGES);
    await closing;
    expect(saved).toMatchObject({ version: 1, outcome: 'applied' });
    expect(dev.current()).toBe(before);
  });

  async function signInAs(role: string): Promise<string> {
    const response = await fetch(`${dev.url}/api/dev/sign-in-as`, {
      method: 'POST',
      headers: { origin: dev.url, 'content-type': 'application/json' },
      body: JSON.stringify({ role }),
    });
    expect(response.status).toBe(200);
    return (response.headers.get('set-cookie') ?? '').split(';', 1)[0] ?? '';
  }
});

describe('saving from the Studio', () => {
  it('writes a symlinked spec where it points, keeping the link and the file’s permissions', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ninepoint-dev-link-'));
    const target = join(dir, 'real.md');
    const link = join(dir, 'spec.md');
    writeFileSync(target, LENDING_DESK, { mode: 0o640 });
    symlinkSync(target, link);
    const result = await serveDev({
      specPath: link,
      dbPath: join(dir, 'dev.db'),
      port: 0,
      logger: false,
      handleSignals: false,
      print: quiet,
      printError: quiet,
    });
    if (!result.ok) throw new Error('dev did not start');
    try {
      expect((await result.server.save(WITH_PAGES)).outcome).toBe('applied');
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      expect(readFileSync(target, 'utf8')).toBe(WITH_PAGES);
      expect(statSync(target).mode & 0o777).toBe(0o640);
      expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    } finally {
      await result.server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
