import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type App,
  capture,
  INSTALL_TIMEOUT_MS,
  inDays,
  type Json,
  navigationLinks,
  PDF_BYTES,
  type Person,
  settle,
  signIn,
  startApp,
  withFiles,
} from './app.ts';

/**
 * Every example's app at a desktop's and a phone's size, as each of its roles: every screen in
 * the navigation and a record's detail page fit the screen (nothing scrolls sideways) and every
 * badge (states, choices) is shown whole, not cut to "Assi…". With SCREENSHOTS=1, screenshots of
 * each go to test-results/screenshots/layout-*.png (`npm run docs:images` copies some to docs/images/).
 */

const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;

interface Example {
  file: string;
  /** Adds people and records through the API, as a team a few days in would have. */
  seed(app: App): Promise<void>;
  /** The detail page worth a look, as a path with an id once seeded. */
  detail?: () => string;
}

const seeded: Record<string, string> = {};

const EXAMPLES: Example[] = [
  { file: 'blank', seed: async () => {} },
  {
    file: 'lending-desk.md',
    async seed(app) {
      const staff = app.users.staff as Person;
      const member = app.users.member as Person;
      const ada = await app.addPerson('member', 'Ada Lovelace');
      const books: Json[] = [];
      for (const [title, author, isbn, shelf] of [
        ['Dune', 'Herbert, Frank', '9780441172719', 'FIC-120'],
        ['Middlemarch', 'Eliot, George', '9780141439549', 'FIC-88'],
        ['The Left Hand of Darkness', 'Le Guin, Ursula K.', '9780441478125', 'FIC-45'],
        ['A Brief History of Time', 'Hawking, Stephen', '9780553380163', 'SCI-12'],
      ] as const) {
        const summary = `${title} by ${author.split(', ').reverse().join(' ')}.`;
        books.push(await app.api(staff, 'POST', '/api/books', { title, author, isbn, shelf, copies: 2, summary }));
      }
      const lend = (book: Json, borrower: Person, lentOn: number, due: number) =>
        app.api(staff, 'POST', '/api/loans', {
          book: book.id,
          borrower: borrower.id,
          lent_on: inDays(lentOn),
          due: inDays(due),
        });
      const dune = await lend(books[0], member, -4, 10);
      seeded.loan = dune.id;
      const late = await lend(books[1], ada, -30, -12);
      await app.api(staff, 'POST', `/api/loans/${late.id}/mark-overdue`);
      const back = await lend(books[2], ada, -20, -6);
      await app.api(staff, 'POST', `/api/loans/${back.id}/return`, { condition_note: 'Spine a little worn.' });
      const lost = await lend(books[3], member, -90, -75);
      await app.api(staff, 'POST', `/api/loans/${lost.id}/mark-overdue`);
      await app.api(staff, 'POST', `/api/loans/${lost.id}/write-off`);
    },
    detail: () => `/loans/${seeded.loan}`,
  },
  {
    file: 'helpdesk.md',
    async seed(app) {
      const requester = app.users.requester as Person;
      const agent = app.users.agent as Person;
      const omar = await app.addPerson('agent', 'Omar Haddad');
      const ticket = (title: string, fields: Json) =>
        app.api(requester, 'POST', '/api/tickets', {
          title,
          description: `${title}. Reported from the office.`,
          notify: 'facilities.team@example.org',
          ...fields,
        });
      const work = async (id: string, to: Person) => {
        await app.api(to, 'PATCH', `/api/tickets/${id}`, { assignee: to.id });
        await app.api(to, 'POST', `/api/tickets/${id}/assign`);
        await app.api(to, 'POST', `/api/tickets/${id}/start`);
      };
      const printer = await ticket('Printer on floor 3 jams on every job', {
        category: 'hardware',
        asset_tag: 'IT-00317',
      });
      seeded.ticket = printer.id;
      const vpn = await ticket('Cannot connect to the VPN from home', { category: 'network', priority: 'high' });
      await work(vpn.id, omar);
      const outlook = await ticket('Outlook keeps asking for my password', { category: 'software' });
      await work(outlook.id, agent);
      await app.api(agent, 'POST', `/api/tickets/${outlook.id}/wait`);
      await app.api(agent, 'POST', `/api/tickets/${outlook.id}/resume`);
      await app.api(agent, 'PATCH', `/api/tickets/${outlook.id}`, {
        resolution: 'Removed the stale password from the keychain.',
      });
      await app.api(agent, 'POST', `/api/tickets/${outlook.id}/resolve`);
      const access = await app.api(agent, 'POST', '/api/tickets', {
        title: 'New starter needs access to the claims system',
        description: 'Access for the new starter in claims.',
        category: 'access',
      });
      await app.api(agent, 'PATCH', `/api/tickets/${access.id}`, { assignee: omar.id });
      await app.api(agent, 'POST', `/api/tickets/${access.id}/assign`);
      for (const [title, published] of [
        ['How do I reset my password?', true],
        ['How do I join the guest Wi-Fi?', false],
      ] as const) {
        await app.api(agent, 'POST', '/api/articles', {
          title,
          body: `${title} Step by step, with screenshots of every screen you will see on the way.`,
          category: 'access',
          published,
          review_by: inDays(90),
        });
      }
    },
    detail: () => `/tickets/${seeded.ticket}`,
  },
  {
    file: 'expenses.md',
    async seed(app) {
      const employee = app.users.employee as Person;
      const manager = app.users.manager as Person;
      const finance = app.users.finance as Person;
      const hire = (person: Person, boss: Person, center: string) =>
        app.api(finance, 'POST', '/api/employees', {
          person: person.id,
          work_email: `${person.name.toLowerCase().replace(/\W+/g, '.')}@consultancy.example`,
          manager: boss.id,
          cost_center: center,
          single_claim_limit: 1000,
        });
      const staff = await hire(employee, manager, 'CC-0420');
      await hire(manager, finance, 'CC-0100');
      const claim = async (description: string, fields: Json, submit = true) => {
        const made = await app.api(
          employee,
          'POST',
          '/api/expenses',
          withFiles({ employee: staff.id, approver: manager.id, description, ...fields }, [
            { field: 'receipt', name: 'scan.pdf', bytes: PDF_BYTES },
          ]),
        );
        if (submit) await app.api(employee, 'POST', `/api/expenses/${made.id}/submit`);
        return made;
      };
      const train = await claim('Train to Leeds for the Acme kickoff', {
        category: 'travel',
        amount: 86.4,
        currency: 'GBP',
        spent_on: inDays(-5),
      });
      seeded.expense = train.id;
      const hotel = await claim('Hotel in Leeds, two nights', {
        category: 'lodging',
        amount: 240,
        spent_on: inDays(-5),
      });
      await app.api(manager, 'POST', `/api/expenses/${hotel.id}/approve`);
      const paid = await claim('Conference ticket for JSConf EU', { category: 'training', amount: 450 });
      await app.api(manager, 'POST', `/api/expenses/${paid.id}/approve`);
      await app.api(finance, 'POST', `/api/expenses/${paid.id}/pay`);
      await claim('USB-C charger for the office', { category: 'equipment', amount: 24.99 }, false);
    },
    detail: () => `/expenses/${seeded.expense}`,
  },
];

/** What the page shows wider than the screen, and which badges are cut short. */
async function layoutFaults(
  page: Page,
): Promise<{ overflow: string | null; cutBadges: string[]; wideTables: string[] }> {
  return page.evaluate(() => {
    const root = document.documentElement;
    let overflow: string | null = null;
    if (root.scrollWidth > window.innerWidth) {
      // Name the widest element that sticks out, so a failure says what to fix.
      // Name what sticks out, leaving out what a scrolling box holds (it scrolls, not the page).
      const clipped = (e: Element) => {
        for (let up = e.parentElement; up && up !== document.body; up = up.parentElement) {
          if (getComputedStyle(up).overflowX !== 'visible') return true;
        }
        return false;
      };
      const wide = [...document.querySelectorAll('body *')]
        .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1 && !clipped(e))
        .map((e) => `${e.tagName.toLowerCase()}.${[...e.classList].join('.')} "${(e.textContent ?? '').slice(0, 40)}"`);
      overflow = `${root.scrollWidth} px wide in ${window.innerWidth}: ${wide.slice(0, 5).join(', ')}`;
    }
    // A list's table scrolls inside its frame rather than widen the page; on a desktop it fits.
    const wideTables =
      window.innerWidth >= 1024
        ? [...document.querySelectorAll<HTMLElement>('[role="region"]:has(> table)')]
            .filter((frame) => frame.scrollWidth > frame.clientWidth)
            .map((frame) => `a table ${frame.scrollWidth} px wide in a frame of ${frame.clientWidth}`)
        : [];
    const cutBadges = [...document.querySelectorAll<HTMLElement>('.mantine-Badge-label')]
      .filter((label) => label.scrollWidth > label.clientWidth)
      .map((label) => `${label.textContent} (${label.scrollWidth} > ${label.clientWidth})`);
    return { overflow, cutBadges, wideTables };
  });
}

for (const example of EXAMPLES) {
  describe(`${example.file} at a desktop's and a phone's size`, () => {
    let app: App;
    beforeAll(async () => {
      app = await startApp(example.file);
      await example.seed(app);
    }, INSTALL_TIMEOUT_MS);
    afterAll(async () => {
      await app?.close();
    });

    const roles = example.file === 'blank' ? [''] : null;
    it('fits every screen of every role on the screen, with whole badges', async (ctx) => {
      if (!app.chromium) return ctx.skip(app.unavailable);
      const name = example.file.replace(/\.md$/, '');
      const faults: string[] = [];
      for (const role of roles ?? Object.keys(app.users)) {
        const person = app.users[role];
        // One tab per role, signed in once. At each size the first screen is a full page load at
        // that size; the others are opened as a person moves through the app (by its router, no
        // reload): a page load per screen took most of this file's time and checked nothing more.
        const page = await app.page();
        let routes: string[] = [];
        for (const size of SIZES) {
          await page.setViewportSize({ width: size.width, height: size.height });
          if (routes.length === 0) {
            if (person) await signIn(page, app, person);
            else await page.goto(app.url);
            // The phone's navigation is behind its menu button: the desktop's names the same screens.
            routes = await navigationRoutes(page);
            if (example.detail && person) routes.push(example.detail());
          }
          for (const [index, route] of routes.entries()) {
            if (index > 0) await openInApp(page, route);
            else if (new URL(page.url()).pathname !== route) await page.goto(`${app.url}${route}`);
            await page.getByRole('heading', { level: 1 }).first().waitFor();
            await settle(page);
            const { overflow, cutBadges, wideTables } = await layoutFaults(page);
            const where = `${route} as ${role || 'a visitor'} at ${size.width}x${size.height}`;
            if (overflow) faults.push(`${where}: ${overflow}`);
            for (const badge of cutBadges) faults.push(`${where}: badge cut short: ${badge}`);
            for (const table of wideTables) faults.push(`${where}: ${table}`);
            const shot = route === '/' ? 'home' : route.replace(/^\//, '').replace(/[0-9a-f-]{36}/, 'record');
            await capture(page, `layout-${name}-${role || 'visitor'}-${shot}-${size.name}`);
          }
        }
      }
      expect(faults).toEqual([]);
      app.expectQuiet();
    }, 300_000);
  });
}

/**
 * Opens a route of the app in the page already showing it, as following a link does: the app's
 * router shows the screen, without loading the page again. Resolves when the new screen's
 * heading is there (the one before it is marked, so it is not mistaken for the new one).
 */
async function openInApp(page: Page, route: string): Promise<void> {
  await page.evaluate((to) => {
    for (const heading of document.querySelectorAll('h1')) heading.dataset.left = 'true';
    window.history.pushState(null, '', to);
    window.dispatchEvent(new PopStateEvent('popstate', { state: null }));
  }, route);
  await page.waitForURL((url) => url.pathname === route);
  await page.locator('h1:not([data-left])').first().waitFor();
}

/** The routes of the main navigation's links, in order. */
async function navigationRoutes(page: Page): Promise<string[]> {
  await navigationLinks(page);
  const nav = page.getByRole('navigation', { name: 'Main' });
  const hrefs = await nav.getByRole('link').evaluateAll((links) => links.map((l) => l.getAttribute('href') ?? ''));
  return [...new Set(hrefs.filter((h) => h.startsWith('/') && !h.startsWith('/sign-in')))];
}
