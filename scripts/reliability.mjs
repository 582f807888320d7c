// `npm run test:reliability`: the reliability project (vitest.config.ts: the crash, concurrency,
// fuzz, bad-input and soak suites, and the property tests of *.fuzz.test.ts files) at full size:
// RELIABILITY=full (`npm test` runs them reduced). `npm run test:reliability -- crash soak` runs only
// the suites whose file names contain those words; options go to vitest as they are.
import { spawnSync } from 'node:child_process';

const args = process.argv.slice(2);
const names = args.filter((a) => !a.startsWith('-'));
const options = args.filter((a) => a.startsWith('-'));
const { status } = spawnSync('npx', ['vitest', 'run', '--project', 'reliability', ...names, ...options], {
  stdio: 'inherit',
  env: { ...process.env, RELIABILITY: 'full' },
});
process.exit(status ?? 1);
