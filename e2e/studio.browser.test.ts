import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  capture,
  ensureWebApp,
  expectAccessible,
  INSTALL_TIMEOUT_MS,
  inDays,
  type Json,
  navigationLinks,
  type Person,
  pick,
  STEP_MS,
  signIn,
  startApp,
} from './app.ts';
import { type Chromium, ensureChromium, launchChromium, type PageWatch, watchPage } from './browser.ts';

/**
 * The dev loop in Chromium: `ninepoint dev` on a copy of the lending desk, the Studio at /studio.
 * A person types a mistake and sees it underlined and listed at its line and column, fixes it with
 * the quick fix, adds a field and a transition, saves, and (same server, no restart) the app tab
 * open on the book form grows the field without a reload and a loan's page gets the transition's
 * button. Then a destructive edit is refused with its migration plan while the app keeps serving.
 * Under `serve`, /studio says how to get the Studio and the app never opens the event stream.
 */

const bin = new URL('../packages/cli/bin/ninepoint.js', import.meta.url).pathname;
const SPEC = readFileSync(new URL('../examples/lending-desk.md', import.meta.url), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'ninepoint-studio-'));
const specPath = join(dir, 'lending-desk.md');

let child: ChildProcess | null = null;
let url = '';
let chromium: Chromium | null = null;
let unavailable = '';
let book: Json;
let loan: Json;

/** The 1-based line and column where `needle` starts, after `after` (a line of the spec that precedes it). */
function position(source: string, needle: string, after = ''): { line: number; column: number } {
  const at = source.indexOf(needle, after === '' ? 0 : source.indexOf(after));
  if (at < 0) throw new Error(`The spec has no "${needle}"`);
  const before = source.slice(0, at).split('\n');
  return { line: before.length, column: (before.at(-1) ?? '').length + 1 };
}

/** Starts `ninepoint dev` on the copy of the spec and a fresh SQLite file; answers its URL. */
function startDev(): Promise<string> {
  const dev = spawn(process.execPath, [bin, 'dev', specPath, '--port', '0', '--db', join(dir, 'app.db')], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_ENV: 'development', LOG_LEVEL: 'warn' },
  });
  child = dev;
  return new Promise((resolve, reject) => {
    let out = '';
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /serving "[^"]*" at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    };
    dev.stdout?.on('data', read);
    dev.stderr?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    dev.on('exit', (code) => reject(new Error(`ninepoint dev exited with ${code} before listening:\n${out}`)));
  });
}

/** Signs in as a role's demo user (dev mode's call) and answers the session cookie, to seed records. */
async function devSession(role: string): Promise<string> {
  const response = await fetch(`${url}/api/dev/sign-in-as`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url },
    body: JSON.stringify({ role }),
  });
  if (!response.ok) throw new Error(`sign-in-as ${role}: ${response.status} ${await response.text()}`);
  return (response.headers.get('set-cookie') ?? '').split(';', 1)[0] ?? '';
}

async function call(cookie: string, method: string, path: string, body?: unknown): Promise<Json> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { cookie, origin: url, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text === '' ? null : JSON.parse(text);
}

beforeAll(async () => {
  writeFileSync(specPath, SPEC);
  await ensureWebApp();
  const status = await ensureChromium();
  url = await startDev();
  const staff = await devSession('staff');
  const member = await call(await devSession('member'), 'GET', '/api/auth/me');
  book = await call(staff, 'POST', '/api/books', {
    title: 'Small Gods',
    author: 'Pratchett, Terry',
    isbn: '9780552152976',
    copies: 4,
    shelf: 'FIC-210',
    summary: 'A god returns as a tortoise.',
  });
  loan = await call(staff, 'POST', '/api/loans', {
    book: book.id,
    borrower: member.user.id,
    lent_on: inDays(-2),
    due: inDays(12),
  });
  if (status.ok) chromium = await launchChromium();
  else unavailable = status.reason;
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  await chromium?.close();
  child?.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

/** A refused call (a 404 probe, a 401 before sign-in) is logged by Chromium and is no fault. */
function faults(watch: PageWatch): string[] {
  const refused = /Failed to load resource: the server responded with a status of (40[1349]|422)\b/;
  return [...watch.pageErrors, ...watch.consoleErrors.filter((m) => !refused.test(m))];
}

/** The Studio's editor (CodeMirror's content, a textbox). */
const editor = (page: Page) => page.getByRole('textbox', { name: 'Spec source, Markdown' });

/**
 * Puts the editor's cursor at a 1-based line and column with the keyboard, as a person would:
 * to the top, down line by line, then along the line (with line wrapping switched off).
 */
async function cursorTo(page: Page, line: number, column: number): Promise<void> {
  await editor(page).focus();
  await page.keyboard.press('Control+Home');
  for (let i = 1; i < line; i++) await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Home');
  for (let i = 1; i < column; i++) await page.keyboard.press('ArrowRight');
}

/**
 * Moves the keyboard out of the editor: its blinking cursor is an endless animation, and a settled
 * page (for axe and screenshots) has none running.
 */
async function leaveEditor(page: Page): Promise<void> {
  await page.getByRole('tab', { selected: true }).focus();
}

/** Saves with the keyboard and waits for the server's answer about this save (a newer status). */
async function save(page: Page, outcome: string): Promise<string> {
  const status = page.locator(`[role="status"][data-outcome="${outcome}"]`);
  const before = await page.getByText(/^Version \d+/).textContent();
  await page.keyboard.press('Control+s');
  await expect.poll(
    async () => (await status.count()) > 0 && (await page.getByText(/^Version \d+/).textContent()) !== before,
  );
  // One status: saved, and whether the server applied it, never "Saved" beside "Not applied".
  const said = outcome === 'applied' ? 'Saved and applied' : 'Saved, not applied';
  await page.locator(`[data-status="${said}"]`).waitFor();
  return (await status.textContent()) ?? '';
}

// First, on the spec as written: the test below edits it.
describe('a refusal under ninepoint dev', () => {
  it('has a "why?" that opens the Studio with the line of the rule that refused selected', async (ctx) => {
    if (!chromium) return ctx.skip(unavailable);
    // A context of its own: signed in here, the test below still finds the sign-in page.
    const own = await launchChromium();
    const page = await own.newPage();
    page.setDefaultTimeout(STEP_MS);
    const watch = await watchPage(page, url);
    await page.goto(`${url}/sign-in?next=/loans/new`);
    await page.getByRole('button', { name: 'Sign in as staff' }).click();
    await page.waitForURL(`${url}/loans/new`);
    await page.getByRole('heading', { name: 'New loan', level: 1 }).waitFor();
    await pick(page, 'Book', 'Small', 'Small Gods');
    await pick(page, 'Borrower', 'Demo', /^Demo member/);
    await page.getByRole('textbox', { name: 'Due' }).fill(inDays(-1));
    await page.getByRole('button', { name: 'Create loan' }).click();

    // DUE_BEFORE_LENT: point 5's "due after lending" row.
    const rule = position(SPEC, '| due after lending');
    const words = SPEC.split('\n')[rule.line - 1]?.trim() ?? '';
    const why = page.getByRole('alert').getByRole('link', { name: `Why? Spec line ${rule.line}` });
    await why.click();
    await page.waitForURL(new RegExp(`/studio\\?line=${rule.line}&`));
    await editor(page).waitFor();
    // The rule's whole line is selected, in view, with the keyboard in the editor.
    await expect.poll(
      async () => (await page.evaluate(() => window.getSelection()?.toString() ?? '')).trim() === words,
    );
    const selected = page.locator('.cm-line', { hasText: words });
    expect(await selected.isVisible()).toBe(true);
    expect(faults(watch), 'faults on the page').toEqual([]);
    await own.close();
  });
});

describe('a history entry under ninepoint dev', () => {
  it('names the line of its transition, which opens the Studio at that line', async (ctx) => {
    if (!chromium) return ctx.skip(unavailable);
    const own = await launchChromium();
    const page = await own.newPage();
    page.setDefaultTimeout(STEP_MS);
    const watch = await watchPage(page, url);
    await page.goto(`${url}/sign-in?next=/loans/new`);
    await page.getByRole('button', { name: 'Sign in as staff' }).click();
    await page.waitForURL(`${url}/loans/new`);
    await page.getByRole('heading', { name: 'New loan', level: 1 }).waitFor();
    await pick(page, 'Book', 'Small', 'Small Gods');
    await pick(page, 'Borrower', 'Demo', /^Demo member/);
    await page.getByRole('textbox', { name: 'Due' }).fill(inDays(14));
    await page.getByRole('button', { name: 'Create loan' }).click();
    await page.waitForURL(/\/loans\/[0-9a-f-]{36}$/);

    const actions = page.getByRole('group', { name: 'What you can do with this loan' });
    await actions.getByRole('button', { name: 'Renew' }).click();
    await page.getByRole('status').filter({ hasText: 'Renew done' }).waitFor();

    // The renewal's entry names point 4's "renew" row.
    const renew = position(SPEC, '| renew ', '## 4.');
    const words = SPEC.split('\n')[renew.line - 1]?.trim() ?? '';
    const history = page.getByRole('region', { name: 'History' });
    const link = history.getByRole('link', { name: `Spec line ${renew.line}: ${words}` });
    expect(await link.textContent()).toBe(`line ${renew.line}`);
    await link.click();
    await page.waitForURL(new RegExp(`/studio\\?line=${renew.line}&`));
    await editor(page).waitFor();
    await expect.poll(
      async () => (await page.evaluate(() => window.getSelection()?.toString() ?? '')).trim() === words,
    );
    expect(faults(watch), 'faults on the page').toEqual([]);
    await own.close();
  });
});

describe('the Studio under ninepoint dev', () => {
  it('checks as you type, applies a saved spec to the running app, and refuses a migration that loses data', async (ctx) => {
    if (!chromium) return ctx.skip(unavailable);
    const started = Date.now();
    const context = chromium.context;

    // The app in a tab of its own, signed in with one click of the dev sign-in, on the book form.
    const app = await context.newPage();
    app.setDefaultTimeout(STEP_MS);
    const appWatch = await watchPage(app, url);
    await app.goto(`${url}/sign-in?next=/books/new`);
    await app.getByRole('button', { name: 'Sign in as staff' }).click();
    await app.waitForURL(`${url}/books/new`);
    await app.getByRole('textbox', { name: /^Title/ }).waitFor();
    expect(await app.getByRole('textbox', { name: /^Pages/ }).count()).toBe(0);
    // Dev mode puts the Studio in the navigation.
    await app
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: /^Studio/ })
      .waitFor();

    const page = await context.newPage();
    page.setDefaultTimeout(STEP_MS);
    const watch = await watchPage(page, url);
    await page.goto(`${url}/studio`);
    await editor(page).waitFor();
    await page.getByText('No problems', { exact: true }).waitFor();
    await editor(page).getByText('# Specification: Lending desk').waitFor();

    // A table row is never wrapped mid-row: the widest row is one line high, and the editor scrolls sideways.
    const scroller = page.locator('.cm-scroller');
    const sideways = () => scroller.evaluate((el) => el.scrollWidth > el.clientWidth + 1);
    expect(await sideways()).toBe(true);
    const rowHeights = await page
      .locator('.cm-line', { hasText: /^\| route / })
      .first()
      .evaluate((row) => [row.getBoundingClientRect().height, Number.parseFloat(getComputedStyle(row).lineHeight)]);
    expect(rowHeights[0]).toBeLessThan((rowHeights[1] ?? 0) * 1.5);

    // A mistake, typed: Loan.book names "Bok". The checker runs in the browser as you type.
    const typo = position(SPEC, 'Book      |', '| book           |');
    await cursorTo(page, typo.line, typo.column + 2);
    await page.keyboard.press('Delete');
    const problems = page.getByRole('list', { name: 'Problems' });
    const entry = problems.getByRole('listitem').filter({ hasText: 'unknown-entity' });
    await entry.waitFor();
    expect(await entry.getByRole('button').first().textContent()).toContain(`${typo.line}:${typo.column}`);
    expect(await entry.textContent()).toContain('Did you mean "Book"?');
    const underline = page.locator('.cm-lintRange-error', { hasText: 'Bok' });
    await underline.first().waitFor();
    await leaveEditor(page);
    await capture(page, 'studio-diagnostics');

    // Clicking the entry puts the cursor on the mistake; its quick fix corrects it.
    await entry.getByRole('button').first().click();
    await expect.poll(() => editor(page).evaluate(() => document.activeElement?.classList.contains('cm-content')));
    await entry.getByRole('button', { name: 'Fix: Change "Bok" to "Book"' }).click();
    await page.getByText('No problems', { exact: true }).waitFor();

    // The outline jumps to a point: its heading is at the top of the editor, the cursor on it.
    await page.getByRole('tab', { name: 'Outline' }).click();
    const outline = page.getByRole('navigation', { name: 'Outline of the spec' });
    await outline.getByRole('button', { name: /^4\. States and transitions/ }).click();
    const active = page.locator('.cm-activeLine');
    await expect.poll(() => active.textContent()).toBe('## 4. States and transitions');
    const top = async () => {
      const [line, view] = await Promise.all([active.boundingBox(), scroller.boundingBox()]);
      return (line?.y ?? 0) - (view?.y ?? 0);
    };
    await expect.poll(top).toBeLessThan(40);
    await outline
      .getByRole('button', { name: /^Loan\b/ })
      .first()
      .click();
    await expect.poll(() => active.textContent()).toBe('### Loan');

    // Guided forms write the rows: a whole number and a file field with its limits on Book.
    const addMenu = async (what: string) => {
      await page.getByRole('button', { name: 'Add…' }).click();
      await page.getByRole('menuitem', { name: what }).click();
      return page.getByRole('dialog', { name: `Add ${what.replace(/^A /, 'a ')}` });
    };
    // A Mantine select is a combobox; a multi-select's search field a textbox.
    const choose = (within: Locator, name: string | RegExp) =>
      within.getByRole('combobox', { name }).or(within.getByRole('textbox', { name })).first();
    let form = await addMenu('A field');
    await form.getByRole('textbox', { name: /^Name/ }).fill('pages');
    await choose(form, 'Type').click();
    await page.getByRole('option', { name: 'Whole number' }).click();
    await form.getByRole('textbox', { name: /^Meaning/ }).fill('page count');
    await form.getByRole('button', { name: 'Add the field' }).click();
    await form.waitFor({ state: 'hidden' });
    await page.locator('.cm-line', { hasText: /^\| pages +\| integer +\| +\| page count +\|$/ }).waitFor();

    form = await addMenu('A field');
    await form.getByRole('textbox', { name: /^Name/ }).fill('scan');
    await choose(form, 'Type').click();
    await page.getByRole('option', { name: 'Image', exact: true }).click();
    // A photo may keep its location; the box goes once only kinds that carry none are chosen (pdf).
    await form.getByRole('checkbox', { name: /^Keep photos’ location/ }).waitFor();
    // An image takes raster kinds only; a file any kind the bytes can say.
    await choose(form, /^Kinds accepted/).click();
    expect(await page.getByRole('option', { name: 'pdf' }).count()).toBe(0);
    await page.keyboard.press('Escape');
    await choose(form, 'Type').click();
    await page.getByRole('option', { name: 'File', exact: true }).click();
    await form.getByRole('textbox', { name: /^Largest file, MB/ }).fill('10');
    await choose(form, /^Kinds accepted/).click();
    await page.getByRole('option', { name: 'pdf' }).click();
    await page.keyboard.press('Escape');
    await form.getByRole('checkbox', { name: /^Keep photos’ location/ }).waitFor({ state: 'detached' });
    await form.getByRole('textbox', { name: /^Meaning/ }).fill('the signed donation form');
    await expectAccessible(page, 'the Studio’s guided field form');
    await capture(page, 'studio-add-field');
    await form.getByRole('button', { name: 'Add the field' }).click();
    await form.waitFor({ state: 'hidden' });
    await page
      .locator('.cm-line', { hasText: /^\| scan +\| file +\| at most 10 MB, pdf +\| the signed donation form +\|$/ })
      .waitFor();
    // Completions know the file types: typing in the new row's type cell offers "files, at most 5".
    await page.keyboard.press('Home');
    for (let i = 0; i < '| scan    | file'.length; i++) await page.keyboard.press('ArrowRight');
    await page.keyboard.type('s');
    const offered = page.locator('.cm-tooltip-autocomplete');
    await offered.locator('.cm-completionLabel', { hasText: /^files, at most 5$/ }).waitFor();
    await page.keyboard.press('Escape');
    await offered.waitFor({ state: 'hidden' });
    await page.keyboard.press('Backspace');

    // A choice, with a colour picked per value from the spec's palette (one typed shows as picked).
    form = await addMenu('A field');
    await form.getByRole('textbox', { name: /^Name/ }).fill('condition');
    await choose(form, 'Type').click();
    await page.getByRole('option', { name: 'Choice of values' }).click();
    await form.getByRole('textbox', { name: /^Values/ }).fill('good, worn (grey), damaged');
    expect(await choose(form, 'Colour of worn').inputValue()).toBe('grey');
    await choose(form, 'Colour of good').click();
    await page.getByRole('option', { name: 'teal', exact: true }).click();
    await choose(form, 'Colour of damaged').click();
    await page.getByRole('option', { name: 'red', exact: true }).click();
    await expectAccessible(page, 'the Studio’s guided field form with a colour per choice value');
    await form.getByRole('button', { name: 'Add the field' }).click();
    await form.waitFor({ state: 'hidden' });
    await page
      .locator('.cm-line', { hasText: /^\| condition +\| choice of good \(teal\), worn \(grey\), damaged \(red\) +\|/ })
      .waitFor();

    // A state, written and then undone (nothing leads to it yet); a role; a transition.
    form = await addMenu('A state');
    await form.getByRole('textbox', { name: 'Name' }).fill('damaged');
    await form.getByRole('textbox', { name: 'Meaning' }).fill('back, but not fit to lend');
    await form.getByRole('button', { name: 'Add the state' }).click();
    await page.locator('.cm-line', { hasText: /^\| damaged +\| back, but not fit to lend +\|$/ }).waitFor();
    await page.keyboard.press('Control+z');
    await expect.poll(() => page.locator('.cm-line', { hasText: '| damaged ' }).count()).toBe(0);

    form = await addMenu('A role');
    await form.getByRole('textbox', { name: 'Name' }).fill('volunteer');
    await form.getByRole('textbox', { name: 'Meaning' }).fill('helps at the desk on Saturdays');
    await choose(form, 'May do with Book').click();
    await page.getByRole('option', { name: 'Read all' }).click();
    await form.getByRole('button', { name: 'Add the role' }).click();
    // In the table's own columns: Book, Loan (left empty), people (empty: no say over accounts), meaning.
    await page
      .locator('.cm-line', { hasText: /^\| volunteer +\| read +\| +\| +\| helps at the desk on Saturdays +\|$/ })
      .waitFor();

    form = await addMenu('A transition');
    await form.getByRole('textbox', { name: 'Name' }).fill('report lost');
    await choose(form, 'From').click();
    await page.getByRole('option', { name: 'out', exact: true }).click();
    await page.keyboard.press('Escape');
    await choose(form, 'To').click();
    await page.getByRole('option', { name: 'lost', exact: true }).click();
    await choose(form, /^Who/).click();
    await page.getByRole('option', { name: 'staff', exact: true }).click();
    await page.keyboard.press('Escape');
    await form.getByRole('textbox', { name: /^Meaning/ }).fill('the member says it is gone');
    await form.getByRole('button', { name: 'Add the transition' }).click();
    await page.locator('.cm-line', { hasText: /^\| report lost +\| out +\| lost +\| staff +\|/ }).waitFor();

    // Its call, typed into point 7 (five rows were written above it).
    const call = position(SPEC, '| POST   | /api/loans/:id/write-off');
    await cursorTo(page, call.line + 6, 1);
    await page.keyboard.insertText(
      '| POST   | /api/loans/:id/report-lost  |                                                     | Loan: report lost  |                                    |\n',
    );
    await page.getByText('No problems', { exact: true }).waitFor();
    await page.getByText('Unsaved changes').waitFor();

    // The pictures follow the text: the new transition is in Loan's state diagram.
    await page.getByRole('tab', { name: 'Diagrams' }).click();
    const states = page.getByRole('img', { name: 'State diagram: Loan states' });
    // Mermaid's first load and drawing: seconds on a busy two-core machine.
    await states.locator('svg').waitFor({ timeout: 3 * STEP_MS });
    await expect.poll(async () => (await states.textContent())?.includes('report lost'));
    await page
      .getByRole('img', { name: /Entity-relationship diagram/ })
      .locator('svg')
      .waitFor();
    // At Fit the labels read: never drawn below 0.75 of Mermaid's size (a wide diagram scrolls instead).
    const smallestText = (figure: typeof states) =>
      figure.locator('svg').evaluate((svg: SVGSVGElement) => {
        const scale = svg.getBoundingClientRect().width / (svg.viewBox.baseVal?.width || 1);
        const labels = [...svg.querySelectorAll('text, span')].filter((el) => (el.textContent ?? '').trim() !== '');
        return Math.min(...labels.map((el) => Number.parseFloat(getComputedStyle(el).fontSize) * scale));
      });
    const er = page.getByRole('img', { name: /Entity-relationship diagram/ });
    const fitText = [await smallestText(er), await smallestText(states)];
    console.log(`Diagram text at Fit: ${fitText.map((px) => px.toFixed(1)).join(' px, ')} px (ER, Loan states).`);
    for (const px of fitText) expect(px).toBeGreaterThanOrEqual(11);
    await states.scrollIntoViewIfNeeded();
    await leaveEditor(page);
    await capture(page, 'studio-diagrams');

    // A diagram zooms past the pane (then scrolls) and opens full screen.
    const drawnWidth = () => states.locator('svg').evaluate((svg) => svg.getBoundingClientRect().width);
    const fitted = await drawnWidth();
    await page.getByRole('button', { name: 'Zoom into Loan states' }).first().click();
    await page.getByRole('button', { name: 'Zoom into Loan states' }).first().click();
    await expect.poll(async () => (await drawnWidth()) > fitted * 1.2);
    await page.locator('figure', { has: states }).getByRole('button', { name: 'Full screen' }).click();
    const full = page.getByRole('dialog', { name: 'Loan states' });
    await full.getByRole('img', { name: 'State diagram: Loan states' }).locator('svg').waitFor();
    await page.keyboard.press('Escape');
    await full.waitFor({ state: 'hidden' });

    await page.getByRole('tab', { name: 'Permissions' }).click();
    await page.getByRole('row', { name: /Loan report lost staff/ }).waitFor();
    // The matrix is a grid of marks; each cell is named in words for assistive technology.
    const loanRow = page.getByRole('row', { name: /^Loan\b/ }).first();
    await loanRow.getByRole('group', { name: /read/ }).first().waitFor();
    expect(await loanRow.locator('[data-level="all"]').count()).toBeGreaterThan(0);
    await capture(page, 'studio-permissions');

    // The Progress tab says what the product does as records change: what a transition sets.
    await page.getByRole('tab', { name: 'Progress' }).click();
    await page
      .getByRole('list', { name: 'What transitions set' })
      .getByText('Loan: renew sets due = due + LOAN_PERIOD, renewals = renewals + 1', { exact: true })
      .waitFor();
    await page.getByRole('tab', { name: 'Problems' }).click();

    const applied = await save(page, 'applied');
    expect(applied).toMatch(/pages/);
    expect(readFileSync(specPath, 'utf8')).toContain('| report lost  | out');

    // The open app tab follows without a reload: the form grows the field, and a notice says why.
    await app.getByRole('textbox', { name: /^Pages/ }).waitFor();
    await app.getByText(/^The spec changed: /).waitFor();
    await app.goto(`${url}/loans/${loan.id}`);
    const actions = app.getByRole('group', { name: 'What you can do with this loan' });
    await actions.getByRole('button', { name: 'Report lost' }).waitFor();

    await leaveEditor(page);
    await expectAccessible(page, 'the Studio');

    // Destructive: Book.summary has data. Its row goes, and the update call stops naming it.
    await cursorTo(page, position(SPEC, '| summary | long text |').line, 1);
    await page.keyboard.press('Control+Shift+K');
    const payload = position(SPEC, 'summary, cover', '| PATCH  | /api/books/:id');
    // Three fields, a role and a transition were written above it, and the summary row deleted.
    await cursorTo(page, payload.line + 4, payload.column);
    for (let i = 0; i < 'summary, '.length; i++) await page.keyboard.press('Delete');
    await page.getByText('No problems', { exact: true }).waitFor();
    const refused = await save(page, 'refused');
    expect(refused).toMatch(/summary/i);
    const plan = page.locator(
      '[data-outcome="refused"] details[open] code, [data-outcome="refused"] details[open] pre',
    );
    expect(await plan.first().textContent()).toMatch(/summary/i);
    await leaveEditor(page);
    await capture(page, 'studio-refused');

    // On a phone: nothing wider than the screen, the outline still jumps, the status still one.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.getByRole('tab', { name: 'Outline' }).click();
    await outline.getByRole('button', { name: /^6\. Roles and permissions/ }).click();
    await expect.poll(() => active.textContent()).toBe('## 6. Roles and permissions');
    await page.locator('[data-status="Saved, not applied"]').waitFor();
    await leaveEditor(page);
    await expectAccessible(page, 'the Studio on a phone');
    await capture(page, 'studio-phone');
    await page.setViewportSize({ width: 1280, height: 800 });

    // The app keeps serving the last good spec: the catalogue loads, the summary is still there.
    await app.goto(`${url}/books`);
    await app.getByRole('link', { name: 'Small Gods' }).first().waitFor();
    await app.goto(`${url}/books/${book.id}`);
    await app.getByText('A god returns as a tortoise.').waitFor();

    expect(faults(watch), 'faults on the Studio page').toEqual([]);
    expect(faults(appWatch), 'faults on the app page').toEqual([]);
    expect(watch.offsite).toEqual([]);
    console.log(`The Studio's dev loop took ${((Date.now() - started) / 1000).toFixed(1)} s in Chromium.`);
    // A newcomer's whole session in one test (guided forms, outline, save, refusal, phone): longer than most.
  }, 240_000);
});

describe('the Studio under ninepoint serve', () => {
  it('says the Studio needs ninepoint dev, and never calls a dev-only path', async (ctx) => {
    const served = await startApp('lending-desk.md');
    try {
      if (!served.chromium) return ctx.skip(served.unavailable);
      const page = await served.page();
      const devCalls: string[] = [];
      page.on('request', (request) => {
        if (request.url().includes('/api/dev/')) devCalls.push(new URL(request.url()).pathname);
      });
      await page.goto(served.url);
      await page.getByRole('heading', { name: 'Lending desk', level: 1 }).waitFor();
      await signIn(page, served, served.users.staff as Person, '/books');
      // Signing in fetches every query again: the answer about dev mode is kept for the page.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /^Home/ }).click();
      await page.getByRole('heading', { name: 'Lending desk', level: 1 }).waitFor();
      expect(await navigationLinks(page)).not.toContain('Studio');
      await page.goto(`${served.url}/sign-in`);
      await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
      expect(await page.getByRole('button', { name: /^Sign in as/ }).count()).toBe(0);

      await page.goto(`${served.url}/studio`);
      await page.getByRole('heading', { name: 'Studio', level: 1 }).waitFor();
      await page.getByText('ninepoint dev <spec.md>').waitFor();
      await expectAccessible(page, 'the Studio under serve');
      // The page says it is not in dev mode: no probe, no event stream. (The /studio page itself
      // answers 404 under serve: it is not one of the app's pages.)
      expect(devCalls).toEqual([]);
      served.expectQuiet();
    } finally {
      await served.close();
    }
  });
});
