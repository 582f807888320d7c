// `npm start [-- spec.md]`: serves the blank spec (or the one given) on SQLite under ./data/,
// one database file per spec so switching specs never mixes their tables.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { basename } from 'node:path';

const spec = process.argv[2];
const name = spec ? basename(spec).replace(/\.md$/i, '') : 'blank';
mkdirSync('data', { recursive: true });
const args = [
  'packages/cli/bin/ninepoint.js',
  'serve',
  ...(spec ? [spec] : []),
  '--db',
  `data/${name}.db`,
  ...process.argv.slice(3),
];
const child = spawn(process.execPath, args, { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
