// The node flags of the `ninepoint` command, read from its first line (`#!/usr/bin/env -S node …`),
// so that a process starting the command's file (or the server it runs) with `node` runs it as the
// command does: `npm start`, the benchmarks, the reliability suites' servers.
import { readFileSync } from 'node:fs';

const BIN = new URL('../packages/cli/bin/ninepoint.js', import.meta.url);
const SHEBANG = /^#!\/usr\/bin\/env -S node((?: --[a-z-]+(?:=\S+)?)*)$/;

const first = readFileSync(BIN, 'utf8').split('\n', 1)[0] ?? '';
const match = SHEBANG.exec(first);
if (!match)
  throw new Error(
    `packages/cli/bin/ninepoint.js: expected a first line like "#!/usr/bin/env -S node --flag", not "${first}"`,
  );

/** The command's node flags, e.g. `['--max-semi-space-size=16']`. */
export const NODE_FLAGS = Object.freeze((match[1] ?? '').split(' ').filter((flag) => flag !== ''));
