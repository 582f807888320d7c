// `npm test`: lint and format check (biome), type-check (tsc), the check that every test file is in
// exactly one vitest project, and every project's tests, all started at once. The tests run as two
// vitest processes side by side (`LANES`): the browser project, which mostly waits on Chromium and
// leaves a core idle, beside the others, which keep the cores busy; one vitest process cannot do
// that, since the projects it runs at once share one count of workers. Each lane's output streams
// as it comes, every line marked with its lane; each other part prints its output when it ends.
// Ends with one summary line ("N passed, N failed, N skipped") that CI reads; fails when any part
// fails.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { relative } from 'node:path';
import { checkProjects } from './test-projects.mjs';

/**
 * The vitest processes, each with the projects it runs (in their `sequence.groupOrder`). A project
 * of vitest.config.ts in no lane fails the run (checked against what `vitest list` finds), so a
 * new project cannot be left out of `npm test`.
 */
export const LANES = [
  { name: 'browser', projects: ['browser'] },
  { name: 'node', projects: ['unit', 'server', 'server-isolated', 'release', 'reliability'] },
];

const resultsOf = (lane) => `.vitest-results-${lane.name}.json`;
for (const lane of LANES) rmSync(resultsOf(lane), { force: true });

/**
 * Runs a command; resolves to its exit status, with its output kept, or, with `prefix`, streamed
 * line by line, each line marked with it.
 */
function run(command, args, prefix) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    for (const [stream, target] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ]) {
      let partial = '';
      stream.on('data', (chunk) => {
        if (prefix === undefined) {
          output += chunk;
          return;
        }
        const lines = (partial + chunk).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) target.write(`${prefix}${line}\n`);
      });
      stream.on('end', () => {
        if (prefix !== undefined && partial !== '') target.write(`${prefix}${partial}\n`);
      });
    }
    child.on('error', (error) => resolve({ status: 1, output: `${output}${error.message}\n` }));
    child.on('close', (status, signal) => resolve({ status: status ?? 1, output, signal }));
  });
}

const started = Date.now();
const seconds = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;
const width = Math.max(...LANES.map((lane) => lane.name.length));
const parts = [
  ['lint and format (biome)', run('npx', ['biome', 'check', '.'])],
  // One checker thread: TypeScript 7's default of several checked the same program's shared types
  // once per checker, 9.1–9.8 s of CPU against 4.7–5.2 s single-threaded (and a shorter wall time
  // on 2 busy cores).
  ['type-check (tsc)', run('npx', ['tsc', '-p', 'tsconfig.json', '--singleThreaded'])],
  [
    'test projects (every test file in exactly one, every project in a lane)',
    checkProjects().then(({ status, output, projects }) => {
      const laned = LANES.flatMap((lane) => lane.projects);
      const missing = [...(projects ?? [])].filter((name) => !laned.includes(name));
      if (missing.length === 0) return { status, output };
      const problem = `${missing.join(', ')}: in no lane of scripts/test.mjs, so npm test does not run them.\n`;
      return { status: 1, output: `${output}${problem}` };
    }),
  ],
  ...LANES.map((lane) => [
    `tests: ${lane.projects.join(', ')} (vitest)`,
    run(
      'npx',
      [
        'vitest',
        'run',
        ...lane.projects.flatMap((name) => ['--project', name]),
        '--reporter=default',
        '--reporter=json',
        `--outputFile.json=${resultsOf(lane)}`,
      ],
      `${lane.name.padEnd(width)} │ `,
    ),
  ]),
];

let failed = false;
const outcomes = await Promise.all(
  parts.map(async ([name, running]) => {
    const { status, output } = await running;
    if (output) process.stdout.write(`\n▶ ${name}\n${output}`);
    console.log(
      `${status === 0 ? '✓' : '✗'} ${name} ${status === 0 ? 'passed' : `failed (exit ${status})`} at ${seconds()}`,
    );
    return status;
  }),
);
if (outcomes.some((status) => status !== 0)) failed = true;

/**
 * The lane's last files to end, each with when it started and how long it ran (from vitest's JSON
 * report, seconds after the lane's start): where a lane's end waits, which is what to shorten or
 * start sooner for a faster run.
 */
function lastToEnd(lane, report, count = 6) {
  const at = (ms) => `${((ms - report.startTime) / 1000).toFixed(0)} s`;
  const files = [...report.testResults].sort((a, b) => b.endTime - a.endTime).slice(0, count);
  const rows = files.map(
    (f) =>
      `  ${at(f.endTime).padStart(6)}  ${relative(process.cwd(), f.name)} (from ${at(f.startTime)}, ${((f.endTime - f.startTime) / 1000).toFixed(0)} s)`,
  );
  return `\nThe ${lane.name} lane's last files to end:\n${rows.join('\n')}`;
}

/**
 * The lane's longest-running files, each with its time and how many tests it holds: what costs the
 * lane most, which on a 2-core machine is what a shorter run must take from first.
 */
function longest(lane, report, count = 8) {
  const took = (f) => f.endTime - f.startTime;
  const files = [...report.testResults].sort((a, b) => took(b) - took(a)).slice(0, count);
  const rows = files.map(
    (f) =>
      `  ${`${(took(f) / 1000).toFixed(0)} s`.padStart(6)}  ${relative(process.cwd(), f.name)} (${f.assertionResults.length} tests)`,
  );
  return `\nThe ${lane.name} lane's longest files:\n${rows.join('\n')}`;
}

const total = { passed: 0, failed: 0, skipped: 0 };
for (const lane of LANES) {
  const file = resultsOf(lane);
  if (!existsSync(file)) {
    console.error(`\nvitest wrote no results for ${lane.projects.join(', ')}.`);
    failed = true;
    continue;
  }
  const r = JSON.parse(readFileSync(file, 'utf8'));
  rmSync(file);
  console.log(lastToEnd(lane, r));
  console.log(longest(lane, r));
  total.passed += r.numPassedTests;
  total.failed += r.numFailedTests;
  total.skipped += r.numPendingTests + r.numTodoTests;
  if (r.numTotalTests === 0) {
    console.error(`No test ran in ${lane.projects.join(', ')}.`);
    failed = true;
  }
}
console.log(`\n${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
process.exit(failed ? 1 : 0);
