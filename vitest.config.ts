import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The test projects, by kind (docs/architecture.md, "Tests"). A file belongs to the first project
 * whose patterns it matches, in the order below; the server project takes every test file the
 * others do not, so a new file always runs somewhere. `scripts/test.mjs` checks that each test
 * file in the repository is in exactly one project.
 */
export const TEST_FILES = ['packages/*/src/**/*.test.ts', 'e2e/**/*.test.ts', 'bench/**/*.test.ts'];

/** Pages in Chromium: one browser per worker, shared by the files it runs, a context per file. */
export const BROWSER = ['**/*.browser.test.ts'];
/** Crash, soak, fuzz, concurrency and bad input; reduced, or at full size with RELIABILITY=full. */
export const RELIABILITY = ['e2e/reliability/**/*.test.ts', '**/*.fuzz.test.ts', '**/*-fuzz.test.ts'];
/** What packs, installs or runs outside tools: npm, Redocly, TypeScript 5, the benchmark harness. */
export const RELEASE = [
  'e2e/pack-install.test.ts',
  'e2e/openapi-lint.test.ts',
  'e2e/dockerfile.test.ts',
  'e2e/lockfile.test.ts',
  'e2e/start-script.test.ts',
  'packages/typed-client/**/*.test.ts',
  'bench/**/*.test.ts',
];
/** Pure modules: no server, no database, no process; safe to run without isolation. */
export const UNIT = [
  'packages/spec/src/**/*.test.ts',
  'packages/web/src/**/*.test.ts',
  'packages/server/src/compile/**/*.test.ts',
];

const excluded = (...patterns: string[][]) => [...configDefaults.exclude, ...patterns.flat()];

export default defineConfig({
  test: {
    // Every answer of a server in the test process is checked against its OpenAPI document
    // (every project inherits it).
    setupFiles: ['packages/server/test/contract-hook.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: UNIT,
          exclude: excluded(BROWSER, RELIABILITY, RELEASE),
          // Pure modules: threads start faster than processes, and sharing the module graph
          // between files saves importing the parser and checker again for each.
          pool: 'threads',
          isolate: false,
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'server',
          include: TEST_FILES,
          exclude: excluded(BROWSER, RELIABILITY, RELEASE, UNIT),
          // Each file in a process of its own (some mock modules, some set process state); the
          // files mostly wait on sockets, PostgreSQL and child processes, so more run than cores.
          pool: 'forks',
          maxWorkers: 4,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'release',
          include: RELEASE,
          exclude: excluded(BROWSER, RELIABILITY),
          // Each keeps a core busy (tsc, npm, Redocly, the benchmark's load): two at a time, with
          // the reliability files, after the rest (four at once ran packing past its timeout).
          pool: 'forks',
          maxWorkers: 2,
          sequence: { groupOrder: 3 },
        },
      },
      {
        extends: true,
        test: {
          name: 'reliability',
          include: RELIABILITY,
          exclude: excluded(BROWSER),
          // Last and two at a time, with the release files: these suites load a server and time
          // how it copes (a start within 30 s, latency while slow clients hang on, a hang guard),
          // which more files running beside them would only blur.
          pool: 'forks',
          maxWorkers: 2,
          sequence: { groupOrder: 3 },
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: BROWSER,
          // Not isolated, so the files a worker runs share its Chromium (e2e/browser.ts); the
          // setup file closes each file's contexts at its end. Two at a time: Chromium and the app
          // keep a core busy each (four at once took each step several times as long, past the
          // tests' timeouts, on this 2-core machine).
          pool: 'forks',
          isolate: false,
          setupFiles: ['e2e/browser-setup.ts'],
          maxWorkers: 2,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
