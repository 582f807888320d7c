import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from '@ninepoint/server';
import { checkSpec } from '@ninepoint/spec';
import { beforeAll, describe, expect, it } from 'vitest';
import { piped, runIn, tempDir } from '../test-support.ts';

const SPEC = readFileSync(new URL('../../../server/test/fixtures/asset-register.md', import.meta.url), 'utf8');
const PASSWORD = 'correct horse battery staple';

describe('ninepoint import', () => {
  let dir: string;
  beforeAll(async () => {
    dir = tempDir({
      'spec.md': SPEC,
      'refused.csv': 'tag,name,count\nA-001,Desk,2\nA-002,Chair,12\nbad,Lamp,1\n',
      'good.csv': 'Asset tag,name,count\nA-001,Desk,2\nA-002,Chair,1\n',
      'priced.csv': 'tag,name,price\nA-003,Kettle,25\n',
      'notes.txt': '%PDF-1.7\n',
    });
    for (const [email, role] of [
      ['clerk@example.org', 'clerk'],
      ['visitor@example.org', 'visitor'],
    ] as const) {
      const added = await runIn(dir, ['users', 'add', email, 'spec.md', '--role', role, '--password-stdin'], {
        stdin: piped(`${PASSWORD}\n`),
      });
      expect(added.code).toBe(0);
    }
  });

  /** The assets in the folder's database, by tag, with how each was made. */
  const assets = async () => {
    const server = await createServer({
      model: checkSpec(SPEC).model,
      dbPath: join(dir, 'ninepoint.db'),
      logger: false,
    });
    try {
      const all = await server.store.records('Asset').list({
        sort: { column: 'tag', descending: false },
        filters: [],
        search: null,
        owner: null,
        after: null,
        limit: 100,
        count: false,
      });
      return Promise.all(
        all.records.map(async (r) => ({
          tag: r.tag,
          how: (await server.store.records('Asset').history(String(r.id)))[0]?.how,
        })),
      );
    } finally {
      await server.close();
    }
  };

  it('imports nothing when a row is refused, listing each refusal by row and column (exit 1)', async () => {
    const result = await runIn(dir, ['import', 'spec.md', 'Asset', 'refused.csv', '--as', 'clerk@example.org']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(
      'row  column  code              message\n' +
        '3    count   OUT_OF_RANGE      count must be between 1 and 10.\n' +
        '4    tag     PATTERN_MISMATCH  tag is not in the expected format.\n' +
        '2 of 3 rows of refused.csv cannot be imported, so nothing was imported.\n',
    );
    expect(await assets()).toEqual([]);
  });

  it('checks with --dry-run, then imports every row as the --as user, history saying how', async () => {
    const dry = await runIn(dir, ['import', 'spec.md', 'asset', 'good.csv', '--as', 'clerk@example.org', '--dry-run']);
    expect(dry).toMatchObject({ code: 0 });
    expect(dry.stdout).toBe(
      'Checked 2 rows of good.csv: every row would be imported as Asset records. Nothing was written (--dry-run).\n',
    );
    expect(await assets()).toEqual([]);
    const done = await runIn(dir, ['import', 'spec.md', 'Asset', 'good.csv', '--as', 'clerk@example.org']);
    expect(done.stdout).toBe('Imported 2 rows of good.csv as Asset records.\n');
    expect(await assets()).toEqual([
      { tag: 'A-001', how: 'import' },
      { tag: 'A-002', how: 'import' },
    ]);
  });

  it('draws a progress line on a terminal only, and clears it before the report', async () => {
    const result = await runIn(
      dir,
      ['import', 'spec.md', 'Asset', 'good.csv', '--as', 'clerk@example.org', '--dry-run'],
      { tty: true },
    );
    expect(result.stderr).toContain('Checking rows… 2');
    expect(result.stderr).toContain('Writing [##############################] 100% 2/2');
    expect(result.stderr.endsWith('\r\u001b[2K')).toBe(true);
  });

  it('refuses a column the user may not set, a user who may not create, and a file that is no table', async () => {
    const priced = await runIn(dir, [
      'import',
      'spec.md',
      'Asset',
      'priced.csv',
      '--as',
      'clerk@example.org',
      '--json',
    ]);
    expect(priced.code).toBe(1);
    expect(JSON.parse(priced.stdout)).toMatchObject({
      refused: 1,
      errors: [{ row: 2, column: 'price', code: 'FORBIDDEN', message: 'Your roles may not set price.' }],
    });
    const visitor = await runIn(dir, ['import', 'spec.md', 'Asset', 'good.csv', '--as', 'visitor@example.org']);
    expect(visitor.code).toBe(1);
    expect(visitor.stderr).toContain(
      "error: visitor@example.org's roles (visitor) may not create Asset records. Nothing was imported.",
    );
    const pdf = await runIn(dir, ['import', 'spec.md', 'Asset', 'notes.txt', '--as', 'clerk@example.org']);
    expect(pdf.stderr).toContain('error: notes.txt cannot be imported: the file is a PDF document, not CSV or XLSX.');
    const nobody = await runIn(dir, ['import', 'spec.md', 'Asset', 'good.csv', '--as', 'nobody@example.org']);
    expect(nobody.stderr).toContain('error: no user has the email nobody@example.org');
    const unknown = await runIn(dir, ['import', 'spec.md', 'Chair', 'good.csv', '--as', 'clerk@example.org']);
    expect(unknown).toMatchObject({ code: 2 });
    expect(unknown.stderr).toContain('Chair is not an entity of the spec; its entities are Room, Asset.');
    expect(await assets()).toHaveLength(2);
  });
});
