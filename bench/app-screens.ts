// How much of their work a helpdesk agent sees, and how fast a screen first shows it, in headless
// Chromium at 1280x800: `node bench/app-screens.ts [tickets]` serves the helpdesk example on a fresh
// SQLite database with that many tickets (default 60), signs an agent in through the sign-in page,
// then counts the Tickets list's rows whose bottom is above the fold (compact and comfortable
// density), and times the first visit to each screen of the navigation after the app has loaded
// and been idle a moment: from the click on its link until its first row, card or tile is drawn.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addUser, assignableRoles, createApiToken, createServer } from '@ninepoint/server';
import { checkSpec } from '@ninepoint/spec';
import { closeBrowser, ensureChromium, launchChromium } from './../e2e/browser.ts';

const count = Number(process.argv[2] ?? 60);
// One agent reports every ticket here: the example's limit of open tickets per person is lifted.
const source = readFileSync(new URL('../examples/helpdesk.md', import.meta.url), 'utf8').replace(
  /\| MAX_OPEN_TICKETS( +)\| 3 /,
  '| MAX_OPEN_TICKETS$1| 1000',
);
const { model, ok } = checkSpec(source);
if (!ok) throw new Error('helpdesk.md has errors');
const status = await ensureChromium();
if (!status.ok) throw new Error(status.reason);

const dir = mkdtempSync(join(tmpdir(), 'ninepoint-app-screens-'));
const server = await createServer({ model, dbPath: join(dir, 'app.db'), logger: false });
const url = await server.listen({ port: 0, host: '127.0.0.1' });
const password = 'a long enough password for the bench';
const roles = assignableRoles(model);
const person = async (role: string, name: string) => {
  const email = `${role}@example.org`;
  const account = await addUser(server.auth, { email, name, roles: [role], password }, roles);
  const { secret } = await createApiToken(server.auth, email, 'bench');
  return { id: account.id, email, token: secret };
};
const agent = await person('agent', 'Sam Lee');
const lead = await person('lead', 'Grace Hopper');
const call = async (token: string, method: string, path: string, body?: unknown) => {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as { id: string };
};
const words = ['Printer', 'VPN', 'Outlook', 'Laptop', 'Badge', 'Monitor', 'Wi-Fi', 'Claims system', 'Phone', 'Backup'];
const troubles = ['jams on every job since the update', 'cannot connect from home', 'keeps asking for a password'];
const categories = ['hardware', 'software', 'access', 'network', 'other'];
const priorities = ['low', 'normal', 'high', 'urgent'];
for (let i = 0; i < count; i++) {
  const made = await call(agent.token, 'POST', '/api/tickets', {
    title: `${words[i % words.length]} ${troubles[i % troubles.length]} (#${i + 1})`,
    description: 'Reported from the office, with the steps tried so far.',
    category: categories[i % categories.length],
    priority: priorities[i % priorities.length],
  });
  if (i % 3 === 0 && i < 30) {
    await call(agent.token, 'PATCH', `/api/tickets/${made.id}`, { assignee: agent.id });
    await call(agent.token, 'POST', `/api/tickets/${made.id}/assign`);
  }
}

const chromium = await launchChromium();
try {
  const page = await chromium.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  const signIn = async (email: string) => {
    await page.goto(`${url}/sign-in?next=/`);
    await page.getByRole('textbox', { name: 'Email' }).fill(email);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page
      .getByRole('banner')
      .getByRole('button', { name: /^Account of / })
      .waitFor();
  };
  await signIn(agent.email);

  // Rows above the fold: their bottom edge within the window, the list scrolled to the top.
  const rowsAbove = async (density: string) => {
    await page.goto(`${url}/tickets`);
    await page.getByRole('table').locator('tbody tr a').first().waitFor();
    const toggle = page.getByRole('radiogroup', { name: 'Row density' }).getByText(density, { exact: true });
    if ((await toggle.count()) > 0) await toggle.click();
    await page.waitForTimeout(300);
    return page.evaluate(() => {
      const fold = window.innerHeight;
      return [...document.querySelectorAll('tbody tr')].filter((r) => r.getBoundingClientRect().bottom <= fold).length;
    });
  };
  const compact = await rowsAbove('Compact');
  if (process.env.BENCH_SHOTS) await page.screenshot({ path: `${process.env.BENCH_SHOTS}/list.png` });
  const comfortable = await rowsAbove('Comfortable');
  await rowsAbove('Compact');
  console.log(`rows above the fold at 1280x800, /tickets: compact ${compact}, comfortable ${comfortable}`);

  // First visits: a fresh load of the home page, a moment idle, then each screen once by its link.
  const firstVisits = async (who: string, screens: { link: string; content: string }[]) => {
    await page.goto(`${url}/`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link').first().waitFor();
    await page.waitForTimeout(1500);
    if (process.env.BENCH_DEBUG) {
      const chunks = await page.evaluate(() =>
        performance.getEntriesByType('resource').map((r) => r.name.replace(location.origin, '')),
      );
      console.log('fetched before the first click:', chunks.filter((c) => c.includes('/assets/')).join(' '));
    }
    for (const screen of screens) {
      const link = page.getByRole('navigation', { name: 'Main' }).locator(`a[href="${screen.link}"]`);
      const started = await page.evaluate(() => performance.now());
      await link.click();
      await page.locator(screen.content).first().waitFor();
      const shown = await page.evaluate(() => performance.now());
      if (process.env.BENCH_DEBUG) {
        const calls = await page.evaluate((from) => {
          return performance
            .getEntriesByType('resource')
            .filter((r) => r.startTime >= from)
            .map((r) => `${r.name.replace(location.origin, '')} ${r.startTime.toFixed(0)}+${r.duration.toFixed(0)}`);
        }, started);
        console.log(calls.join('\n'));
      }
      if (process.env.BENCH_SHOTS) {
        await page.waitForTimeout(500);
        await page.screenshot({ path: `${process.env.BENCH_SHOTS}/${screen.link.replaceAll('/', '_')}.png` });
      }
      console.log(`first visit (${who}) ${screen.link.padEnd(12)} ${(shown - started).toFixed(0).padStart(5)} ms`);
    }
  };
  await firstVisits('agent', [
    { link: '/tickets', content: 'tbody tr a' },
    { link: '/queue', content: '[data-board-card]' },
    { link: '/urgent', content: 'main table, main [data-empty-list]' },
    { link: '/kb', content: 'main table, main [data-empty-list]' },
  ]);
  await page.context().clearCookies();
  await signIn(lead.email);
  await firstVisits('lead', [{ link: '/overview', content: 'main .recharts-surface, main table' }]);
} finally {
  await closeBrowser();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
