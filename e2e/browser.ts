/**
 * Chromium for the project's browser tests: Debian's `chromium` package driven by playwright-core
 * (no browser download from a CDN). A test calls `ensureChromium()` in `beforeAll` (installing it
 * takes minutes the first time: give the hook a long timeout), then `launchChromium()`: a context of
 * the file's own in the one Chromium its vitest worker shares between the files it runs.
 *
 * @example
 * let chromium: Chromium | null = null;
 * let unavailable = '';
 * beforeAll(async () => {
 *   const status = await ensureChromium();
 *   if (status.ok) chromium = await launchChromium();
 *   else unavailable = status.reason;
 * }, INSTALL_TIMEOUT_MS);
 * afterAll(() => chromium?.close());
 * it('shows the page', async (ctx) => {
 *   if (!chromium) return ctx.skip(unavailable);
 *   const page = await chromium.newPage();
 *   …
 *   await screenshot(page, 'the-page'); // written only with SCREENSHOTS=1
 * });
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';

/** Where Debian's `chromium` package puts the browser. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** How long a `beforeAll` that may install Chromium should be allowed to run. */
export const INSTALL_TIMEOUT_MS = 15 * 60_000;

/** The folder screenshots are written to (gitignored). */
export const SCREENSHOT_DIR = fileURLToPath(new URL('../test-results/screenshots/', import.meta.url));

/**
 * Flags for a quiet, reproducible headless Chromium: no sandbox (tests run as root in a
 * container), no GPU, and nothing the browser would fetch on its own (updates, sync, QUIC probes).
 * `--headless` comes from the `headless` option; playwright-core gives the browser a temporary
 * profile and removes it when the browser closes.
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  // Shared memory in a container is often 64 MB: Chromium writes to /tmp instead.
  '--disable-dev-shm-usage',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export type ChromiumStatus = { ok: true; installedMs?: number } | { ok: false; reason: string };

let ensuring: Promise<ChromiumStatus> | null = null;

/**
 * Makes sure Debian's Chromium is at `/usr/bin/chromium`, running
 * `apt-get update && apt-get install -y chromium` (printing what it does) when it is not.
 * When that fails, under `CI=true` it throws, so the test fails; elsewhere it resolves to a
 * reason the test should print while it skips. Test files running at once install it only once.
 */
export function ensureChromium(): Promise<ChromiumStatus> {
  ensuring ??= ensure();
  return ensuring;
}

async function ensure(): Promise<ChromiumStatus> {
  // An install under way (another test file's, or the one `.ci/run` starts beside `npm install`)
  // holds the lock: the binary may be there before its libraries are, so wait for the lock first.
  if (existsSync(CHROMIUM_PATH) && !installing() && packageComplete()) return { ok: true };
  const failed = (reason: string): ChromiumStatus => {
    const message = `Chromium is not available at ${CHROMIUM_PATH}: ${reason}`;
    if (process.env.CI === 'true') throw new Error(message);
    console.log(`${message}; skipping the browser tests.`);
    return { ok: false, reason: message };
  };
  const started = Date.now();
  const release = await installLock();
  try {
    // Another test file may have installed it while this one waited for the lock.
    if (existsSync(CHROMIUM_PATH) && packageComplete()) return { ok: true };
    console.log(`Chromium is missing at ${CHROMIUM_PATH}: installing Debian's chromium package.`);
    const steps: [string, string[]][] = [
      // An install cut short (unpacked, not configured) leaves dpkg refusing apt-get until this runs.
      ...(existsSync(CHROMIUM_PATH) ? [['dpkg', ['--configure', '-a']] as [string, string[]]] : []),
      ['apt-get', ['update']],
      ['apt-get', ['install', '-y', 'chromium']],
    ];
    for (const [program, args] of steps) {
      const command = `${program} ${args.join(' ')}`;
      console.log(`$ ${command}`);
      const outcome = await run(program, args);
      if (outcome !== 0) return failed(`"${command}" ${outcome}`);
    }
    if (!existsSync(CHROMIUM_PATH)) return failed('apt-get installed chromium, yet the binary is not there');
    const installedMs = Date.now() - started;
    console.log(`Installed Chromium in ${(installedMs / 1000).toFixed(1)} s.`);
    return { ok: true, installedMs };
  } finally {
    release();
  }
}

/** Runs a command with its output shown; resolves to 0 or a description of how it failed. */
function run(command: string, args: string[]): Promise<0 | string> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    child.on('error', (error) => resolve(`could not start: ${error.message}`));
    child.on('exit', (code, signal) => resolve(code === 0 ? 0 : `exited with ${signal ?? code}`));
  });
}

/**
 * Where the install lock lives; `.ci/run` takes it too, with the same name, in the folder Node's
 * `os.tmpdir()` gives it (the tests' own may be on tmpfs instead: vitest.config.ts).
 */
const INSTALL_LOCK = join(process.env.NINEPOINT_HOST_TMPDIR ?? tmpdir(), 'ninepoint-chromium-install.lock');

/** Whether a live process holds the install lock now. */
function installing(): boolean {
  return existsSync(INSTALL_LOCK) && holderAlive(INSTALL_LOCK);
}

/**
 * Whether dpkg, if this machine has it, holds Debian's chromium package as fully installed ("ii"):
 * an install cut short leaves the binary unpacked without the libraries it needs. A binary that
 * dpkg does not know of was installed some other way, and counts.
 */
function packageComplete(): boolean {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format, not a template.
  const query = spawnSync('dpkg-query', ['-W', '-f=${db:Status-Abbrev}', 'chromium'], { encoding: 'utf8' });
  if (query.error || query.status !== 0) return true;
  return query.stdout.startsWith('ii');
}

/** A lock across processes (vitest runs test files in parallel workers), freed if its holder died. */
async function installLock(): Promise<() => void> {
  const path = INSTALL_LOCK;
  for (;;) {
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx' });
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (!holderAlive(path)) {
      rmSync(path, { force: true });
      continue;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

function holderAlive(lock: string): boolean {
  let pid: number;
  try {
    // A lock held past the install's own time limit is left from a run that was killed: its process
    // id may since belong to another process.
    if (Date.now() - statSync(lock).mtimeMs > INSTALL_TIMEOUT_MS) return false;
    pid = Number(readFileSync(lock, 'utf8'));
  } catch {
    return true; // Being written or just removed: look again shortly.
  }
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface Chromium {
  /** This test file's own context: its cookies, storage and pages are nobody else's. */
  readonly context: BrowserContext;
  /** A new tab. */
  newPage(): Promise<Page>;
  /** Closes the context and its pages; the worker's browser stays up for the next file. */
  close(): Promise<void>;
}

/**
 * The worker's one headless Chromium, launched on first use. Starting Chromium is the costly part
 * of a browser test (about a second of CPU on this machine), so every file a vitest worker runs
 * shares it (the browser project runs without isolation) and gets a context of its own instead.
 * Playwright closes it when the worker exits (its exit and SIGTERM handlers).
 */
let shared: Promise<Browser> | null = null;

/** The contexts open now, for `closeOpenContexts` at the end of each test file. */
const open = new Set<Chromium>();

function sharedBrowser(): Promise<Browser> {
  shared ??= chromium
    .launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS })
    .then((browser) => {
      // A crashed browser is launched again for the next file rather than failing every one after it.
      browser.on('disconnected', () => {
        shared = null;
      });
      return browser;
    })
    .catch((error: unknown) => {
      shared = null;
      throw error;
    });
  return shared;
}

/**
 * A fresh browser context (no cookies, no storage) in the worker's shared headless Chromium.
 * Call `ensureChromium()` first; `close()` it in `afterAll` (the browser project's setup file
 * closes any a file left open).
 */
export async function launchChromium(): Promise<Chromium> {
  const browser = await sharedBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  let closing: Promise<void> | null = null;
  const handle: Chromium = {
    context,
    newPage: () => context.newPage(),
    close() {
      open.delete(handle);
      closing ??= context.close();
      return closing;
    },
  };
  open.add(handle);
  return handle;
}

/** Closes every context still open: a test file's end, so the next file starts from nothing. */
export async function closeOpenContexts(): Promise<void> {
  await Promise.all([...open].map((c) => c.close()));
}

/** Closes the shared browser, for a script that must exit when it is done (`bench/first-load.ts`). */
export async function closeBrowser(): Promise<void> {
  await closeOpenContexts();
  const browser = await shared?.catch(() => null);
  shared = null;
  await browser?.close();
}

/** What a page did that a test should look at: console errors, uncaught exceptions, requests to other hosts. */
export interface PageWatch {
  readonly consoleErrors: string[];
  readonly pageErrors: string[];
  /** Requests to anywhere but the allowed origin; each was aborted, so nothing left the machine. */
  readonly offsite: string[];
  /** Every URL the page requested. */
  readonly requests: string[];
  /** `METHOD url` of every request answered 404. */
  readonly notFound: string[];
}

/**
 * Records a page's console errors, uncaught exceptions and requests, and aborts every request
 * whose origin is not `origin` (data: and blob: URLs stay in the page and are allowed).
 */
export async function watchPage(page: Page, origin: string): Promise<PageWatch> {
  const watch: PageWatch = { consoleErrors: [], pageErrors: [], offsite: [], requests: [], notFound: [] };
  // The app opened as localhost counts as well (WebAuthn needs a domain, not 127.0.0.1, as its RP ID).
  const loopback = origin.replace('://127.0.0.1:', '://localhost:');
  const local = (url: string) =>
    url.startsWith('data:') || url.startsWith('blob:') || [origin, loopback].includes(new URL(url).origin);
  page.on('console', (message) => {
    if (message.type() === 'error') watch.consoleErrors.push(`${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => watch.pageErrors.push(error.message));
  page.on('request', (request) => watch.requests.push(request.url()));
  page.on('response', (response) => {
    if (response.status() === 404) watch.notFound.push(`${response.request().method()} ${response.url()}`);
  });
  await page.route(
    (url) => !local(url.href),
    (route) => {
      watch.offsite.push(route.request().url());
      return route.abort('blockedbyclient');
    },
  );
  return watch;
}

/**
 * Whether the browser tests write their screenshots: only when `SCREENSHOTS=1` is set (the
 * command that regenerates docs/images, `npm run docs:images`). A whole-page PNG costs Chromium a
 * render and an encode, and the tests took about a hundred and fifty of them per run that nobody
 * looked at; without it each test takes the same steps and checks the same things, the page
 * settled the same way, and only the file is not written.
 */
export const SCREENSHOTS = process.env.SCREENSHOTS === '1';

/**
 * Saves a PNG of a whole page (all of it, not only the viewport, unless `viewport`) or of one
 * element as `test-results/screenshots/<name>.png`, prints its path and returns it; with
 * `SCREENSHOTS` unset, does nothing and returns null.
 */
export async function screenshot(
  target: Page | Locator,
  name: string,
  { viewport = false }: { viewport?: boolean } = {},
): Promise<string | null> {
  if (!SCREENSHOTS) return null;
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name.replace(/[^A-Za-z0-9._-]+/g, '-')}.png`);
  if ('goto' in target) await target.screenshot({ path, fullPage: !viewport });
  else await target.screenshot({ path });
  console.log(`Screenshot: ${path}`);
  return path;
}
