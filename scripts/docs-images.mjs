// `npm run docs:images`: regenerates the screenshots in docs/images/ that docs/app.md shows. The
// browser tests write screenshots only when SCREENSHOTS=1 is set (e2e/browser.ts: the PNGs cost
// Chromium a render and an encode each, in every test run, for pictures nobody looked at): this
// builds the web app, runs the browser test files that take the pictures with it set, and copies
// each picture the docs show from test-results/screenshots/ to docs/images/. Fails when a test
// fails or a picture was not taken, so a renamed screenshot cannot leave a stale image behind.
// (docs/images/list-dense-desktop.png comes from the benchmark instead: `BENCH_SHOTS=<dir> npm run
// bench`, see docs/benchmarks.md.)
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, rmSync } from 'node:fs';

const ROOT = new URL('../', import.meta.url);
const SHOTS = new URL('test-results/screenshots/', ROOT);

/** docs/images/<name>.png ← test-results/screenshots/<screenshot>.png, and the test file that takes it. */
const DOCS_IMAGES = {
  'app-board-desktop': ['layout-helpdesk-lead-queue-desktop', 'e2e/app-layout.browser.test.ts'],
  'app-board-phone': ['layout-helpdesk-lead-queue-phone', 'e2e/app-layout.browser.test.ts'],
  'app-list-desktop': ['layout-helpdesk-lead-tickets-desktop', 'e2e/app-layout.browser.test.ts'],
  'app-list-phone': ['layout-helpdesk-lead-tickets-phone', 'e2e/app-layout.browser.test.ts'],
  'app-bulk-set': ['helpdesk-bulk-set', 'e2e/app-helpdesk.browser.test.ts'],
  'app-edit-in-place': ['helpdesk-edit-in-place', 'e2e/app-helpdesk.browser.test.ts'],
  'app-home-phone': ['helpdesk-home-requester-phone', 'e2e/app-helpdesk.browser.test.ts'],
  'app-refusal-set-first': ['helpdesk-refusal-set-first', 'e2e/app-helpdesk.browser.test.ts'],
  'app-thread-phone': ['helpdesk-thread-phone', 'e2e/app-helpdesk.browser.test.ts'],
  'board-drop-refused': ['board-drop-refused', 'e2e/app-helpdesk.browser.test.ts'],
  'board-whole-desk': ['board-whole-desk', 'e2e/app-helpdesk.browser.test.ts'],
  'app-bulk-set-phone': ['bulk-set-phone', 'e2e/app-whole-values.browser.test.ts'],
  'app-refusal-set-first-phone': ['refusal-set-first-phone', 'e2e/app-whole-values.browser.test.ts'],
  'list-cell-whole-on-focus': ['list-cell-whole-on-focus', 'e2e/app-whole-values.browser.test.ts'],
  'app-related-desktop': ['lending-desk-related-desktop', 'e2e/app-lending-desk.browser.test.ts'],
  'app-transition-disabled': ['transition-disabled-with-reason', 'e2e/app-transitions.browser.test.ts'],
  'app-transition-final': ['transition-final-confirmation', 'e2e/app-transitions.browser.test.ts'],
  'dashboard-desktop': ['helpdesk-overview-dashboard', 'e2e/dashboard.browser.test.ts'],
  'dashboard-phone': ['helpdesk-overview-dashboard-phone', 'e2e/dashboard.browser.test.ts'],
  'list-filter-builder': ['list-filter-builder', 'e2e/app-list-views.browser.test.ts'],
  'list-filter-builder-phone': ['list-filter-builder-phone', 'e2e/app-list-views.browser.test.ts'],
  'studio-add-field': ['studio-add-field', 'e2e/studio.browser.test.ts'],
  'studio-diagrams': ['studio-diagrams', 'e2e/studio.browser.test.ts'],
  'studio-phone': ['studio-phone', 'e2e/studio.browser.test.ts'],
};

const files = [...new Set(Object.values(DOCS_IMAGES).map(([, file]) => file))];
rmSync(SHOTS, { recursive: true, force: true });
const step = (command, args, env = {}) => {
  console.log(`$ ${command} ${args.join(' ')}`);
  const { status } = spawnSync(command, args, {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  if (status !== 0) {
    console.error(`${command} ${args.join(' ')} exited with ${status}: docs/images left as they were.`);
    process.exit(1);
  }
};
step(process.execPath, ['scripts/build-web.mjs']);
step('npx', ['vitest', 'run', '--project', 'browser', ...files], { SCREENSHOTS: '1' });
const missing = Object.values(DOCS_IMAGES)
  .map(([shot]) => shot)
  .filter((shot) => !existsSync(new URL(`${shot}.png`, SHOTS)));
if (missing.length > 0) {
  console.error(`No screenshot ${missing.join(', ')} in test-results/screenshots/: docs/images left as they were.`);
  process.exit(1);
}
for (const [image, [shot]] of Object.entries(DOCS_IMAGES)) {
  copyFileSync(new URL(`${shot}.png`, SHOTS), new URL(`docs/images/${image}.png`, ROOT));
}
console.log(`Copied ${Object.keys(DOCS_IMAGES).length} screenshots to docs/images/.`);
