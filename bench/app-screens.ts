// How much of their work a helpdesk agent sees, and how fast a screen first shows it, in headless
// Chromium at 1280x800: `node bench/app-screens.ts [tickets]` serves the helpdesk example on a fresh
// SQLite database with that many tickets (default 60), signs an agent in through the sign-in page,
// then counts the Tickets list's rows whose bottom is above the fold (compact and comfortable
// density), and times the first visit to each screen of the navigation after the app has loaded
// and been idle a moment: from the click on its link until its first row, card or tile is drawn.
// `BENCH_PROFILE=<dir>` also records a CPU profile of each first visit (from the click until the
// content shows and 300 ms more), writes it as `<dir>/<screen>.cpuprofile` (open it in Chromium's
// DevTools) and prints the functions that took the most time themselves.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { addUser, assignableRoles, createApiToken, createServer } from '@ninepoint/server';
import { checkSpec } from '@ninepoint/spec';
import { closeBrowser, ensureChromium, launchChromium } from './../e2e/browser.ts';
import { type CpuProfile, mainThreadWork, type TraceEvent, topSelfTimes } from './browser-profile.ts';

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
  // Two figures per visit: "drawn", taken in the page, from the press on the link until the frame
  // after a new element matching the screen's content was added (a MutationObserver, then the next
  // animation frame and a task: the frame it is painted in); and "seen", the older figure, from
  // just before Playwright's click until Playwright, polling from outside, saw the element. Under
  // load the second adds the click's own checks and the polling's round trips.
  type Visit = { who: string; link: string; drawn: number; seen: number; cpuSeen: number; cpuAll: number };
  const visits: Visit[] = [];
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
      const profiler = process.env.BENCH_PROFILE ? await page.context().newCDPSession(page) : null;
      const browser = page.context().browser();
      if (profiler && browser) {
        await browser.startTracing(page, { categories: ['toplevel', 'devtools.timeline', 'blink.user_timing'] });
      }
      if (profiler) {
        await profiler.send('Profiler.enable');
        await profiler.send('Profiler.setSamplingInterval', { interval: 200 });
        await profiler.send('Profiler.start');
      }
      // The main thread's CPU time (thread ticks, not wall time: on a loaded machine the wall
      // clock also counts the time other processes had the CPU), and how much of it went to script,
      // style and layout.
      const metrics = await page.context().newCDPSession(page);
      await metrics.send('Performance.enable', { timeDomain: 'threadTicks' });
      const cpu = async () => {
        const { metrics: all } = await metrics.send('Performance.getMetrics');
        const of = (name: string) => (all.find((m) => m.name === name)?.value ?? 0) * 1000;
        return {
          thread: of('ThreadTime'),
          script: of('ScriptDuration'),
          style: of('RecalcStyleDuration'),
          layout: of('LayoutDuration'),
        };
      };
      await page.evaluate(watchForContent, screen.content);
      const before = await cpu();
      const started = await page.evaluate(() => performance.now());
      await link.click();
      await page.locator(screen.content).first().waitFor();
      const shown = await page.evaluate(() => performance.now());
      const drawn = await page.evaluate(() => (window as unknown as Watched).__drawn);
      const pressed = await page.evaluate(() => (window as unknown as Watched).__pressed);
      const atSeen = await cpu();
      // Then what the screen does once it shows (the rest of its rows, names arriving): a second.
      await page.waitForTimeout(1000);
      const settled = await cpu();
      await metrics.detach();
      if (profiler) {
        await page.waitForTimeout(300);
        const { profile } = (await profiler.send('Profiler.stop')) as { profile: CpuProfile };
        await profiler.detach();
        const trace = browser ? JSON.parse((await browser.stopTracing()).toString()) : { traceEvents: [] };
        console.log(`main thread of ${screen.link}:\n${mainThreadWork(trace.traceEvents as TraceEvent[])}`);
        const file = `${process.env.BENCH_PROFILE}/${who}${screen.link.replaceAll('/', '_')}.cpuprofile`;
        writeFileSync(file, JSON.stringify(profile));
        console.log(`CPU profile of ${screen.link}: ${file}\n${topSelfTimes(profile, 25)}`);
      }
      if (process.env.BENCH_DEBUG) {
        const calls = await page.evaluate((from) => {
          return performance
            .getEntriesByType('resource')
            .filter((r) => r.startTime >= from)
            .map(
              (r) =>
                `${r.name.replace(location.origin, '')} ${(r.startTime - from).toFixed(0)}+${r.duration.toFixed(0)}`,
            );
        }, pressed);
        console.log(`fetched after the press (ms after it + ms taken):\n  ${calls.join('\n  ')}`);
        // React's commits, when the app was built with a <Profiler> that records them (`window.__commits`).
        const commits = await page.evaluate((from) => {
          const all = (window as unknown as { __commits?: { phase: string; actual: number; commit: number }[] })
            .__commits;
          return (all ?? [])
            .filter((c) => c.commit >= from)
            .map((c) => `${c.phase} ${c.actual} ms at ${(c.commit - from).toFixed(0)}`);
        }, pressed);
        if (commits.length > 0) console.log(`React commits: ${commits.join('; ')}`);
        // Renders of <Profiler id=…> parts, when the app was built with them (`window.__renders`).
        const renders = await page.evaluate((from) => {
          const all = (window as unknown as { __renders?: { id: string; actual: number; at: number }[] }).__renders;
          const by = new Map<string, { count: number; ms: number }>();
          for (const r of (all ?? []).filter((r) => r.at >= from)) {
            const sum = by.get(r.id) ?? { count: 0, ms: 0 };
            by.set(r.id, { count: sum.count + 1, ms: sum.ms + r.actual });
          }
          return [...by].map(([id, s]) => `${id} ×${s.count} ${s.ms.toFixed(0)} ms`);
        }, pressed);
        if (renders.length > 0) console.log(`renders: ${renders.join('; ')}`);
      }
      if (process.env.BENCH_SHOTS) {
        await page.waitForTimeout(500);
        await page.screenshot({ path: `${process.env.BENCH_SHOTS}/${screen.link.replaceAll('/', '_')}.png` });
      }
      const visit = {
        who,
        link: screen.link,
        drawn: drawn - pressed,
        seen: shown - started,
        cpuSeen: atSeen.thread - before.thread,
        cpuAll: settled.thread - before.thread,
      };
      visits.push(visit);
      const part = (key: 'script' | 'style' | 'layout') => (settled[key] - before[key]).toFixed(0);
      console.log(
        `first visit (${who}) ${screen.link.padEnd(12)} drawn ${visit.drawn.toFixed(0).padStart(5)} ms, seen ${visit.seen.toFixed(0).padStart(5)} ms; main thread CPU ${visit.cpuSeen.toFixed(0).padStart(4)} ms until seen, ${visit.cpuAll.toFixed(0).padStart(4)} ms in all (script ${part('script')}, style ${part('style')}, layout ${part('layout')})`,
      );
    }
  };
  const rounds = Number(process.env.BENCH_ROUNDS ?? 1);
  for (let round = 0; round < rounds; round++) {
    await firstVisits('agent', [
      { link: '/tickets', content: 'main tbody tr a' },
      { link: '/queue', content: 'main [data-board-card]' },
      { link: '/urgent', content: 'main tbody tr a, main [data-empty-list]' },
      { link: '/kb', content: 'main tbody tr a, main [data-empty-list]' },
    ]);
    await page.context().clearCookies();
    await signIn(lead.email);
    await firstVisits('lead', [{ link: '/overview', content: 'main .recharts-surface, main table' }]);
    await page.context().clearCookies();
    await signIn(agent.email);
  }
  // Medians over the rounds, and each screen's as a multiple of the light /kb's in the same run.
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
  };
  type Figure = 'drawn' | 'seen' | 'cpuSeen' | 'cpuAll';
  const of = (link: string, key: Figure) => median(visits.filter((v) => v.link === link).map((v) => v[key]));
  const figures: Figure[] = ['drawn', 'seen', 'cpuSeen', 'cpuAll'];
  console.log(
    `first visits, median of ${rounds} round(s), ms: drawn / seen / main-thread CPU until seen / CPU in all; then each ÷ /kb's`,
  );
  for (const link of [...new Set(visits.map((v) => v.link))]) {
    const ms = figures.map((f) => of(link, f).toFixed(0).padStart(5)).join(' /');
    const ratios = figures.map((f) => (of(link, f) / of('/kb', f)).toFixed(1)).join(' / ');
    console.log(`  ${link.padEnd(12)} ${ms}   ÷ /kb ${ratios}`);
  }
  console.log(
    `load average at the end: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(', ')}`,
  );
} finally {
  await closeBrowser();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}

/** What `watchForContent` leaves on the page's window. */
interface Watched {
  /** When the pointer was pressed on the page (performance.now()). */
  __pressed: number;
  /** Resolves to when the frame showing new content was painted. */
  __drawn: Promise<number>;
}

/**
 * Run in the page before a click: notes when the pointer is pressed, and when a matching element
 * that was not on the page before first appears, the end of the frame that paints it.
 */
function watchForContent(selector: string) {
  const watched = window as unknown as Watched;
  const before = new Set(document.querySelectorAll(selector));
  watched.__pressed = Number.NaN;
  addEventListener('pointerdown', () => (watched.__pressed = performance.now()), { capture: true, once: true });
  watched.__drawn = new Promise<number>((resolve) => {
    const observer = new MutationObserver(() => {
      if (![...document.querySelectorAll(selector)].some((e) => !before.has(e))) return;
      observer.disconnect();
      // The frame's callbacks run before it is painted; a task posted from them runs after.
      requestAnimationFrame(() => {
        const channel = new MessageChannel();
        channel.port1.onmessage = () => resolve(performance.now());
        channel.port2.postMessage(null);
      });
    });
    observer.observe(document.body, { childList: true, subtree: true });
  });
}
