import { type ChildProcess, type SpawnSyncReturns, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * The environment a user's shell would give npm: without the npm_* variables `npm test` sets for
 * the repo (npm_config_local_prefix would make npm install into the repo, not the empty folder),
 * the test runner's, and DATABASE_URL (the app is served on SQLite here).
 */
function userEnv(): NodeJS.ProcessEnv {
  const kept = new Set(['npm_config_cache', 'npm_config_registry', 'npm_config_userconfig']);
  const dropped = (key: string) =>
    (key.startsWith('npm_') && !kept.has(key)) ||
    key.startsWith('vitest') ||
    ['node_env', 'database_url'].includes(key);
  return Object.fromEntries(
    Object.entries({ ...process.env, NO_COLOR: '1' }).filter(([key]) => !dropped(key.toLowerCase())),
  );
}

/** Runs a command to completion in a folder; throws with its output when it fails. */
function run(command: string, args: readonly string[], cwd: string): SpawnSyncReturns<string> {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: userEnv(), timeout: 240_000 });
  if (result.status !== 0)
    throw new Error(
      `${command} ${args.join(' ')} exited with ${result.status ?? result.signal}:\n${result.stdout}\n${result.stderr}`,
    );
  return result;
}

/** Starts `npx ninepoint serve` in a process group of its own and answers the URL it prints. */
function serve(cwd: string, args: readonly string[]): Promise<{ url: string; child: ChildProcess }> {
  // npx runs the bin under a shell: the group lets the stop reach the server too.
  const child = spawn('npx', ['--no', 'ninepoint', 'serve', ...args], {
    cwd,
    env: userEnv(),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /serving "[^"]*" at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match?.[1]) resolve({ url: match[1], child });
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.on('exit', (code) => reject(new Error(`serve exited with ${code} before listening:\n${out}`)));
  });
}

/** SIGTERM to the server's process group; resolves once npx has exited. */
function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(-child.pid, 'SIGTERM');
  return exited;
}

/**
 * The published form, as a new user gets it: the four packages packed by `npm run pack`, installed
 * from those tarballs alone into an empty folder outside the repo, and run there with npx. Node
 * refuses to strip types under node_modules, so this holds only when the packages ship JavaScript.
 */
describe('the npm tarballs installed into an empty folder', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ninepoint-pack-install-'));
  const tarballs = join(dir, 'tarballs');
  const app = join(dir, 'app');
  let server: { url: string; child: ChildProcess } | undefined;

  beforeAll(() => {
    run(process.execPath, [join(root, 'scripts/pack.mjs'), '--out', tarballs], root);
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), `${JSON.stringify({ name: 'app', private: true, type: 'module' })}\n`);
    const files = readdirSync(tarballs).map((name) => join(tarballs, name));
    run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...files], app);
  }, 300_000);

  afterAll(async () => {
    if (server) await stop(server.child);
    rmSync(dir, { recursive: true, force: true });
  });

  it('packs spec, server, web and cli, each JavaScript with .d.ts and no TypeScript sources', () => {
    expect(readdirSync(tarballs).sort()).toEqual([
      'ninepoint-cli-0.1.0.tgz',
      'ninepoint-server-0.1.0.tgz',
      'ninepoint-spec-0.1.0.tgz',
      'ninepoint-web-0.1.0.tgz',
    ]);
    for (const name of ['spec', 'server', 'cli']) {
      const installed = join(app, 'node_modules/@ninepoint', name);
      expect(existsSync(join(installed, 'src')), name).toBe(false);
      expect(existsSync(join(installed, 'dist/index.js')), name).toBe(true);
      expect(existsSync(join(installed, 'dist/index.d.ts')), name).toBe(true);
      const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
      expect(manifest.exports['.']).toEqual({ types: './dist/index.d.ts', default: './dist/index.js' });
      expect(manifest.private).toBeUndefined();
    }
    expect(existsSync(join(app, 'node_modules/@ninepoint/web/dist/index.html'))).toBe(true);
  });

  it('npx ninepoint new writes the blank spec', () => {
    const result = run('npx', ['--no', 'ninepoint', 'new', 'app.md'], app);
    expect(result.stdout).toContain('Wrote app.md');
    expect(readFileSync(join(app, 'app.md'), 'utf8')).toContain('# Specification:');
  });

  it('npx ninepoint serve answers the API and serves the web app, on SQLite', async () => {
    server = await serve(app, ['app.md', '--port', '0', '--host', '127.0.0.1', '--log-format', 'pretty']);
    const health = await fetch(`${server.url}/api/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', database: 'sqlite' });
    // better-sqlite3's prebuilt binary loaded: serve made the database file.
    expect(existsSync(join(app, 'ninepoint.db'))).toBe(true);

    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const script = /<script type="module"[^>]* src="([^"]+)"/.exec(html)?.[1];
    expect(script).toMatch(/^\/assets\/index-.*\.js$/);
    const asset = await fetch(`${server.url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toContain('javascript');

    // The API reference page's own script is a .js file beside the server's sources: shipped too.
    const docs = await (await fetch(`${server.url}/api/docs`)).text();
    const initializer = /src="(docs\/assets\/initializer\.js[^"]*)"/.exec(docs)?.[1];
    expect(initializer).toBeDefined();
    expect((await fetch(`${server.url}/api/${initializer}`)).status).toBe(200);
    await stop(server.child);
  });

  it('a program type-checks against the .d.ts and runs against the JavaScript', () => {
    writeFileSync(
      join(app, 'check.ts'),
      [
        "import { blankSpec, checkSpec, type Diagnostic } from '@ninepoint/spec';",
        "import { compileApp } from '@ninepoint/server';",
        'const errors: Diagnostic[] = checkSpec(blankSpec()).diagnostics;',
        "console.log(errors.length, 'diagnostics, compileApp is a', typeof compileApp);",
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          target: 'es2023',
          strict: true,
          noEmit: true,
          // The server's types use Node's, as Fastify's do; the repo's copy stands in for the
          // `npm install -D @types/node` a user makes.
          types: ['node'],
          typeRoots: [join(root, 'node_modules/@types')],
        },
        include: ['check.ts'],
      }),
    );
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    expect(run(process.execPath, [tsc, '-p', 'tsconfig.json'], app).stdout).toBe('');
    expect(run(process.execPath, ['check.ts'], app).stdout).toBe('0 diagnostics, compileApp is a function\n');
  });
});
