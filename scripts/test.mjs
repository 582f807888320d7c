// `npm test`: lint and format check (biome), type-check (tsc), the check that every test file is in
// exactly one vitest project, and every project's tests, all started at once. The tests' output
// streams as it comes; each other part prints its output when it ends. Ends with one summary line
// ("N passed, N failed, N skipped") that CI reads; fails when any part fails.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { checkProjects } from './test-projects.mjs';

const results = '.vitest-results.json';
rmSync(results, { force: true });

/** Runs a command; resolves to its exit status, with its output kept unless `stream` is set. */
function run(command, args, stream) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: stream ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout?.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr?.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', (error) => resolve({ status: 1, output: `${output}${error.message}\n` }));
    child.on('close', (status, signal) => resolve({ status: status ?? 1, output, signal }));
  });
}

const started = Date.now();
const seconds = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;
const parts = [
  ['lint and format (biome)', run('npx', ['biome', 'check', '.'])],
  ['type-check (tsc)', run('npx', ['tsc', '-p', 'tsconfig.json'])],
  ['test projects (every test file in exactly one)', checkProjects()],
  [
    'tests (vitest)',
    run('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${results}`], true),
  ],
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

if (existsSync(results)) {
  const r = JSON.parse(readFileSync(results, 'utf8'));
  rmSync(results);
  const skipped = r.numPendingTests + r.numTodoTests;
  console.log(`\n${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
  if (r.numTotalTests === 0) {
    console.error('No test ran.');
    failed = true;
  }
} else {
  console.error('\nvitest wrote no results.');
  failed = true;
}
process.exit(failed ? 1 : 0);
