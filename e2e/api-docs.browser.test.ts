import { readFileSync } from 'node:fs';
import { createServer, type NinepointServer } from '@ninepoint/server';
import { checkSpec } from '@ninepoint/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../packages/server/test/helpers.ts';
import { type Chromium, ensureChromium, INSTALL_TIMEOUT_MS, launchChromium, screenshot, watchPage } from './browser.ts';

const SPEC = new URL('../examples/lending-desk.md', import.meta.url);

let server: NinepointServer;
let url = '';
let removeTemp = () => {};
let chromium: Chromium | null = null;
let unavailable = '';

beforeAll(async () => {
  const status = await ensureChromium();
  const { model, ok } = checkSpec(readFileSync(SPEC, 'utf8'));
  if (!ok) throw new Error('examples/lending-desk.md has errors');
  const temp = tempDir();
  removeTemp = temp.remove;
  server = await createServer({ model, dbPath: temp.dbPath, logger: false });
  url = await server.listen({ port: 0, host: '127.0.0.1' });
  if (status.ok) chromium = await launchChromium();
  else unavailable = status.reason;
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  await chromium?.close();
  await server?.close();
  removeTemp();
});

describe('the API reference page in Chromium', () => {
  it('renders every operation of the lending desk from the app alone, with no console error', async (ctx) => {
    if (!chromium) return ctx.skip(unavailable);
    const started = Date.now();
    const page = await chromium.newPage();
    const watch = await watchPage(page, url);

    const response = await page.goto(`${url}/api/docs`);
    expect(response?.status()).toBe(200);
    await page.locator('.opblock-summary-path[data-path="/api/books"]').first().waitFor({ state: 'visible' });
    expect(await page.title()).toBe('Lending desk — API reference');
    expect(await page.locator('.info .title').textContent()).toContain('Lending desk');

    // Every operation of the document is on the page, each under its path.
    const document = server.compiled.openapi;
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations).toContain('POST /api/loans');
    const shown = await page
      .locator('.opblock-summary')
      .evaluateAll((blocks) =>
        blocks.map(
          (b) =>
            `${b.querySelector('.opblock-summary-method')?.textContent} ${b.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`,
        ),
      );
    expect(shown.sort()).toEqual(operations.sort());

    await screenshot(page, 'api-docs-lending-desk');
    expect(watch.consoleErrors).toEqual([]);
    expect(watch.pageErrors).toEqual([]);
    expect(watch.offsite).toEqual([]);
    expect(watch.requests.every((r) => r.startsWith(`${url}/`))).toBe(true);
    console.log(`Rendered ${shown.length} operations in ${Date.now() - started} ms.`);
  });

  it('runs a call from the page with "Try it out" against the app itself', async (ctx) => {
    if (!chromium) return ctx.skip(unavailable);
    const page = await chromium.newPage();
    const watch = await watchPage(page, url);
    await page.goto(`${url}/api/docs#/Book/listBooks`);
    const operation = page.locator('#operations-Book-listBooks');
    await operation.locator('.try-out__btn').click();
    await operation.locator('.execute').click();
    const status = operation.locator('.live-responses-table .response .response-col_status');
    await status.first().waitFor({ state: 'visible' });
    expect((await status.first().textContent())?.trim()).toBe('200');
    expect(await operation.locator('.live-responses-table .microlight').first().textContent()).toContain('"items"');

    await screenshot(operation, 'api-docs-try-it-out');
    expect(watch.consoleErrors).toEqual([]);
    expect(watch.pageErrors).toEqual([]);
    expect(watch.offsite).toEqual([]);
    const calls = watch.requests.filter((r) => new URL(r).pathname === '/api/books');
    expect(calls.length).toBe(1);
    expect(calls[0]?.startsWith(`${url}/api/books?`)).toBe(true);
  });
});
