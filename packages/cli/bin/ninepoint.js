#!/usr/bin/env -S node --max-semi-space-size=16
// The `ninepoint` command. Plain JavaScript, no static imports and no top-level await, so that an
// old Node parses it and prints how to upgrade instead of a syntax error. In the repo it runs the
// TypeScript sources; installed from npm (no src/ there) it runs the built JavaScript in dist/.
//
// The first line caps V8's young generation at 16 MiB a half (`NODE_FLAGS` in scripts/node-flags.mjs
// reads it from there, for the processes that start this file with `node`). Left to itself, V8 on a
// machine of 24 GB grows it to 64 MiB a half under load, and a server's resident memory climbed by
// about 100 MB over 100,000 requests; capped, by about 30 MB, at the same CPU per answer
// (docs/deploy.md, "Memory"). A flag on node's command line wins over NODE_OPTIONS, so another
// size is chosen with node's own: `node --max-semi-space-size=64 $(command -v ninepoint)`.
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);

if (major < 22 || (major === 22 && minor < 12)) {
  console.error(
    `Ninepoint needs Node.js 22.12 or newer (24 LTS recommended); this is Node ${process.versions.node}.\n` +
      'Upgrade, then run the command again:\n\n' +
      '  npm install -g --force node@24\n',
  );
  process.exit(2);
} else if (!process.getBuiltinModule('node:fs').existsSync(new URL('../src/main.ts', import.meta.url))) {
  import('../dist/main.js');
} else if (process.features.typescript) {
  import('../src/main.ts');
} else {
  // Node 22.12–22.17 strips types only when asked to.
  Promise.all([import('node:child_process'), import('node:url')]).then(([{ spawnSync }, { fileURLToPath }]) => {
    const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));
    const child = spawnSync(
      process.execPath,
      [...process.execArgv, '--experimental-strip-types', '--no-warnings', main, ...process.argv.slice(2)],
      { stdio: 'inherit' },
    );
    if (child.error) {
      console.error(`ninepoint: could not start Node: ${child.error.message}`);
      process.exit(2);
    }
    if (child.signal) process.kill(process.pid, child.signal);
    process.exit(child.status ?? 2);
  });
}
