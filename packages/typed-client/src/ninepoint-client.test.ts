import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addUser, assignableRoles, createApiToken, createServer, type NinepointServer } from '@ninepoint/server';
import { checkSpec } from '@ninepoint/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * `ninepoint client examples/helpdesk.md --out client.ts`, as a team would use it: the client is
 * written by the real command, a program using it (`programs/helpdesk-client.ts`) type-checks
 * with TypeScript 5 against it (the same program misspelt does not), and Node runs the program,
 * client and all, against a served helpdesk: a sign-in, a create, a filtered list, an update, two
 * transitions, a refusal with its typed code and the live events of it all.
 */
const PACKAGE = fileURLToPath(new URL('../', import.meta.url));
const ROOT = join(PACKAGE, '../..');
const HELPDESK = join(ROOT, 'examples/helpdesk.md');
const local = createRequire(join(PACKAGE, 'package.json'));
const TSC = join(local.resolve('typescript/package.json'), '..', 'bin/tsc');

const dir = mkdtempSync(join(tmpdir(), 'ninepoint-client-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function node(args: string[], env: NodeJS.ProcessEnv = {}): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8', env: { ...process.env, ...env } });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** A tsconfig of a project a team would have: strict, ES modules, the DOM's and Node's types. */
function tsconfig(file: string, include: string): string {
  writeFileSync(
    join(dir, file),
    JSON.stringify({
      compilerOptions: {
        target: 'es2023',
        lib: ['es2023', 'dom'],
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        noUncheckedIndexedAccess: true,
        exactOptionalPropertyTypes: true,
        allowImportingTsExtensions: true,
        erasableSyntaxOnly: true,
        verbatimModuleSyntax: true,
        noEmit: true,
        types: ['node'],
        skipLibCheck: true,
        typeRoots: [join(ROOT, 'node_modules/@types')],
      },
      include: [include],
    }),
  );
  return join(dir, file);
}

beforeAll(() => {
  writeFileSync(join(dir, 'package.json'), '{ "type": "module", "private": true }\n');
  const written = node([join(ROOT, 'packages/cli/bin/ninepoint.js'), 'client', HELPDESK, '--out', 'client.ts']);
  expect(written.output).toContain('Wrote client.ts: 3 entities, 27 calls');
  expect(written.status).toBe(0);
  copyFileSync(join(PACKAGE, 'programs/helpdesk-client.ts'), join(dir, 'program.ts'));
});

describe('the client ninepoint client writes', () => {
  it('type-checks a program using it with TypeScript 5, but not the program with a misspelt field, state or error code', () => {
    expect(JSON.parse(readFileSync(local.resolve('typescript/package.json'), 'utf8')).version).toMatch(/^5\./);
    const source = readFileSync(join(dir, 'program.ts'), 'utf8');
    const misspelt = source
      .replace("description: 'Every second page", "descripton: 'Every second page")
      .replace("filter: { state: 'new',", "filter: { state: 'nwe',")
      .replace("error.code === 'URGENT_BY_PHONE'", "error.code === 'URGENT_BY_FONE'")
      .replace('assigned: assigned.state', 'assigned: assigned.status');
    expect(misspelt.split('\n').filter((line, i) => line !== source.split('\n')[i])).toHaveLength(4);
    writeFileSync(join(dir, 'misspelt.ts'), misspelt);
    // One run for both (tsc takes seconds): every error must be the misspelt program's.
    const checked = node([TSC, '-p', tsconfig('tsconfig.json', '*.ts')]);
    expect(checked.status).not.toBe(0);
    const errors = checked.output.split('\n').filter((line) => /error TS/.test(line));
    expect(errors.filter((line) => !line.startsWith('misspelt.ts'))).toEqual([]);
    expect(errors).toHaveLength(4);
    expect(checked.output).toMatch(/misspelt\.ts\(\d+,\d+\): error TS2561: [^\n]*'descripton'[^\n]*'description'/);
    expect(checked.output).toMatch(/misspelt\.ts\(\d+,\d+\): error TS2322: Type '"nwe"' is not assignable/);
    expect(checked.output).toMatch(/misspelt\.ts\(\d+,\d+\): error TS2367: [^\n]*'"URGENT_BY_FONE"'/);
    expect(checked.output).toMatch(
      /misspelt\.ts\(\d+,\d+\): error TS2339: Property 'status' does not exist on type 'Ticket'/,
    );
  });

  it('depends on nothing but fetch', () => {
    const client = readFileSync(join(dir, 'client.ts'), 'utf8');
    expect(client.match(/^import .*/gm)).toBeNull();
    expect(client).toContain('export function createClient(options: ClientOptions): Client');
  });

  describe('run by Node against a served helpdesk', () => {
    let server: NinepointServer;
    let url: string;
    const env: Record<string, string> = {};

    beforeAll(async () => {
      const { model, ok } = checkSpec(readFileSync(HELPDESK, 'utf8'));
      expect(ok).toBe(true);
      server = await createServer({ model, dbPath: join(dir, 'helpdesk.db'), logger: false });
      url = await server.listen({ port: 0, host: '127.0.0.1' });
      const known = assignableRoles(model);
      const password = 'a long enough password';
      await addUser(server.auth, { email: 'rita@example.org', name: 'Rita', roles: ['requester'], password }, known);
      await addUser(server.auth, { email: 'sam@example.org', name: 'Sam', roles: ['agent'], password }, known);
      const token = (await createApiToken(server.auth, 'sam@example.org', 'client test')).secret;
      Object.assign(env, {
        APP_URL: url,
        AGENT_TOKEN: token,
        REQUESTER_EMAIL: 'rita@example.org',
        REQUESTER_PASSWORD: password,
      });
    });

    afterAll(async () => {
      await server?.close();
    });

    it('signs in, creates, lists with a filter, moves a ticket on, is refused with a typed code and hears it all live', async () => {
      const ran = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        // Asynchronous: the server answering it runs in this process.
        const child = spawn(process.execPath, ['program.ts'], { cwd: dir, env: { ...process.env, ...env } });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk) => {
          stdout += chunk;
        });
        child.stderr.on('data', (chunk) => {
          stderr += chunk;
        });
        child.on('close', (status) => resolve({ status, stdout, stderr }));
      });
      expect(ran.stderr).toBe('');
      expect(ran.status).toBe(0);
      const result = JSON.parse(ran.stdout);
      expect(result).toEqual({
        signedIn: ['requester'],
        created: { id: expect.any(String), state: 'new', reporter: true },
        listed: { ids: [result.created.id], total: 1 },
        assigned: 'assigned',
        started: 'in_progress',
        refused: { code: 'URGENT_BY_PHONE', status: 422, field: 'priority' },
        heard: ['Ticket create', 'Ticket update', 'Ticket transition', 'Ticket transition'],
        afterSignOut: null,
      });
    });
  });
});
