/**
 * The web app end to end: a real `ninepoint serve` server (createServer + listen on a free port of
 * 127.0.0.1, over a temp SQLite database or a fresh PostgreSQL schema) with the built React app,
 * driven by Debian's Chromium through playwright-core (see browser.ts). Each example's suite (`app-*.browser.test.ts`) starts
 * one server and one browser, adds one user per role with a password, seeds records through the
 * API, and then does in the browser what a person would: sign in through the sign-in page, open
 * screens from the navigation, fill in forms, take transitions, sign out. Pages are found by role
 * and accessible name, never by CSS classes, and every screen is checked with axe-core.
 *
 * @example
 * const app = await startApp('lending-desk.md', ['staff', 'member']);
 * const page = await app.page();              // a fresh tab, watched (see `watchPage`)
 * await signIn(page, app.users.staff);
 * await expectAccessible(page, 'the catalogue');
 * await app.expectQuiet();                     // no page error, nothing left 127.0.0.1
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  addUser,
  assignableRoles,
  createApiToken,
  createServer,
  type DevServer,
  type MailOptions,
  mailSettingsFromEnv,
  type NinepointServer,
  type ServerOptions,
  serveDev,
  smtpMailer,
} from '@ninepoint/server';
import { blankSpec, checkSpec, type Model } from '@ninepoint/spec';
import type { AxeResults, Result } from 'axe-core';
import type { Locator, Page, Request } from 'playwright-core';
import { expect } from 'vitest';
import { type FreshDatabase, TEST_DATABASES, type TestDatabase } from '../packages/server/test/databases.ts';
import { type Chromium, ensureChromium, launchChromium, type PageWatch, screenshot, watchPage } from './browser.ts';

export { INSTALL_TIMEOUT_MS } from './browser.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const AXE_PATH = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/**
 * How long one browser step may wait for the page. The app answers in milliseconds on loopback,
 * but on a shared 2-core machine whose CPU is slow for a while (2026-11-28: CI took twice as long,
 * with Chromium, the app and the other lane's servers contending) a page's first load took past
 * 10 s, and every later step of the file failed after it.
 */
export const STEP_MS = 30_000;

/** A person of the app: one per role, with a password to sign in through the sign-in page. */
export interface Person {
  id: string;
  name: string;
  email: string;
  password: string;
  /** Their one role; '' for a person without a role (the blank spec has none). */
  role: string;
  /** An API token, to seed records as this person without the browser. */
  token: string;
}

export interface App {
  readonly url: string;
  readonly model: Model;
  readonly server: NinepointServer;
  /** One person per role of the spec, by role. */
  readonly users: Readonly<Record<string, Person>>;
  /** The browser; null when Chromium is not available (the tests then skip with `unavailable`). */
  readonly chromium: Chromium | null;
  readonly unavailable: string;
  /**
   * A fresh tab, signed out, watched: the tabs opened before are closed and the cookies cleared
   * (the browser has one context), and each test asserts with `expectQuiet` that nothing went wrong.
   */
  page(): Promise<Page>;
  /** Every page of this app had no uncaught error and no console error, and asked nothing of another host. */
  expectQuiet(): void;
  /**
   * No request of the latest page (`page()`) was answered 404: it asked for no call the server
   * does not have (such as a dev-only one under `serve`). Not for a test that opens a missing page or record.
   */
  expectNothingNotFound(): void;
  /** Adds one more person with a role, or none (as `ninepoint users add` does). */
  addPerson(role: string | null, name: string): Promise<Person>;
  /** Calls the API as a person (with their token): the seeding of records a test starts from. */
  /** A call as `person`: a JSON body, or a FormData one (a write with files, multipart/form-data). */
  api<T = Json>(person: Person, method: string, path: string, body?: unknown): Promise<T>;
  close(): Promise<void>;
}

// biome-ignore lint/suspicious/noExplicitAny: answers are JSON, read by tests that know their shape.
export type Json = any;

/** The password every person of a suite signs in with. */
export const PASSWORD = 'a long enough password for the e2e run';

/**
 * Builds the web app when packages/web/dist is missing (the build script rebuilds only when the
 * sources changed), so the server serves the app these tests drive. Test files start at once in
 * several workers: one builds while the others wait for it.
 */
export async function ensureWebApp(): Promise<void> {
  const built = () => existsSync(`${ROOT}packages/web/dist/index.html`);
  if (built()) return;
  const lock = join(tmpdir(), 'ninepoint-web-build.lock');
  for (;;) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (!lockHolderAlive(lock)) rmSync(lock, { force: true });
    else await new Promise((resolve) => setTimeout(resolve, 500));
  }
  try {
    if (built()) return;
    console.log('packages/web/dist is missing: building the web app (node scripts/build-web.mjs).');
    const { status } = spawnSync(process.execPath, ['scripts/build-web.mjs'], { cwd: ROOT, stdio: 'inherit' });
    if (status !== 0 || !built()) throw new Error(`node scripts/build-web.mjs exited with ${status}`);
  } finally {
    rmSync(lock, { force: true });
  }
}

function lockHolderAlive(lock: string): boolean {
  try {
    process.kill(Number(readFileSync(lock, 'utf8')), 0);
    return true;
  } catch (error) {
    // Being written (no pid yet) or held by a live process of another user: wait for it.
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'EPERM' || code === undefined;
  }
}

/**
 * Serves an example spec (a file under examples/, a path from the repository's root, or 'blank'
 * for the blank spec `ninepoint new` writes) on a free port of 127.0.0.1 over a fresh SQLite database, adds one person per role, and
 * launches Chromium (or records why it cannot, to skip with). With `smtpUrl` the app mails through
 * that SMTP server (`startSmtpCatcher`), its links pointing to the app. With `database` (one of
 * `TEST_DATABASES`, or its name) it runs on a fresh database of that kind instead: PostgreSQL at
 * `TEST_DATABASE_URL`, in a schema of its own that closing drops.
 */
export async function startApp(
  example: string,
  options: {
    smtpUrl?: string;
    database?: TestDatabase | 'sqlite' | 'postgres';
    /** Point 7's environment (call URLs, secrets, CALLS_ALLOW_PRIVATE) and delivery timing. */
    outbox?: ServerOptions['outbox'];
    /** The server's clock, for a suite that moves time on instead of waiting (two-factor codes). */
    now?: () => number;
  } = {},
): Promise<App> {
  await ensureWebApp();
  const status = await ensureChromium();
  // A name is an example's; a path (with a slash) is from the repository's root.
  const file = example.includes('/') ? `../${example}` : `../examples/${example}`;
  const source = example === 'blank' ? blankSpec() : readFileSync(new URL(file, import.meta.url), 'utf8');
  const { model, ok, diagnostics } = checkSpec(source);
  if (!ok) throw new Error(`${example} has errors: ${JSON.stringify(diagnostics, null, 2)}`);
  const temp =
    typeof options.database === 'object'
      ? await options.database.fresh()
      : await freshDatabase(options.database ?? 'sqlite');
  let server: NinepointServer;
  let url = '';
  const filesFolder = mkdtempSync(join(tmpdir(), 'ninepoint-app-files-'));
  try {
    server = await createServer({
      model,
      ...temp.options,
      logger: false,
      ...mailTo(options.smtpUrl, () => url),
      ...(options.outbox ? { outbox: options.outbox } : {}),
      // Uploaded files beside the test's database, or in a folder of their own beside PostgreSQL.
      fileStorage: filesFolder,
      ...(options.now ? { now: options.now } : {}),
    });
    url = await server.listen({ port: 0, host: '127.0.0.1' });
  } catch (error) {
    await temp.remove();
    throw error;
  }
  const known = assignableRoles(model);
  const watches: { what: string; watch: PageWatch }[] = [];
  let people = 0;

  const addPerson = async (role: string | null, name: string): Promise<Person> => {
    const email = `${name.toLowerCase().replace(/[^a-z]+/g, '.')}.${++people}@example.org`;
    const roles = role === null ? [] : [role];
    const account = await addUser(server.auth, { email, name, roles, password: PASSWORD }, known);
    const { secret } = await createApiToken(server.auth, email, 'e2e seed');
    return { id: account.id, name, email, password: PASSWORD, role: role ?? '', token: secret };
  };
  const users: Record<string, Person> = {};
  let chromium: Chromium | null = null;
  let unavailable = '';
  try {
    for (const role of known) users[role] = await addPerson(role, NAMES[role] ?? `${role} person`);
    if (status.ok) chromium = await launchChromium();
    else unavailable = status.reason;
  } catch (error) {
    await server.close();
    await temp.remove();
    throw error;
  }

  return {
    url,
    model,
    server,
    users,
    chromium,
    unavailable,
    addPerson,
    async page() {
      if (!chromium) throw new Error(unavailable);
      // The new tab opens before the last one closes: Chromium then gives it a renderer the way it
      // would a second tab, which for six loads of the app took 9–11 s of Chromium's CPU against
      // 14–18 s when the last tab closed first (docs/architecture.md, "The fourth session's changes").
      const stale = chromium.context.pages();
      const page = await chromium.context.newPage();
      for (const open of stale) await open.close();
      await chromium.context.clearCookies();
      page.setDefaultTimeout(STEP_MS);
      trackRequests(page);
      watches.push({ what: `page ${watches.length + 1}`, watch: await watchPage(page, url) });
      return page;
    },
    expectQuiet() {
      for (const { what, watch } of watches) {
        expect(watch.pageErrors, `uncaught errors in ${what}`).toEqual([]);
        expect(watch.consoleErrors.filter(unexpectedConsoleError), `console errors in ${what}`).toEqual([]);
        expect(watch.offsite, `requests that tried to leave 127.0.0.1 from ${what}`).toEqual([]);
        // The app opened as localhost is the same server (passkeys need a domain as their RP ID).
        const loopback = url.replace('://127.0.0.1:', '://localhost:');
        const elsewhere = watch.requests.filter(
          (r) => !r.startsWith(`${url}/`) && !r.startsWith(`${loopback}/`) && !r.startsWith('data:'),
        );
        expect(elsewhere, `requests to anywhere but ${url} from ${what}`).toEqual([]);
      }
    },
    expectNothingNotFound() {
      const latest = watches.at(-1);
      if (!latest) throw new Error('expectNothingNotFound: no page was opened');
      expect(latest.watch.notFound, `requests answered 404 in ${latest.what}`).toEqual([]);
    },
    async api(person, method, path, body) {
      const form = body instanceof FormData;
      const response = await fetch(`${url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${person.token}`,
          ...(body === undefined || form ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: form ? body : JSON.stringify(body) }),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${path} as ${person.role} answered ${response.status}: ${text}`);
      return (text === '' ? null : JSON.parse(text)) as never;
    },
    async close() {
      try {
        await chromium?.close();
      } finally {
        await server.close();
        await temp.remove();
        rmSync(filesFolder, { recursive: true, force: true });
      }
    },
  };
}

/** `ninepoint dev` in the test's process, with Chromium (or why it cannot start, to skip with). */
export interface DevApp {
  dev: DevServer;
  /** The spec file it watches: a copy in a folder of its own. */
  specPath: string;
  chromium: Chromium | null;
  unavailable: string;
  close(): Promise<void>;
}

/**
 * Serves an example spec (a file under examples/) as `ninepoint dev` does, from a copy in a fresh
 * folder with SQLite beside it, on a free port of 127.0.0.1, with no SMTP settings (mail is kept in
 * the dev outbox) and nothing printed; launches Chromium.
 */
export async function startDevApp(example: string): Promise<DevApp> {
  await ensureWebApp();
  const dir = mkdtempSync(join(tmpdir(), 'ninepoint-dev-app-'));
  const specPath = join(dir, example);
  writeFileSync(specPath, readFileSync(new URL(`../examples/${example}`, import.meta.url), 'utf8'));
  const quiet = () => undefined;
  const options = { specPath, dbPath: join(dir, 'dev.db'), port: 0, logger: false as const, handleSignals: false };
  const result = await serveDev({ ...options, print: quiet, printError: quiet, env: {} });
  if (!result.ok) throw new Error(`ninepoint dev did not start on ${example}`);
  const dev = result.server;
  const status = await ensureChromium();
  const chromium = status.ok ? await launchChromium() : null;
  return {
    dev,
    specPath,
    chromium,
    unavailable: status.ok ? '' : status.reason,
    async close() {
      try {
        await chromium?.close();
        await dev.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** A fresh database of that kind; PostgreSQL must answer at `TEST_DATABASE_URL`. */
async function freshDatabase(kind: 'sqlite' | 'postgres'): Promise<FreshDatabase> {
  const database = TEST_DATABASES.find((d) => d.name === kind);
  if (!database)
    throw new Error(`No ${kind} database for the e2e run: PostgreSQL does not answer at TEST_DATABASE_URL.`);
  return database.fresh();
}

/** With an SMTP server's URL, mail goes through it (as `SMTP_URL` does) with links to the app's own address. */
function mailTo(smtpUrl: string | undefined, appUrl: () => string): { mail?: MailOptions } {
  if (smtpUrl === undefined) return {};
  const { smtp, from } = mailSettingsFromEnv(
    { SMTP_URL: smtpUrl, MAIL_FROM: 'App <app@example.org>' },
    { appUrlOptional: true },
  );
  if (!smtp || !from) throw new Error(`not SMTP settings: ${smtpUrl}`);
  return { mail: { mailer: smtpMailer(smtp, from), appUrl } };
}

/** Names people of the examples have, so screenshots read like a team's app. */
const NAMES: Record<string, string> = {
  staff: 'Priya Shah',
  member: 'Tom Baker',
  requester: 'Nadia Okafor',
  agent: 'Sam Lee',
  lead: 'Grace Hopper',
  employee: 'Ana Costa',
  manager: 'Ben Müller',
  finance: 'Fatima Zahra',
};

/**
 * Whether a console error is a fault. A refused call (400/401/403/404/409/422: a used reset link,
 * a wrong password, a rule, a record the user may not see) is logged by Chromium as "Failed to load resource", and
 * the app shows the refusal itself: that is no fault, every other console error is.
 */
function unexpectedConsoleError(message: string): boolean {
  return !/Failed to load resource: the server responded with a status of (40[01349]|422)\b/.test(message);
}

/**
 * Signs in through the sign-in page as a person would: the header's "Sign in", the email and
 * password, the button. Waits until the header shows who is signed in.
 */
export async function signIn(page: Page, app: App, person: Person, next = '/'): Promise<void> {
  await page.goto(`${app.url}/sign-in?next=${encodeURIComponent(next)}`);
  await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
  await page.getByRole('textbox', { name: 'Email' }).fill(person.email);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(person.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await accountMenu(page, person).waitFor();
  await page.waitForURL((u) => u.pathname === next.split('?', 1)[0]);
}

/** The header's account button of a signed-in person. */
export function accountMenu(page: Page, person: Person) {
  return page.getByRole('banner').getByRole('button', { name: `Account of ${person.name}` });
}

/** Signs out from the account menu, and checks the header offers to sign in again. */
export async function signOut(page: Page, person: Person): Promise<void> {
  await accountMenu(page, person).click();
  await page.getByRole('menuitem', { name: 'Sign out' }).click();
  await page.getByRole('banner').getByRole('link', { name: 'Sign in' }).waitFor();
  await expect(accountMenu(page, person).count()).resolves.toBe(0);
}

/** The names of the main navigation's links, in order. */
export async function navigationLinks(page: Page): Promise<string[]> {
  const nav = page.getByRole('navigation', { name: 'Main' });
  await nav.getByRole('link').first().waitFor();
  const links = await nav.getByRole('link').all();
  // A link's accessible name is its label followed by its description; as rendered, the label is
  // its first line (the text content runs the two together).
  // biome-ignore lint/performance/useDomNodeTextContent: the rendered lines are what tell the label apart.
  const shown = await Promise.all(links.map((link) => link.innerText()));
  const names = shown.map((text) => (text.split('\n')[0] ?? '').trim());
  // A visitor's navigation ends with "Sign in to see 3 more screens": not a screen.
  return names.filter((name) => name !== 'Sign in');
}

/**
 * The values of one column of the list on the page, top to bottom, as shown: the column is found
 * by its header's label (`Title`, `State`), whatever its position.
 */
export async function columnValues(page: Page, header: string): Promise<string[]> {
  const table = page.getByRole('table');
  await table.getByRole('row').nth(1).waitFor();
  return table.evaluate((element, name) => {
    const heads = [...element.querySelectorAll('thead th')] as HTMLElement[];
    // A sortable header reads "Title, sort ascending" to a screen reader: its label comes first.
    const index = heads.findIndex((th) => (th.textContent ?? '').split(',')[0]?.trim() === name);
    if (index < 0) throw new Error(`The list has no column ${name}: ${heads.map((h) => h.textContent).join(' | ')}`);
    return ([...element.querySelectorAll('tbody tr')] as HTMLTableRowElement[]).map(
      (row) => row.cells[index]?.textContent?.trim() ?? '',
    );
  }, header);
}

/**
 * The message a form field shows, as assistive technology reads it: the field is marked invalid
 * and the text it is described by (its error and its description, in the order the input gives).
 * Empty when it is valid.
 */
export async function fieldError(field: Locator): Promise<string> {
  return field.evaluate((element) => {
    if (element.getAttribute('aria-invalid') !== 'true') return '';
    const ids = (element.getAttribute('aria-describedby') ?? '').split(/\s+/).filter(Boolean);
    return ids.map((id) => document.getElementById(id)?.textContent ?? '').join(' ');
  });
}

/** Requests under way per page, and when that last changed: `settle` waits for a quiet page. */
const traffic = new WeakMap<Page, { open: number; changed: number }>();

function trackRequests(page: Page): void {
  const state = { open: 0, changed: Date.now() };
  traffic.set(page, state);
  const done = () => {
    state.open = Math.max(0, state.open - 1);
    state.changed = Date.now();
  };
  // The live update stream (`/api/events`) stays open while the page is: it is no loading.
  const counted = (request: Request) => request.resourceType() !== 'eventsource';
  page.on('request', (request) => {
    if (!counted(request)) return;
    state.open++;
    state.changed = Date.now();
  });
  page.on('requestfinished', (request) => counted(request) && done());
  page.on('requestfailed', (request) => counted(request) && done());
}

/**
 * Waits until a page is settled, for axe and screenshots: no request under way for 150 ms (the app
 * asks for what a screen shows as it renders), no spinner or skeleton, fonts loaded, no transition
 * running. Quicker than Playwright's `networkidle`, which always waits 500 ms.
 */
export async function settle(page: Page): Promise<void> {
  const state = traffic.get(page);
  const deadline = Date.now() + STEP_MS;
  while (state && (state.open > 0 || Date.now() - state.changed < 150)) {
    if (Date.now() > deadline) throw new Error(`${page.url()} kept loading for ${STEP_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  await still(page);
  // A dialog mounts transparent and starts fading in a frame or two later: a look in between
  // finds no animation running yet (axe then read half-faded colours). Look again after two frames.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await still(page);
}

/** Nothing loading, fonts in, no animation running. */
async function still(page: Page): Promise<void> {
  await page.waitForFunction(
    () =>
      document.querySelectorAll('[aria-busy="true"], .mantine-Skeleton-root, .mantine-Loader-root').length === 0 &&
      document.fonts.status === 'loaded' &&
      // A menu or dialog fading in is half transparent: its colours are not yet what it shows.
      document.getAnimations().every((a) => a.playState !== 'running'),
    undefined,
    { timeout: STEP_MS, polling: 50 },
  );
}

/**
 * A screenshot of the page as a person would see it: settled, the mouse moved off whatever the
 * test last clicked (a hovered link is darker), into test-results/screenshots/<name>.png. The page
 * is settled and the mouse moved whether or not `SCREENSHOTS=1` asks for the file (browser.ts), so
 * a test takes the same steps either way.
 */
export async function capture(page: Page, name: string): Promise<string | null> {
  await page.mouse.move(1, 1);
  await settle(page);
  return screenshot(page, name);
}

let axeScript: string | null = null;
function axeSource(): string {
  axeScript ??= readFileSync(AXE_PATH, 'utf8');
  return axeScript;
}

/** Impacts that fail a test: moderate ones too (a duplicate landmark misleads a screen reader's map of the page). */
const FAILING = new Set(['moderate', 'serious', 'critical']);

/**
 * Runs axe-core on the page as it is (WCAG 2.x A and AA, and best practices) and fails on any
 * moderate, serious or critical violation, listing each with its rule, help and the elements at
 * fault. Answers the minor ones, for the report.
 */
export async function expectAccessible(page: Page, what: string): Promise<Result[]> {
  await settle(page);
  // The app's CSP allows scripts from its own origin only, so a <script> tag (what
  // `page.addScriptTag({ path })` adds) is refused; evaluated through the DevTools protocol, as
  // Playwright's `evaluate` does, axe runs without weakening the policy the page is tested with.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource());
  const results = await page.evaluate(() =>
    (window as unknown as { axe: { run(context: Document, options: object): Promise<AxeResults> } }).axe.run(document, {
      resultTypes: ['violations'],
    }),
  );
  const failing = results.violations.filter((v) => FAILING.has(v.impact ?? ''));
  expect(failing.length, `axe on ${what} (${page.url()}):\n${describeViolations(failing)}`).toBe(0);
  const other = results.violations.filter((v) => !FAILING.has(v.impact ?? ''));
  if (other.length > 0) console.log(`axe on ${what}: ${other.length} minor:\n${describeViolations(other)}`);
  axeLog.push({ what, url: page.url(), serious: failing.length, other: other.map((v) => `${v.impact} ${v.id}`) });
  return other;
}

/** Every axe run of this process, for a summary at the end of a suite. */
export const axeLog: { what: string; url: string; serious: number; other: string[] }[] = [];

export function describeViolations(violations: readonly Result[]): string {
  return violations
    .map((v) => {
      const nodes = v.nodes
        .slice(0, 5)
        .map((n) => `    ${n.target.join(' ')}: ${n.failureSummary?.replace(/\s+/g, ' ') ?? ''}`)
        .join('\n');
      const more = v.nodes.length > 5 ? `\n    … and ${v.nodes.length - 5} more` : '';
      return `  [${v.impact}] ${v.id}: ${v.help} (${v.helpUrl})\n${nodes}${more}`;
    })
    .join('\n');
}

/** Prints what axe found in a suite, one line per screen. */
export function printAxeSummary(suite: string): void {
  const lines = axeLog.map(
    (r) =>
      `  ${r.what}: ${r.serious} moderate or worse${r.other.length > 0 ? `; ${r.other.join(', ')}` : ''} (${new URL(r.url).pathname})`,
  );
  console.log(`axe-core on ${suite}, ${axeLog.length} screens:\n${lines.join('\n')}`);
}

/** An ISO date `days` from today (UTC); negative for the past. */
export function inDays(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

/**
 * Picks an option of a searchable select (a reference or a choice): types to search, then clicks
 * the option. Mantine renders options in a listbox outside the form (a portal).
 */
export async function pick(page: Page, label: string | RegExp, search: string, option: string | RegExp) {
  const input = page.getByRole('textbox', { name: label }).or(page.getByRole('combobox', { name: label }));
  await input.first().click();
  await input.first().fill(search);
  await page.getByRole('option', { name: option }).first().click();
}

/**
 * Opens a board card's "Move to…" menu and picks a move (`Returned — Return`); with `axe`, checks
 * the page with the menu open, named for the report.
 */
export async function moveTo(page: Page, card: string, move: string, axe?: string): Promise<void> {
  const button = page.getByRole('button', { name: `Move to… (${card})` });
  await button.click();
  // The menu is named by its button; another card's menu may still be fading out.
  const menu = page.getByRole('menu', { name: `Move to… (${card})` });
  await menu.waitFor();
  if (axe) await expectAccessible(page, axe);
  await menu.getByRole('menuitem', { name: move }).click();
}

/** The titles of the cards in a board's column (a region named by its state), top to bottom. */
export async function boardCards(page: Page, state: string): Promise<string[]> {
  const column = page.getByRole('region', { name: state, exact: true });
  await column.waitFor();
  return column.getByRole('listitem').getByRole('link').allTextContents();
}

/** A datetime-local input's value `hours` from now, in the browser's (and this machine's) time zone. */
export function localDateTime(hours = 0): string {
  const at = new Date(Date.now() + hours * 3_600_000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`;
}

/**
 * Takes a step into a final state (closing, paying, writing off) in the dialog that asks first,
 * after checking it names what the step does.
 */
export async function confirmFinalStep(page: Page, transition: string): Promise<void> {
  const dialog = page.getByRole('dialog', { name: new RegExp(`^${transition} “`) });
  await dialog.waitFor();
  expect(await dialog.textContent()).toContain('is final: no step leads out of it, so this cannot be undone.');
  await dialog.getByRole('button', { name: transition, exact: true }).click();
  await dialog.waitFor({ state: 'hidden' });
}

/** What an element shows on screen: its text without the words kept for screen readers only (`data-unseen`). */
export function shownText(element: Locator): Promise<string> {
  return element.evaluate((el) => {
    const copy = el.cloneNode(true) as HTMLElement;
    for (const unseen of copy.querySelectorAll('[data-unseen]')) unseen.remove();
    return (copy.textContent ?? '').replace(/\s+/g, ' ').trim();
  });
}

/**
 * Why a detail page's transition button is disabled, as it is shown and read with the button
 * (its `aria-describedby`): '' while the button is enabled.
 */
export async function disabledReason(button: Locator): Promise<string> {
  await button.waitFor();
  return button.evaluate((element) => {
    if (!(element as HTMLButtonElement).disabled) return '';
    const id = element.getAttribute('aria-describedby') ?? '';
    return document.getElementById(id)?.textContent ?? '';
  });
}

/** A small PDF, as a receipt's scan: its first bytes are what make it one. */
export const PDF_BYTES = new TextEncoder().encode(
  '%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
);

/** A write with files for `App.api`: the record as the `record` part, each file as a part named by its field. */
export function withFiles(
  record: unknown,
  files: readonly { field: string; name: string; bytes: Uint8Array }[],
): FormData {
  const form = new FormData();
  form.append('record', JSON.stringify(record));
  for (const file of files) form.append(file.field, new Blob([new Uint8Array(file.bytes)]), file.name);
  return form;
}

/**
 * A list's "+ Filter" builder: field → condition → value → (Join) → Add filter. The value is typed
 * (`'printer'`), a range's two ends (`['1', '3']`, either may be ''), or choices ticked
 * (`{ any: ['hardware'] }`); none for "is empty".
 */
export async function addFilter(
  page: Page,
  field: string,
  condition: string,
  value: string | [string, string] | { any: string[] } | null,
  join?: string,
): Promise<void> {
  await page.getByRole('button', { name: 'Filter', exact: true }).click();
  const form = page.getByRole('form', { name: 'Add a filter' });
  const pickIn = async (label: string, option: string) => {
    await form.getByRole('combobox', { name: label, exact: true }).click();
    await page.getByRole('listbox', { name: label }).getByRole('option', { name: option, exact: true }).click();
  };
  await pickIn('Field', field);
  await pickIn('Condition', condition);
  if (typeof value === 'string') await form.getByRole('textbox', { name: 'Value', exact: true }).fill(value);
  else if (Array.isArray(value)) {
    await form.getByRole('textbox', { name: 'From', exact: true }).fill(value[0]);
    await form.getByRole('textbox', { name: 'To', exact: true }).fill(value[1]);
  } else if (value) {
    // The list of choices stays open while they are ticked.
    const choices = form.getByRole('combobox', { name: 'Any of', exact: true });
    // The input sits inside its pills' box, which takes the click (and opens the list) for it.
    await choices.click({ force: true });
    for (const option of value.any) {
      await page.getByRole('listbox', { name: 'Any of' }).getByRole('option', { name: option }).click();
    }
    // Leaving the input closes the list (Escape would close the whole builder).
    await choices.press('Tab');
    await page.getByRole('listbox', { name: 'Any of' }).waitFor({ state: 'hidden' });
  }
  if (join) await pickIn('Join', join);
  await form.getByRole('button', { name: 'Add filter' }).click();
  await form.waitFor({ state: 'hidden' });
}
