// First load of the web app, as a browser with an empty cache makes it: `node bench/first-load.ts
// [example.md]` serves the example (default: the lending desk) on a fresh SQLite database, opens
// its home page in headless Chromium and sums what crossed the wire (Chromium's encodedDataLength:
// headers and bodies as sent, compressed when they were) until the network is idle.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from '@ninepoint/server';
import { checkSpec } from '@ninepoint/spec';
import { closeBrowser, ensureChromium, launchChromium } from '../e2e/browser.ts';

const example = process.argv[2] ?? 'lending-desk.md';
const { model, ok } = checkSpec(readFileSync(new URL(`../examples/${example}`, import.meta.url), 'utf8'));
if (!ok) throw new Error(`${example} has errors`);
const status = await ensureChromium();
if (!status.ok) throw new Error(status.reason);

const dir = mkdtempSync(join(tmpdir(), 'ninepoint-first-load-'));
const server = await createServer({ model, dbPath: join(dir, 'app.db'), logger: false });
const url = await server.listen({ port: 0, host: '127.0.0.1' });
const chromium = await launchChromium();
try {
  const page = await chromium.newPage();
  const cdp = await chromium.context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  const requests = new Map<string, { url: string; encoding: string }>();
  const finished: { url: string; bytes: number; encoding: string }[] = [];
  cdp.on('Network.responseReceived', (event) => {
    const encoding = Object.entries(event.response.headers).find(([k]) => k.toLowerCase() === 'content-encoding');
    requests.set(event.requestId, { url: event.response.url, encoding: encoding ? String(encoding[1]) : '' });
  });
  cdp.on('Network.loadingFinished', (event) => {
    const request = requests.get(event.requestId);
    finished.push({ url: request?.url ?? '?', bytes: event.encodedDataLength, encoding: request?.encoding ?? '' });
  });
  await page.goto(url, { waitUntil: 'networkidle' });
  const total = finished.reduce((sum, f) => sum + f.bytes, 0);
  for (const f of finished.sort((a, b) => b.bytes - a.bytes)) {
    console.log(`${(f.bytes / 1024).toFixed(1).padStart(8)} KB  ${f.encoding.padEnd(4)}  ${f.url.replace(url, '')}`);
  }
  console.log(`${(total / 1024).toFixed(1).padStart(8)} KB  in all, ${finished.length} requests (${example})`);
} finally {
  await closeBrowser();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
