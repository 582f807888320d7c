import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addUser, assignableRoles, compileApp, createApiToken, createServer } from '@ninepoint/server';
import { blankSpec, checkSpec, type Model } from '@ninepoint/spec';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * Each example's OpenAPI document, as the server compiles it, through openapi-typescript; a small
 * client per example (`clients/`, using openapi-fetch) type-checks against those types with
 * TypeScript 5 (the generator's compiler API needs it; the repository's own tsc is TypeScript 7)
 * and then calls a real server: create, get, list, a transition, and a refusal whose
 * problem+json is typed. A client that names a field the API does not have must not type-check.
 *
 * The generator runs in this process, once for the five documents (its command, run once per
 * document, loaded TypeScript 5 each time), and one TypeScript program checks the clients and the
 * misspelt one together: each program of its own spent most of its time on the same libraries
 * and generated types.
 */
const PACKAGE = fileURLToPath(new URL('../', import.meta.url));
const GENERATED = join(PACKAGE, 'generated');
const MISSPELT = join(GENERATED, 'misspelt');
const local = createRequire(join(PACKAGE, 'package.json'));
const TSC = bin('typescript', 'tsc');

/** The script of a command of one of this package's own tools, found as npm links it. */
function bin(tool: string, command: string): string {
  const manifest = local.resolve(`${tool}/package.json`);
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
  return join(manifest, '..', bin[command] ?? '');
}

const examples = new URL('../../../examples/', import.meta.url);
const EXAMPLES: Record<string, string> = {
  blank: blankSpec(),
  expenses: readFileSync(new URL('expenses.md', examples), 'utf8'),
  helpdesk: readFileSync(new URL('helpdesk.md', examples), 'utf8'),
  'lending-desk': readFileSync(new URL('lending-desk.md', examples), 'utf8'),
  quotes: readFileSync(new URL('quotes.md', examples), 'utf8'),
};

/** Who walks through each example, by the name the client calls them, with their roles. */
const PEOPLE: Record<string, Record<string, string[]>> = {
  blank: { user: [] },
  expenses: { finance: ['finance'], manager: ['manager'], employee: ['employee'] },
  helpdesk: { agent: ['agent'], requester: ['requester'] },
  'lending-desk': { staff: ['staff'], member: ['member'] },
  quotes: { sales: ['sales'] },
};

function modelOf(source: string): Model {
  const { model, ok, diagnostics } = checkSpec(source);
  if (!ok) throw new Error(JSON.stringify(diagnostics.filter((d) => d.severity === 'error')));
  return model;
}

/** Runs a Node script of this package's tools; answers its exit status and everything it wrote. */
function run(script: string, args: string[]): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, [script, ...args], { cwd: PACKAGE, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** What tsc said of each file it checked (paths from the package), and anything it said of none. */
interface Checked {
  status: number | null;
  byFile: Map<string, string[]>;
}

let checked: Checked | undefined;

/**
 * The clients, the generated types and the misspelt client (written by the test that needs it)
 * type-checked by one tsc run, once for the tests that read it. `--pretty false` prints a
 * diagnostic as `file(line,col): error TS…` and its elaboration on indented lines after it.
 */
function checkClients(): Checked {
  if (checked) return checked;
  writeMisspelt();
  const config = join(GENERATED, 'tsconfig.json');
  writeFileSync(
    config,
    JSON.stringify({ extends: '../tsconfig.json', include: ['../clients/**/*.ts', '*.ts', 'misspelt/*.ts'] }),
  );
  const { status, output } = run(TSC, ['-p', config, '--pretty', 'false']);
  const byFile = new Map<string, string[]>();
  for (const diagnostic of output.split(/\n(?=\S)/)) {
    if (diagnostic.trim() === '') continue;
    const file = /^(.+?)\(\d+,\d+\): /.exec(diagnostic)?.[1] ?? '';
    byFile.set(file, [...(byFile.get(file) ?? []), diagnostic]);
  }
  checked = { status, byFile };
  return checked;
}

/** The expenses client with one field of a request body and one of an answer misspelt. */
function writeMisspelt(): void {
  const source = readFileSync(join(PACKAGE, 'clients', 'expenses.ts'), 'utf8');
  const misspelt = source
    .replace("description: 'Train to Leeds", "descripton: 'Train to Leeds")
    .replace('page.items.map((item) => item.id)', 'page.items.map((item) => item.identifier)')

    .replaceAll("from './walk.ts'", "from '../../clients/walk.ts'")
    .replaceAll("from '../generated/", "from '../");
  expect(misspelt).not.toBe(source);
  mkdirSync(MISSPELT, { recursive: true });
  writeFileSync(join(MISSPELT, 'expenses.ts'), misspelt);
  // Apart: tsc says one thing of an object literal, and the record part's misspelt field would hide it.
  const part = misspelt
    .replace("descripton: 'Train to Leeds", "description: 'Train to Leeds")
    .replace('{ record: claim, receipt: sent }', '{ record: claim, reciept: sent }');
  expect(part).toContain('reciept');
  writeFileSync(join(MISSPELT, 'expenses-part.ts'), part);
}

const BLOB = ts.factory.createTypeReferenceNode(ts.factory.createIdentifier('Blob'));

beforeAll(async () => {
  rmSync(GENERATED, { recursive: true, force: true });
  mkdirSync(GENERATED, { recursive: true });
  for (const [name, source] of Object.entries(EXAMPLES)) {
    // A default is the server's to fill in: with the generator's default, a field that has one
    // would be required in a request body that may leave it out.
    const types = await openapiTS(JSON.parse(JSON.stringify(compileApp(modelOf(source)).openapi)), {
      defaultNonNullable: false,
      // A file part (`format: binary`) is a Blob, as its generator documents for uploads; its
      // default, `string`, would type a file's name where its bytes go.
      transform: (schema) => (schema.format === 'binary' ? BLOB : undefined),
    });
    writeFileSync(join(GENERATED, `${name}.ts`), `${COMMENT_HEADER}${astToString(types)}`);
  }
});

describe('typed clients generated by openapi-typescript', () => {
  // One tsc run checks every client (about 8 s of CPU): over a minute on a machine under load 25.
  it('type-check against every example with TypeScript 5', () => {
    expect(JSON.parse(readFileSync(local.resolve('typescript/package.json'), 'utf8')).version).toMatch(/^5\./);
    const { byFile } = checkClients();
    const elsewhere = [...byFile].filter(([file]) => !file.startsWith('generated/misspelt/'));
    expect(elsewhere).toEqual([]);
    for (const name of Object.keys(EXAMPLES))
      expect(readFileSync(join(GENERATED, `${name}.ts`), 'utf8')).toContain('export interface paths');
  }, 180_000);

  it('do not type-check when a client names a field the API does not have', () => {
    const { status, byFile } = checkClients();
    expect(status).not.toBe(0);
    const errors = (byFile.get('generated/misspelt/expenses.ts') ?? []).join('\n');
    const partErrors = (byFile.get('generated/misspelt/expenses-part.ts') ?? []).join('\n');
    expect(errors).toMatch(/expenses\.ts\(\d+,\d+\): error TS\d+: [^\n]*descripton/);
    expect(errors).toMatch(/expenses\.ts\(\d+,\d+\): error TS2339: Property 'identifier' does not exist/);
    // A multipart body's part names are the API's too: a misspelt file part is refused.
    expect(partErrors).toMatch(/expenses-part\.ts\(\d+,\d+\): error TS\d+: [^\n]*'reciept'/);
  });

  it.each(Object.keys(EXAMPLES))('call a running server of %s', async (name) => {
    const model = modelOf(EXAMPLES[name] ?? '');
    const folder = mkdtempSync(join(tmpdir(), 'ninepoint-typed-client-db-'));
    const server = await createServer({
      model,
      dbPath: join(folder, 'app.db'),
      logger: false,
      // The quotes' TypeScript is beside them.
      codeFolder: fileURLToPath(examples),
    });
    try {
      const url = await server.listen({ port: 0, host: '127.0.0.1' });
      const known = assignableRoles(model);
      const people: Record<string, { id: string; token: string }> = {};
      for (const [who, roles] of Object.entries(PEOPLE[name] ?? {})) {
        const email = `${who}@example.org`;
        const user = await addUser(server.auth, { email, name: who, roles, password: 'a long enough password' }, known);
        people[who] = { id: user.id, token: (await createApiToken(server.auth, email, 'typed client')).secret };
      }
      // Not a literal import: the repository's tsc must not follow it into generated/, which
      // exists only once beforeAll has run.
      const client = join(PACKAGE, 'clients', `${name}.ts`);
      const { walk } = (await import(client)) as { walk: (url: string, people: object) => Promise<Walked> };
      const walked = await walk(url, people);
      if ('health' in walked) {
        expect(walked).toEqual({
          health: { status: 'ok', database: 'sqlite' },
          me: { id: people.user?.id, email: 'user@example.org' },
          refused: { status: 401, code: 'SIGN_IN_FAILED' },
        });
        return;
      }
      expect(walked.got.id).toBe(walked.created.id);
      expect(walked.listed).toContain(walked.created.id);
      expect(walked).toMatchObject(WALKS[name] ?? {});
      // The expenses client uploads its receipt; a walk that lost the upload must not pass unseen.
      expect(walked.receipt !== undefined).toBe(name === 'expenses');
      if (walked.receipt) {
        // The file uploaded through the typed multipart create, downloaded back through the
        // app's own file URL by the same typed client: the same bytes, as an attachment.
        expect(walked.receipt.received).toEqual(walked.receipt.sent);
        expect(walked.receipt.sent.length).toBeGreaterThan(0);
        expect(walked.receipt.type).toBe('application/pdf');
        expect(walked.receipt.disposition).toMatch(/^attachment; filename="leeds\.pdf"/);
      }
    } finally {
      await server.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

type Walked =
  | { health: object; me: object; refused: object }
  | {
      created: { id: string; state: string | null };
      got: { id: string };
      listed: string[];
      moved: { state: string };
      refused: { status: number; code: string; field: string | null; fieldCode: string | null };
      receipt?: { sent: number[]; received: number[]; type: string | null; disposition: string | null };
    };

/** What each example's walk must see: the states before and after its transition, and its refusal. */
const WALKS: Record<string, object> = {
  expenses: {
    created: { state: 'draft' },
    moved: { state: 'submitted' },
    refused: { status: 422, code: 'OVER_LIMIT', field: 'amount', fieldCode: 'OVER_LIMIT' },
  },
  helpdesk: {
    created: { state: 'new' },
    moved: { state: 'assigned' },
    refused: { status: 422, code: 'URGENT_BY_PHONE', field: 'priority', fieldCode: 'URGENT_BY_PHONE' },
  },
  'lending-desk': {
    created: { state: 'out' },
    moved: { state: 'returned' },
    refused: { status: 422, code: 'DUE_BEFORE_LENT', field: 'due', fieldCode: 'DUE_BEFORE_LENT' },
  },
  quotes: {
    created: { state: 'draft' },
    moved: { state: 'sent' },
    refused: { status: 409, code: 'OUT_OF_STOCK', field: null, fieldCode: null },
  },
};
