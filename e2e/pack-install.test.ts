import { type ChildProcess, execFile, type SpawnSyncReturns, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
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

/** Runs a command to completion in a folder (given its stdin and more environment); throws with its output when it fails. */
function run(
  command: string,
  args: readonly string[],
  cwd: string,
  options: { input?: string; env?: NodeJS.ProcessEnv } = {},
): SpawnSyncReturns<string> {
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    env: { ...userEnv(), ...options.env },
    timeout: 480_000,
    ...(options.input === undefined ? {} : { input: options.input }),
  });
  if (result.status !== 0)
    throw new Error(
      `${command} ${args.join(' ')} exited with ${result.status ?? result.signal}:\n${result.stdout}\n${result.stderr}`,
    );
  return result;
}

/** `run` without blocking: several npm commands at once (each spends most of its time starting). */
function runAsync(
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { cwd, encoding: 'utf8', env: { ...userEnv(), ...env }, timeout: 480_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${command} ${args.join(' ')} failed: ${error.message}\n${stdout}\n${stderr}`));
        else resolve({ stdout, stderr });
      },
    );
  });
}

/**
 * A registry holding one package, its packed tarball, on a port of its own: `npm create ninepoint`
 * fetches create-ninepoint from the registry, where it is not yet, so the command is run as a user
 * types it with this registry in its place. Any other name is not found (404).
 */
async function registryOf(tarball: string): Promise<{ url: string; requests: string[]; close: () => Promise<void> }> {
  const bytes = readFileSync(tarball);
  const manifest = JSON.parse(
    spawnSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' }).stdout,
  ) as { name: string; version: string };
  const file = `/${manifest.name}/-/${basename(tarball)}`;
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(request.url ?? '');
    if (request.url === `/${manifest.name}`) {
      const dist = {
        tarball: `${url}${file}`,
        shasum: createHash('sha1').update(bytes).digest('hex'),
        integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
      };
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          name: manifest.name,
          'dist-tags': { latest: manifest.version },
          versions: { [manifest.version]: { ...manifest, dist } },
        }),
      );
    } else if (request.url === file) {
      response.setHeader('content-type', 'application/octet-stream');
      response.end(bytes);
    } else {
      response.statusCode = 404;
      response.end('{}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Starts `npx ninepoint serve` in a process group of its own and answers the URL it prints. */
function serve(
  cwd: string,
  args: readonly string[],
): Promise<{ url: string; child: ChildProcess; output: () => string }> {
  return start(cwd, 'npx', ['--no', 'ninepoint', 'serve', ...args]);
}

/** Starts a command that serves (npx, npm start) in a process group of its own; answers the URL it prints. */
function start(
  cwd: string,
  command: string,
  args: readonly string[],
): Promise<{ url: string; child: ChildProcess; output: () => string }> {
  // npx and npm run the bin under a shell: the group lets the stop reach the server too.
  const child = spawn(command, args, {
    cwd,
    env: userEnv(),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    // A server that never says where it listens fails here, with what it printed, not at the test's timeout.
    const silent = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
      reject(new Error(`no "serving … at" line after 120 s:\n${out}`));
    }, 120_000);
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /serving "[^"]*" at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match?.[1]) {
        clearTimeout(silent);
        resolve({ url: match[1], child, output: () => out });
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.on('exit', (code) => {
      clearTimeout(silent);
      reject(new Error(`serve exited with ${code} before listening:\n${out}`));
    });
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
  const servers: ChildProcess[] = [];
  /** Serves with `serve` or `start`, stopped after the tests even when one fails. */
  const served = async (serving: Promise<{ url: string; child: ChildProcess; output: () => string }>) => {
    const server = await serving;
    servers.push(server.child);
    return server;
  };

  /** Each tarball's `npm publish --dry-run`, by name: started beside the install, which it does not need. */
  let published: Promise<Map<string, { stdout: string; stderr: string }>> | undefined;

  beforeAll(async () => {
    run(process.execPath, [join(root, 'scripts/pack.mjs'), '--out', tarballs], root);
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), `${JSON.stringify({ name: 'app', private: true, type: 'module' })}\n`);
    const names = readdirSync(tarballs);
    published = Promise.all(
      names.map(async (tarball) => {
        const result = await runAsync('npm', ['publish', '--dry-run', '--json', join(tarballs, tarball)], dir);
        return [tarball, result] as const;
      }),
    ).then((entries) => new Map(entries));
    // Its test reports a failure; until then it must not count as unhandled.
    published.catch(() => {});
    // The four Ninepoint packages, installed once for every check below; create-ninepoint is run, not installed.
    const files = names.filter((name) => name.startsWith('ninepoint-')).map((name) => join(tarballs, name));
    await runAsync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...files], app);
  }, 600_000);

  afterAll(async () => {
    await Promise.all(servers.map(stop));
    rmSync(dir, { recursive: true, force: true });
  });

  it('packs spec, server, web, cli and create-ninepoint, each JavaScript with .d.ts and no TypeScript sources', () => {
    expect(readdirSync(tarballs).sort()).toEqual([
      'create-ninepoint-0.1.0.tgz',
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
    const result = run('npx', ['--no', 'ninepoint', 'new', 'blank.md'], app);
    expect(result.stdout).toContain('Wrote blank.md');
    expect(readFileSync(join(app, 'blank.md'), 'utf8')).toContain('# Specification:');
  });

  it('npx ninepoint serve answers the API and serves the web app, on SQLite', async () => {
    const server = await served(
      serve(app, ['blank.md', '--port', '0', '--host', '127.0.0.1', '--log-format', 'pretty']),
    );
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
    // Its hints name the docs the CLI carries, where they are installed.
    expect(server.output()).toContain('see node_modules/@ninepoint/cli/docs/sign-in.md)');
    expect(existsSync(join(app, 'node_modules/@ninepoint/cli/docs/sign-in.md'))).toBe(true);
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
    // One checker thread (TypeScript 7): the same diagnostics for about half the CPU.
    expect(run(process.execPath, [tsc, '-p', 'tsconfig.json', '--singleThreaded'], app).stdout).toBe('');
    expect(run(process.execPath, ['check.ts'], app).stdout).toBe('0 diagnostics, compileApp is a function\n');
  });

  it('npm publish --dry-run of each tarball is clean: what a registry shows, no tests, and what each must carry', async () => {
    const must: Record<string, string[]> = {
      'ninepoint-spec': ['dist/index.js', 'dist/index.d.ts'],
      'ninepoint-server': ['dist/index.js', 'dist/index.d.ts', 'dist/http/api-docs-initializer.js'],
      'ninepoint-web': ['dist/index.html'],
      'ninepoint-cli': [
        'bin/ninepoint.js',
        'dist/main.js',
        'docs/spec-format.md',
        'docs/cli.md',
        'docs/client.md',
        'examples/helpdesk.md',
        'examples/quotes/pricing.ts',
      ],
      'create-ninepoint': ['bin/create-ninepoint.js', 'examples/blank.md', 'examples/helpdesk.md'],
    };
    const results = await (published as NonNullable<typeof published>);
    expect([...results.keys()].sort()).toEqual(readdirSync(tarballs).sort());
    for (const [tarball, result] of results) {
      const name = tarball.replace(/-0\.1\.0\.tgz$/, '');
      // A dry run still says it would need a login; any other warning (a field npm corrected, a
      // missing one) is the package's.
      const warnings = result.stderr
        .split('\n')
        .filter((line) => /^npm warn/i.test(line) && !/requires you to be logged in/.test(line));
      expect(warnings, tarball).toEqual([]);
      // One package's report, or the report keyed by the package's name (npm has written both).
      type Packed = { files: { path: string }[] };
      const report = JSON.parse(result.stdout) as Packed | Record<string, Packed>;
      const packed = (Array.isArray(report.files) ? report : Object.values(report)[0]) as Packed;
      const files = packed.files.map((f) => f.path);
      expect(files, tarball).toEqual(
        expect.arrayContaining(['package.json', 'README.md', 'LICENSE', ...(must[name] ?? ['?'])]),
      );
      expect(
        files.filter((f) => /\.test\.|(^|\/)test-support\.|^src\/|^test\//.test(f)),
        tarball,
      ).toEqual([]);
      const manifest = JSON.parse(
        run('tar', ['-xzOf', join(tarballs, tarball), 'package/package.json'], dir).stdout,
      ) as Record<string, unknown>;
      for (const field of ['description', 'keywords', 'repository', 'license', 'files', 'engines']) {
        expect(manifest[field], `${tarball} ${field}`).toBeDefined();
      }
      expect(manifest.license).toBe(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).license);
    }
  }, 240_000);

  it("every command and path the blank app's home page shows works here", async () => {
    // The home page (GrowProduct) is drawn in the browser: its hints are read from its source.
    const page = readFileSync(join(root, 'packages/web/src/home/GrowProduct.tsx'), 'utf8');
    const commands = [...page.matchAll(/<Command text="([^"]+)"/g)].map((m) => m[1] as string);
    const paths = [...page.matchAll(/<Code[^>]*>(node_modules\/[^<]+)<\/Code>/g)].map((m) => m[1] as string);
    expect(commands).toContain('npx ninepoint new --example lending-desk lending.md');
    expect(paths).toContain('node_modules/@ninepoint/cli/docs/spec-format.md');
    for (const path of paths) expect(existsSync(join(app, path)), path).toBe(true);
    for (const command of commands) {
      const [npx, ...args] = command.split(' ');
      expect(npx).toBe('npx');
      if (args[1] !== 'serve') {
        run('npx', ['--no', ...args], app);
        continue;
      }
      const server = await served(
        serve(app, [...args.slice(2), '--port', '0', '--host', '127.0.0.1', '--log-format', 'pretty']),
      );
      expect((await fetch(`${server.url}/api/health`)).status, command).toBe(200);
      await stop(server.child);
    }
  }, 240_000);

  it('npx ninepoint new --example helpdesk app.md writes a spec that serves here, and the commands and paths it and the served app print work', async () => {
    // After the home page's serves: the helpdesk's tables join the folder's ninepoint.db, as a user's would.
    const written = run('npx', ['--no', 'ninepoint', 'new', '--example', 'helpdesk', 'app.md'], app);
    expect(written.stdout).toContain('Wrote app.md: the helpdesk example, "IT helpdesk".');
    expect(run('npx', ['--no', 'ninepoint', 'check', 'app.md'], app).stdout).toContain('0 errors, 0 warnings');
    const format = /The format is described in (\S+)\.\n/.exec(written.stdout)?.[1];
    expect(format).toBe('node_modules/@ninepoint/cli/docs/spec-format.md');
    expect(existsSync(join(app, format ?? '?'))).toBe(true);
    const [serveHint = [], addHint = [], ...more] = [...written.stdout.matchAll(/^ {2}npx (ninepoint .+)$/gm)].map(
      (m) => (m[1] as string).split(' '),
    );
    expect(more).toEqual([]);
    expect(serveHint).toEqual(['ninepoint', 'serve', 'app.md']);
    expect(addHint).toEqual(['ninepoint', 'users', 'add', 'you@example.org', 'app.md', '--role', 'requester']);

    const server = await served(
      serve(app, [...serveHint.slice(2), '--port', '0', '--host', '127.0.0.1', '--log-format', 'pretty']),
    );
    expect(server.output()).toContain('serving "IT helpdesk"');
    // Said once the server listens, after it has looked for users.
    await expect
      .poll(server.output)
      .toContain(
        'no users yet; add the first with: npx ninepoint users add <email> --role <requester|agent|lead> app.md',
      );
    const paths = [...server.output().matchAll(/node_modules\/[^\s)]+/g)].map((m) => m[0]);
    expect(paths).toContain('node_modules/@ninepoint/cli/docs/sign-in.md');
    for (const path of paths) expect(existsSync(join(app, path)), path).toBe(true);

    // The hint as printed, its password piped in (without a terminal to ask on, as the CLI says).
    const password = 'a long enough password';
    const added = run('npx', ['--no', ...addHint, '--password-stdin'], app, { input: `${password}\n` });
    expect(added.stdout).toContain('Added you@example.org (you) with the role requester');
    const signIn = await fetch(`${server.url}/api/auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'you@example.org', password }),
    });
    expect(signIn.status).toBe(200);
    const cookie = signIn.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const ticket = await fetch(`${server.url}/api/tickets`, {
      method: 'POST',
      // A cookie's state-changing call comes from the app's own pages: its origin.
      headers: { 'content-type': 'application/json', cookie, origin: server.url },
      body: JSON.stringify({ title: 'Printer jams', description: 'Every second page jams on the second floor.' }),
    });
    expect(ticket.status).toBe(201);
    expect(await ticket.json()).toMatchObject({ title: 'Printer jams', state: 'new', priority: 'normal' });
    await stop(server.child);
  }, 240_000);

  it('npm create ninepoint my-app makes a folder with a spec, a README and a package.json whose start serves it', async () => {
    // `npm create ninepoint my-app`, word for word, in an empty folder: npm looks create-ninepoint up
    // in the registry, here one holding its packed tarball alone. A fresh npm cache, so that no
    // create-ninepoint npm exec installed before is run instead; --yes stands for the "Ok to
    // proceed?" a terminal would answer.
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    const registry = await registryOf(join(tarballs, 'create-ninepoint-0.1.0.tgz'));
    // Asynchronous: the registry answering npm runs in this process.
    const made = await runAsync('npm', ['create', 'ninepoint', 'my-app'], empty, {
      npm_config_registry: `${registry.url}/`,
      npm_config_cache: join(dir, 'npm-create-cache'),
      npm_config_yes: 'true',
    }).finally(() => registry.close());
    expect(registry.requests).toContain('/create-ninepoint/-/create-ninepoint-0.1.0.tgz');
    expect(made.stdout).toContain('Made my-app: spec.md (the blank spec), package.json and README.md.');
    const folder = join(empty, 'my-app');
    expect(readdirSync(folder).sort()).toEqual(['README.md', 'package.json', 'spec.md']);
    expect(readFileSync(join(folder, 'spec.md'), 'utf8')).toMatch(/^# Specification: My app\n/);
    const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({
      name: 'my-app',
      private: true,
      scripts: { start: 'ninepoint serve spec.md' },
      dependencies: { '@ninepoint/cli': '^0.1.0' },
    });
    expect(readFileSync(join(folder, 'README.md'), 'utf8')).toContain('npm start');
    // Its `npm install` would fetch @ninepoint/cli from the registry: the packages installed above stand in.
    symlinkSync(join(app, 'node_modules'), join(folder, 'node_modules'));
    const server = await served(
      start(folder, 'npm', ['start', '--', '--port', '0', '--host', '127.0.0.1', '--log-format', 'pretty']),
    );
    expect(server.output()).toContain('serving "My app"');
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    await stop(server.child);
  }, 240_000);
});
