import { globSync, mkdirSync, readFileSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// Tests start Node processes that load the server's TypeScript sources again each time (the bin
// under `ninepoint serve`, `dev`, `backup`, the reliability suites' servers, packing): Node's
// compile cache keeps what each compiled on disk, so every start after the first skips most of
// that work (`ninepoint --help`: 1.3 s of CPU, 0.55 s from the cache). Set here, so the workers and
// every process they start inherit it; an entry is used only while its source is unchanged.
process.env.NODE_COMPILE_CACHE ??= fileURLToPath(new URL('node_modules/.cache/node-compile-cache', import.meta.url));

/**
 * Under `CI=true`, the tests' temporary files (SQLite databases, uploads, the packed and installed
 * app, Chromium's profiles) go to the machine's tmpfs when it has one with room, rather than to a
 * disk: here `/tmp` is ext4 mounted with `discard`, and `e2e/pack-install.test.ts` spent 7.4–21 s
 * of system CPU there (four runs) against 6.1–9.6 s on /dev/shm. A process killed mid-write leaves
 * the same file on either (the crash suites kill processes, not the machine). Only under CI, whose
 * machine is thrown away after: a file a test leaves behind would hold memory until a reboot.
 * `NINEPOINT_HOST_TMPDIR` keeps the folder that `.ci/run` shares its Chromium install lock in.
 */
const TMPFS = '/dev/shm';
const TMPFS_MAGIC = 0x01021994;
const roomyTmpfs = () => {
  try {
    const fs = statfsSync(TMPFS);
    return fs.type === TMPFS_MAGIC && fs.bavail * fs.bsize >= 4 * 2 ** 30;
  } catch {
    return false;
  }
};
if (process.env.CI === 'true' && process.env.NINEPOINT_HOST_TMPDIR === undefined && roomyTmpfs()) {
  process.env.NINEPOINT_HOST_TMPDIR = tmpdir();
  const folder = `${TMPFS}/ninepoint-tests`;
  mkdirSync(folder, { recursive: true });
  process.env.TMPDIR = folder;
}

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

/**
 * Test files that mock a module (`vi.mock`): they run in a process of their own (the
 * `server-isolated` project), since without isolation a module another file loaded first would
 * stay unmocked. Found by reading the files, so a new one is isolated without a list to keep.
 */
export const MOCKING = globSync(TEST_FILES, {
  cwd: fileURLToPath(new URL('.', import.meta.url)),
  exclude: (path) => path.includes('node_modules'),
})
  .filter((file) => /\bvi\.(mock|doMock)\(/.test(readFileSync(new URL(file, import.meta.url), 'utf8')))
  .sort();

/** The projects whose files are each long: packing, Redocly, tsc, the benchmark's servers. */
const LONG_FILES = new Set(['release']);

/**
 * The files that took longest in the node lane (measured 28 November, `scripts/test.mjs`), longest
 * first: each starts at its group's start. A fresh clone has no times of the last run, so vitest
 * orders by file size, which started the longest server and reliability files (`serve`,
 * migrations, uploads) near their group's end, where they alone kept it running.
 */
const LONGEST = [
  'bench/api-bench.test.ts',
  'e2e/pack-install.test.ts',
  'e2e/reliability/uploads.test.ts',
  'e2e/reliability/fuzz.test.ts',
  'packages/cli/src/commands/serve.test.ts',
  'packages/server/src/store/migrations.test.ts',
  'packages/server/src/timers/timers.test.ts',
  'e2e/reliability/outbox-crash.test.ts',
  'e2e/reliability/crash.test.ts',
  'e2e/start-script.test.ts',
  'packages/cli/src/commands/backup.test.ts',
  'e2e/reliability/concurrency.test.ts',
  'packages/server/src/http/logging.test.ts',
  'packages/server/src/people/people-joining.test.ts',
];
const rank = (file: TestSpecification) => {
  const at = LONGEST.findIndex((name) => file.moduleId.endsWith(`/${name}`));
  return at === -1 ? LONGEST.length : at;
};

/** One from each queue in turn, then one more from each that has any left, until all are empty. */
function takeTurns<T>(queues: T[][]): T[] {
  const order: T[] = [];
  for (let i = 0; queues.some((queue) => i < queue.length); i++) {
    for (const queue of queues) if (i < queue.length) order.push(queue[i] as T);
  }
  return order;
}

/**
 * The LONGEST files first, then vitest's order (the longest first by the last run's times, else
 * the largest), except that within a group the long files (`LONG_FILES`) take turns with the
 * others: they start beside the
 * server files from the group's start, about two at a time, instead of queueing behind them (run
 * after them, the run's last minutes left the cores half idle once the browser lane had finished)
 * or all at once (four packing and benchmarking files at a time ran steps past their timeouts).
 */
class LongFilesTakeTurns extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // Array.prototype.sort is stable: vitest's order among the files LONGEST does not name.
    const sorted = (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
    const groups = [...new Set(sorted.map((file) => file.project.config.sequence.groupOrder))].sort((a, b) => a - b);
    return groups.flatMap((group) => {
      const inGroup = sorted.filter((file) => file.project.config.sequence.groupOrder === group);
      const long = [...LONG_FILES].map((name) => inGroup.filter((file) => file.project.name === name));
      const others = inGroup.filter((file) => !LONG_FILES.has(file.project.name));
      return takeTurns([takeTurns(long), others]);
    });
  }
}

/** What the server and browser projects add: passwords hashed at argon2id's lowest cost (see the file). */
const TEST_HASH_COST = 'packages/server/test/test-hash-cost.ts';

export default defineConfig({
  test: {
    // Every answer of a server in the test process is checked against its OpenAPI document
    // (every project inherits it).
    setupFiles: ['packages/server/test/contract-hook.ts'],
    // Three minutes: on a shared 2-core machine whose CPU is slow for a while (2026-11-28: the same
    // commit's CI took 518 s one day and 18 min the next, every lane alike), the tests that start
    // the bin's processes one after another took past one minute without failing otherwise.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // `expect.poll` waits as long as a browser step (STEP_MS in e2e/app.ts): its own default of one
    // second failed a page whose people's names had not come yet on the slow day (2026-11-28).
    expect: { poll: { timeout: 30_000, interval: 50 } },
    sequence: { sequencer: LongFilesTakeTurns },
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
          exclude: excluded(BROWSER, RELIABILITY, RELEASE, UNIT, MOCKING),
          // Files in processes, not isolated: each of the 4 processes loads the server's modules once
          // and runs file after file with them (a process and module graph per file had cost about
          // as much CPU as the tests themselves). Each file starts its own servers on their own
          // databases; the contract hook is set up again per file. More run than cores: the files
          // mostly wait on sockets, PostgreSQL and child processes.
          pool: 'forks',
          isolate: false,
          maxWorkers: 4,
          setupFiles: [TEST_HASH_COST],
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'server-isolated',
          include: MOCKING,
          exclude: excluded(BROWSER, RELIABILITY, RELEASE, UNIT),
          // The server's files that mock a module, each in a process of its own, beside the others.
          pool: 'forks',
          maxWorkers: 4,
          setupFiles: [TEST_HASH_COST],
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'release',
          include: RELEASE,
          exclude: excluded(BROWSER, RELIABILITY),
          // Each keeps a core busy (tsc, npm, Redocly, the benchmark's load): in the server group,
          // taking turns with its files (LongFilesTakeTurns), rather than after it.
          pool: 'forks',
          maxWorkers: 4,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'reliability',
          include: RELIABILITY,
          exclude: excluded(BROWSER),
          // Last and two at a time: these suites load a server and time how it copes (a start
          // within 30 s, latency while slow clients hang on, a hang guard), which more files
          // running beside them would only blur (run beside the server files under load 27,
          // soak, concurrency, bad input and the checker's hang guard failed that had passed).
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
          // keep a core busy each (three took more CPU and more steps past their timeouts under
          // load, docs/architecture.md "Tests"; four took each step several times as long).
          pool: 'forks',
          isolate: false,
          setupFiles: ['e2e/browser-setup.ts', TEST_HASH_COST],
          maxWorkers: 2,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
