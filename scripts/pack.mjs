// `npm run pack [-- --out <dir>]`: the published form of the five packages, as npm tarballs in
// <dir> (default dist/), installable together outside the repo:
//
//   npm install ./ninepoint-cli-0.1.0.tgz ./ninepoint-server-0.1.0.tgz \
//               ./ninepoint-spec-0.1.0.tgz ./ninepoint-web-0.1.0.tgz
//
// The repo runs its `.ts` sources directly (Node strips the types), but Node refuses to strip types
// under node_modules, so what is packed is JavaScript with .d.ts: one `tsc` run (TypeScript 7
// emits declarations; `rewriteRelativeImportExtensions` turns `./x.ts` into `./x.js`) compiles
// spec, server and cli into a staging folder outside the repo, where each package gets a
// package.json whose exports name `dist/` instead of `src/`; `npm pack` then packs the staged
// folders. Nothing in the repo changes, so its source workflow (npm start, npm test, the bin)
// needs no build step. See docs/architecture.md ("Packaging").
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);

if (args[0] === '--refuse') {
  // The packages' own `prepack`: packing a package folder directly would ship `.ts` that Node
  // cannot run from node_modules.
  console.error(
    'ninepoint: pack the packages with `npm run pack` at the repository root; it builds the JavaScript and .d.ts they are installed as.',
  );
  process.exit(1);
}

const outIndex = args.indexOf('--out');
const unknown = args.filter((arg, i) => arg !== '--out' && i !== outIndex + 1);
if ((outIndex !== -1 && args[outIndex + 1] === undefined) || unknown.length > 0) {
  console.error('usage: npm run pack [-- --out <dir>]');
  process.exit(2);
}
const out = resolve(outIndex === -1 ? join(root, 'dist') : args[outIndex + 1]);

/** The packages compiled by tsc; web is packed as Vite built it, create-ninepoint as it is (plain JavaScript). */
const COMPILED = ['spec', 'server', 'cli'];
const PACKAGES = [...COMPILED, 'web', 'create-ninepoint'];

/**
 * What a package carries from the repository besides its own folder: the CLI the examples and the
 * docs (`ninepoint new --example`, and the pages its hints and the app's home page name), the
 * create-ninepoint package the examples it writes. Docs' images stay in the repository.
 */
const CARRIED = {
  cli: [
    { from: 'examples', to: 'examples' },
    { from: 'docs', to: 'docs', only: (name) => name.endsWith('.md') },
  ],
  'create-ninepoint': [{ from: 'examples', to: 'examples' }],
};

/** Runs a command to completion; throws when it fails. */
function run(command, commandArgs, options = {}) {
  const result = spawnSync(command, commandArgs, { stdio: 'inherit', ...options });
  if (result.status !== 0) throw new Error(`${[command, ...commandArgs].join(' ')} failed`);
  return result;
}

const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));

/** `./src/x.ts` → `./dist/x.js` (and `.d.ts` for types); other export targets stay as they are. */
function distExport(target) {
  const match = /^\.\/src\/(.*)\.tsx?$/.exec(target);
  if (!match) return target;
  return { types: `./dist/${match[1]}.d.ts`, default: `./dist/${match[1]}.js` };
}

/** The package.json a package is published with: built exports, nothing only the repo needs. */
function publishedManifest(name, manifest) {
  const { private: _private, devDependencies: _dev, scripts: _scripts, ...published } = manifest;
  if (typeof published.exports === 'string') published.exports = distExport(published.exports);
  else if (published.exports)
    published.exports = Object.fromEntries(
      Object.entries(published.exports).map(([key, target]) => [
        key,
        typeof target === 'string' ? distExport(target) : target,
      ]),
    );
  // Vite bundles the web app's dependencies into dist/: installing them would only add weight.
  if (name === 'web') delete published.dependencies;
  // The .d.ts name the types of runtime dependencies (pg, better-sqlite3…): a consumer who
  // type-checks needs those type packages, so they go with the package.
  for (const [dev, range] of Object.entries(manifest.devDependencies ?? {})) {
    const typed = /^@types\/(.*)$/.exec(dev)?.[1];
    if (typed && published.dependencies?.[typed.replace(/^(.*)__(.*)$/, '@$1/$2')])
      published.dependencies = { ...published.dependencies, [dev]: range };
  }
  if (published.dependencies)
    published.dependencies = Object.fromEntries(
      Object.entries(published.dependencies).sort(([a], [b]) => (a < b ? -1 : 1)),
    );
  return published;
}

/**
 * Rewrites relative `./x.ts` specifiers in emitted .d.ts to `./x.js`: TypeScript accepts either
 * in a declaration file, but other tools (editors, API extractors) look for the `.js` name.
 */
function rewriteDeclarations(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) rewriteDeclarations(path);
    else if (entry.name.endsWith('.d.ts')) {
      const text = readFileSync(path, 'utf8');
      const rewritten = text.replace(/((?:from\s*|import\s*\(\s*)(['"])\.\.?\/[^'"]*?)\.tsx?(?=['"])/g, '$1.js');
      if (rewritten !== text) writeFileSync(path, rewritten);
    }
  }
}

/** Copies the files under src/ that are not TypeScript and not tests (assets read at run time). */
function copyAssets(from, to) {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const path = join(from, entry.name);
    if (entry.isDirectory()) copyAssets(path, join(to, entry.name));
    else if (!/\.tsx?$/.test(entry.name) && !/\.test\./.test(entry.name)) {
      mkdirSync(to, { recursive: true });
      cpSync(path, join(to, entry.name));
    }
  }
}

const stage = mkdtempSync(join(tmpdir(), 'ninepoint-pack-'));
try {
  // The web app's dist/, built when missing or older than its sources.
  run(process.execPath, [join(root, 'scripts/build-web.mjs')], { cwd: root });
  if (!existsSync(join(root, 'packages/web/dist/index.html'))) throw new Error('packages/web/dist was not built');
  const built = join(stage, 'built');
  const tsconfig = join(stage, 'tsconfig.json');
  writeFileSync(
    tsconfig,
    JSON.stringify(
      {
        extends: join(root, 'tsconfig.json'),
        compilerOptions: {
          noEmit: false,
          declaration: true,
          rewriteRelativeImportExtensions: true,
          // Type packages are found beside this config by default; it is not in the repo.
          typeRoots: [join(root, 'node_modules/@types')],
          rootDir: join(root, 'packages'),
          outDir: built,
        },
        include: COMPILED.map((name) => join(root, 'packages', name, 'src/**/*.ts')),
        exclude: COMPILED.flatMap((name) => [
          join(root, 'packages', name, 'src/**/*.test.ts'),
          join(root, 'packages', name, 'src/test-support.ts'),
        ]),
      },
      null,
      2,
    ),
  );
  const require = createRequire(join(root, 'package.json'));
  const tsc = join(dirname(require.resolve('typescript/package.json')), 'bin/tsc');
  console.log('Ninepoint: compiling spec, server and cli to JavaScript and .d.ts…');
  // One checker thread: the same output for about half the CPU of TypeScript 7's several.
  run(process.execPath, [tsc, '-p', tsconfig, '--singleThreaded'], { cwd: root });

  const folders = [];
  for (const name of PACKAGES) {
    const source = join(root, 'packages', name);
    const folder = join(stage, 'packages', name);
    mkdirSync(folder, { recursive: true });
    const manifest = readJson(join(source, 'package.json'));
    if (COMPILED.includes(name)) {
      cpSync(join(built, name, 'src'), join(folder, 'dist'), { recursive: true });
      rewriteDeclarations(join(folder, 'dist'));
      copyAssets(join(source, 'src'), join(folder, 'dist'));
    } else if (existsSync(join(source, 'dist'))) {
      cpSync(join(source, 'dist'), join(folder, 'dist'), { recursive: true });
    }
    if (existsSync(join(source, 'bin'))) cpSync(join(source, 'bin'), join(folder, 'bin'), { recursive: true });
    cpSync(join(source, 'README.md'), join(folder, 'README.md'));
    cpSync(join(root, 'LICENSE'), join(folder, 'LICENSE'));
    for (const { from, to, only } of CARRIED[name] ?? []) {
      // With `only`, the folder's own files that pass it, and none of its subfolders.
      const top = join(root, from);
      const wanted = (path) => !only || path === top || (!statSync(path).isDirectory() && only(path));
      cpSync(top, join(folder, to), { recursive: true, filter: wanted });
    }
    writeFileSync(join(folder, 'package.json'), `${JSON.stringify(publishedManifest(name, manifest), null, 2)}\n`);
    folders.push(folder);
  }

  mkdirSync(out, { recursive: true });
  const packed = run('npm', ['pack', ...folders, '--pack-destination', out, '--json', '--loglevel', 'error'], {
    cwd: stage,
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
  for (const { filename, size } of JSON.parse(packed.stdout)) {
    const path = relative(process.cwd(), join(out, filename));
    console.log(`${path.startsWith('..') ? join(out, filename) : path}  ${(size / 1024).toFixed(0)} KB`);
  }
} catch (error) {
  console.error(`ninepoint pack: ${error.message}`);
  process.exitCode = 1;
} finally {
  rmSync(stage, { recursive: true, force: true });
}
