// `npm test`: lint and format check, type-check, then every test. Ends with one summary line
// ("N passed, N failed, N skipped") that CI reads.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';

const results = '.vitest-results.json';
const steps = [
  ['lint and format (biome)', 'npx', ['biome', 'check', '.']],
  ['type-check (tsc)', 'npx', ['tsc', '-p', 'tsconfig.json']],
  ['tests (vitest)', 'npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${results}`]],
];

let failed = false;
for (const [name, command, args] of steps) {
  console.log(`\n▶ ${name}`);
  const { status } = spawnSync(command, args, { stdio: 'inherit' });
  if (status !== 0) {
    console.error(`✗ ${name} failed (exit ${status})`);
    failed = true;
    if (name !== 'tests (vitest)') break;
  }
}

if (existsSync(results)) {
  const r = JSON.parse(readFileSync(results, 'utf8'));
  rmSync(results);
  const skipped = r.numPendingTests + r.numTodoTests;
  console.log(`\n${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
  if (r.numTotalTests === 0) {
    console.error('No test ran.');
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
