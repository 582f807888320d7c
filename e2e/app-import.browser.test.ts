import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type App,
  columnValues,
  expectAccessible,
  INSTALL_TIMEOUT_MS,
  type Person,
  printAxeSummary,
  signIn,
  startApp,
} from './app.ts';

/**
 * The lending desk's catalogue imported from a spreadsheet in Chromium, at a desktop's and a
 * phone's size: the desk chooses a CSV file, confirms the columns the app matched (one by
 * suggestion, one left out), sees the first rows with the cell a create would refuse, chooses the
 * corrected file and imports it, a progress bar showing while it goes; the list then shows the
 * books. A member, who may not create books, has no import.
 */

let app: App;
let staff: Person;

beforeAll(async () => {
  app = await startApp('lending-desk.md');
  staff = app.users.staff as Person;
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  if (app?.chromium) printAxeSummary('the import wizard');
  await app?.close();
});

const SIZES = [
  { name: 'desktop', width: 1280, height: 800, prefix: 978000000 },
  { name: 'phone', width: 390, height: 844, prefix: 978100000 },
] as const;

describe('importing books from a CSV file in Chromium', () => {
  for (const size of SIZES) {
    it(`matches the columns, shows each refused cell, then imports every row, on a ${size.name}`, async (ctx) => {
      if (!app.chromium) return ctx.skip(app.unavailable);
      const page = await app.page();
      await page.setViewportSize({ width: size.width, height: size.height });
      await signIn(page, app, staff, '/books');
      await page.getByRole('heading', { name: 'Books', level: 1 }).waitFor();
      const isbn = (n: number) => `${size.prefix}${String(n).padStart(4, '0')}`;
      const first = `Dune (${size.name})`;
      const second = `Emma (${size.name})`;
      const csv = (secondIsbn: string) =>
        Buffer.from(
          `Title,Author,ISBN,Copies,Shelf mark,Notes\n` +
            `${first},"Herbert, Frank",${isbn(1)},2,FIC-120,signed\n` +
            `${second},"Austen, Jane",${secondIsbn},1,FIC-121,\n`,
        );

      await page.getByRole('button', { name: 'Import', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Import books' });
      await dialog.getByLabel('File').setInputFiles({ name: 'books.csv', mimeType: 'text/csv', buffer: csv('12345') });
      // Title, Author, ISBN and Copies match by name; "Shelf mark" is suggested as shelf; Notes is left out.
      await dialog.getByLabel('Column “Shelf mark”').waitFor();
      expect(await dialog.getByLabel('Column “Shelf mark”').inputValue()).toBe('Shelf');
      expect(await dialog.getByLabel('Column “Notes”').inputValue()).toBe('Leave out');
      await expectAccessible(page, `the import wizard's columns on a ${size.name}`);
      await dialog.getByRole('button', { name: 'Check the rows' }).click();
      const table = dialog.getByRole('table', { name: 'The first rows' });
      await table.waitFor();
      await table.getByText('isbn is not in the expected format.').waitFor();
      await dialog.getByText('1 of 2 rows cannot be imported').waitFor();
      expect(await dialog.getByRole('button', { name: 'Import 2 books' }).isDisabled()).toBe(true);
      await expectAccessible(page, `the import wizard's refused cell on a ${size.name}`);

      // The corrected file: the same columns, every row passes.
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('button', { name: 'Import', exact: true }).click();
      await dialog.getByLabel('File').setInputFiles({ name: 'books.csv', mimeType: 'text/csv', buffer: csv(isbn(2)) });
      await dialog.getByRole('button', { name: 'Check the rows' }).click();
      await dialog.getByText('All 2 rows can be imported.').waitFor();
      // The import is held on its way until its progress bar has been seen, then let through.
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const isImport = (url: URL) => url.pathname === '/api/books/import' && !url.searchParams.has('dryRun');
      await page.route(isImport, async (route) => {
        await held;
        await route.continue();
      });
      await dialog.getByRole('button', { name: 'Import 2 books' }).click();
      // At 0% while held, the bar's filled part has no width: it is there, not visible.
      const progress = dialog.getByRole('progressbar', { name: 'Import progress' });
      await progress.waitFor({ state: 'attached' });
      await dialog.getByText(/^(Sending the file|Writing the records)…$/).waitFor();
      release();
      await dialog.getByText('2 books imported.').waitFor();
      expect(await progress.count()).toBe(0);
      await page.unroute(isImport);
      await dialog.getByRole('button', { name: 'Done' }).click();
      if (size.name === 'desktop')
        await expect.poll(() => columnValues(page, 'Title')).toEqual(expect.arrayContaining([first, second]));
      else await page.getByText(second).first().waitFor();
      app.expectQuiet();
    });
  }

  it('offers no import to a member, who may not create books', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const member = app.users.member as Person;
    const page = await app.page();
    await signIn(page, app, member, '/books');
    await page.getByRole('heading', { name: 'Books', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Export CSV' }).waitFor();
    expect(await page.getByRole('button', { name: 'Import', exact: true }).count()).toBe(0);
    app.expectQuiet();
  });
});
