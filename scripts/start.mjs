// `npm start [-- [spec.md] [serve options]]`: serves the blank spec (or the one given) on SQLite
// under ./data/, one database file per spec so switching specs never mixes their tables. Options
// alone (`npm start -- --port 3001`) serve the blank spec with them; a later `--db` wins.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { basename } from 'node:path';
import { NODE_FLAGS } from './node-flags.mjs';

const given = process.argv.slice(2);
const spec = given[0] !== undefined && !given[0].startsWith('-') ? given[0] : undefined;
const name = spec ? basename(spec).replace(/\.md$/i, '') : 'blank';
mkdirSync('data', { recursive: true });
const args = [
  ...NODE_FLAGS,
  'packages/cli/bin/ninepoint.js',
  'serve',
  ...(spec ? [spec] : []),
  '--db',
  `data/${name}.db`,
  ...given.slice(spec ? 1 : 0),
];
const child = spawn(process.execPath, args, { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
