#!/usr/bin/env node
// The `ninepoint` command. Plain JavaScript, no static imports and no top-level await, so that an
// old Node parses it and prints how to upgrade instead of a syntax error. In the repo it runs the
// TypeScript sources; installed from npm (no src/ there) it runs the built JavaScript in dist/.
// A plain `env node` first line: `env -S node --flag` would fail under BusyBox (Alpine). The Docker
// image and `npm start` give Node the flags of scripts/node-flags.mjs; the re-run below keeps any.
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);

if (major < 22 || (major === 22 && minor < 12)) {
  console.error(
    `Ninepoint needs Node.js 22.12 or newer (24 LTS recommended); this is Node ${process.versions.node}.\n` +
      'Upgrade, then run the command again:\n\n' +
      '  npm install -g --force node@24\n',
  );
  process.exit(2);
}
// Node's compile cache (in the system's temporary folder, or NODE_COMPILE_CACHE): every start after
// the first reads the modules back compiled, and in the repo type-stripped, instead of compiling
// them again. It fails quietly (a read-only folder), costing only the speed-up.
process.getBuiltinModule('node:module').enableCompileCache?.();
if (!process.getBuiltinModule('node:fs').existsSync(new URL('../src/main.ts', import.meta.url))) {
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
