// `npm run test:reliability`: the crash, concurrency, fuzz, bad-input and soak suites at full
// size (RELIABILITY=full; `npm test` runs them reduced). `npm run test:reliability -- crash soak`
// runs only the suites whose file names contain those words; options go to vitest as they are.
import { spawnSync } from 'node:child_process';

const args = process.argv.slice(2);
const names = args.filter((a) => !a.startsWith('-'));
const options = args.filter((a) => a.startsWith('-'));
// Vitest runs the files matching any filter: the folder alone would match every suite.
const filters = names.length > 0 ? names.map((name) => `e2e/reliability/${name}`) : ['e2e/reliability'];
const { status } = spawnSync('npx', ['vitest', 'run', ...filters, ...options], {
  stdio: 'inherit',
  env: { ...process.env, RELIABILITY: 'full' },
});
process.exit(status ?? 1);
