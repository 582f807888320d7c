// Builds the web app (packages/web → packages/web/dist) when it is missing or older than its
// sources: run by `npm install` (postinstall), `npm start` and `npm test`, so a fresh clone serves
// the app without a separate build step. `--force` builds whatever the state.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

const web = 'packages/web';
const built = join(web, 'dist', 'index.html');
// Node older than 22.12 cannot run Vite 8; require-node.mjs explains what to do before start and test.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  console.warn(
    `Ninepoint: not building the web app on Node ${process.versions.node}; upgrade Node, then run npm run build.`,
  );
  process.exit(0);
}

/** The newest modification time under a path (sources, config, the spec package the app bundles). */
function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const name of readdirSync(path)) {
    if (name === 'node_modules' || name === 'dist') continue;
    latest = Math.max(latest, newest(join(path, name)));
  }
  return latest;
}

/** Files worth compressing: text. Images and fonts here are compressed already. */
const COMPRESSIBLE = new Set(['.js', '.css', '.html', '.svg', '.json', '.txt', '.ico']);

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** The text files of the build, in every folder under `dir`. */
function compressible(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return compressible(path);
    return COMPRESSIBLE.has(extname(name)) ? [path] : [];
  });
}

/**
 * Writes `<file>.br` (brotli, best) and `<file>.gz` (gzip -9) beside each text file of the build,
 * when smaller; the server sends them to browsers that accept them (packages/server web-app.ts).
 * The files are compressed at once on libuv's thread pool, not one after another on the main
 * thread: the same bytes, in about half the wall time on 2 cores (brotli's best is most of the
 * build's time, and the install waits for it).
 */
async function precompress(dir) {
  await Promise.all(
    compressible(dir).map(async (path) => {
      const body = readFileSync(path);
      const [br, gz] = await Promise.all([
        brotli(body, {
          params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
        }),
        gzipped(body, { level: 9 }),
      ]);
      if (br.length < body.length) writeFileSync(`${path}.br`, br);
      if (gz.length < body.length) writeFileSync(`${path}.gz`, gz);
    }),
  );
}

const dist = join(web, 'dist');
const force = process.argv.includes('--force');
const sources = Math.max(
  newest(join(web, 'src')),
  newest(join(web, 'index.html')),
  newest(join(web, 'vite.config.ts')),
  newest('packages/spec/src'),
);
if (!force && existsSync(built) && statSync(built).mtimeMs >= sources) {
  // A build made before builds were precompressed: compress it, no need to build again.
  if (!existsSync(`${built}.gz`)) await precompress(dist);
  process.exit(0);
}

console.log('Ninepoint: building the web app (packages/web)…');
// Vite's own script, found as Node resolves it from the web package: no npx, which may refuse to
// run a package it does not see as installed.
const require = createRequire(resolve(web, 'package.json'));
const vitePackage = require.resolve('vite/package.json');
const { bin } = JSON.parse(readFileSync(vitePackage, 'utf8'));
const viteBin = join(dirname(vitePackage), typeof bin === 'string' ? bin : bin.vite);
const { status } = spawnSync(process.execPath, [viteBin, 'build', '--logLevel', 'warn'], {
  cwd: web,
  stdio: 'inherit',
});
if (status !== 0) {
  console.error('Ninepoint: the web app did not build; the API still works. Run `npm run build` to see why.');
  process.exit(status ?? 1);
}
await precompress(dist);
