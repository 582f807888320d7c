import { readFileSync } from 'node:fs';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_ONLY, TEST_DATABASES, type TestDatabase } from '../../test/databases.ts';
import { modelOf } from '../../test/helpers.ts';
import { userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';

const SPEC = readFileSync(new URL('../../test/fixtures/asset-register.md', import.meta.url), 'utf8');
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

type Json = Record<string, unknown>;
interface Answer {
  status: number;
  body: Json;
}

async function start(db: TestDatabase) {
  const temp = await db.fresh();
  const server: NinepointServer = await createServer({ model: modelOf(SPEC), ...temp.options, logger: false });
  const admin = (await userWithToken(server, ['admin'])).authorization;
  const clerk = (await userWithToken(server, ['clerk'])).authorization;
  const visitor = (await userWithToken(server, ['visitor'])).authorization;
  const send = async (
    authorization: string,
    url: string,
    payload: string | Buffer,
    contentType: string,
  ): Promise<Answer> => {
    const response = await server.app.inject({
      method: 'POST',
      url,
      headers: { authorization, 'content-type': contentType },
      payload,
    });
    return { status: response.statusCode, body: response.body === '' ? {} : (response.json() as Json) };
  };
  const csv = (text: string, as = admin, query = '') => send(as, `/api/assets/import${query}`, text, 'text/csv');
  const call = async (method: 'GET' | 'POST', url: string, body?: Json): Promise<Answer> => {
    const response = await server.app.inject({
      method,
      url,
      headers: { authorization: admin, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { payload: JSON.stringify(body) } : {}),
    });
    return { status: response.statusCode, body: response.json() as Json };
  };
  const assets = async () => (await call('GET', '/api/assets?limit=100')).body.items as Json[];
  const stop = async () => {
    await server.close();
    await temp.remove();
  };
  return { server, admin, clerk, visitor, send, csv, call, assets, stop };
}

// On PostgreSQL too: the import's rows are created in one transaction of the store's, each in a
// savepoint of its own there (a unique index's refusal aborts a PostgreSQL transaction, not a
// SQLite one), and limits are counted inside it under PostgreSQL's advisory locks.
describe.each(TEST_DATABASES)('importing rows on $name', (db) => {
  let app: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    app = await start(db);
    expect((await app.call('POST', '/api/rooms', { name: 'Attic', floor: 3 })).status).toBe(201);
    expect((await app.call('POST', '/api/rooms', { name: 'Hall', floor: 0 })).status).toBe(201);
  });
  afterAll(() => app.stop());

  it('imports nothing when any row is refused, and reports every refusal by row and column', async () => {
    const before = (await app.assets()).length;
    const answer = await app.csv(
      [
        'Asset tag,name,count,price',
        'A-001,Desk,2,120.50',
        'B-2,Chair,1,40',
        'A-003,Lamp,11,15',
        'A-001,Second desk,1,99',
        'A-005,Printer,6,300',
        'A-006,Shelf,3,-4',
      ].join('\n'),
    );
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({
      code: 'IMPORT_REFUSED',
      detail: '5 of 6 rows cannot be imported, so nothing was imported.',
    });
    const errors = answer.body.errors as Json[];
    expect(errors.map((e) => [e.row, e.column, e.code])).toEqual([
      [3, 'Asset tag', 'PATTERN_MISMATCH'],
      [4, 'count', 'OUT_OF_RANGE'],
      // The same tag as row 2's, found by the database's unique index inside the transaction.
      [5, 'Asset tag', 'NOT_UNIQUE'],
      // The creating transition's guard (count <= 5).
      [6, null, 'TRANSITION_NOT_ALLOWED'],
      [7, 'price', 'OUT_OF_RANGE'],
    ]);
    expect(errors[0]).toEqual({
      row: 3,
      column: 'Asset tag',
      field: 'tag',
      code: 'PATTERN_MISMATCH',
      message: 'tag is not in the expected format.',
    });
    expect((await app.assets()).length).toBe(before);
  });

  it('imports every row in one go when all pass, each with its history saying how', async () => {
    const answer = await app.csv('tag,Name,count,working\nA-101,Stapler,1,yes\nA-102,Whiteboard,,no\n');
    expect(answer).toEqual({
      status: 201,
      body: { dryRun: false, rows: 2, imported: 2, refused: 0, errors: [], more: 0 },
    });
    const all = await app.assets();
    const board = all.find((a) => a.tag === 'A-102');
    expect(board).toMatchObject({ name: 'Whiteboard', count: 1, working: false, state: 'in_use' });
    const history = await app.call('GET', `/api/assets/${String(board?.id)}/history`);
    expect(history.body.items).toEqual([expect.objectContaining({ action: 'create', how: 'import', to: 'in_use' })]);
    // A record made by a call has no `how`.
    const made = await app.call('POST', '/api/assets', { tag: 'A-103', name: 'Bin' });
    const madeHistory = await app.call('GET', `/api/assets/${String(made.body.id)}/history`);
    expect((madeHistory.body.items as Json[])[0]).not.toHaveProperty('how');
  });

  it('matches a reference by the referred record’s unique field or title, and says when none has it', async () => {
    const answer = await app.csv('tag,name,room\nA-201,Sofa,Attic\nA-202,Rug,cellar\n');
    expect(answer.status).toBe(422);
    expect(answer.body.errors).toEqual([
      {
        row: 3,
        column: 'room',
        field: 'room',
        code: 'UNKNOWN_REFERENCE',
        message: 'room: no Room has the id, name "cellar".',
      },
    ]);
    expect((await app.csv('tag,name,room\nA-201,Sofa,Attic\nA-202,Rug,Hall\n')).status).toBe(201);
    const rooms = (await app.call('GET', '/api/rooms')).body.items as Json[];
    const attic = rooms.find((r) => r.name === 'Attic');
    expect((await app.assets()).find((a) => a.tag === 'A-201')?.room).toBe(attic?.id);
  });

  it('refuses every row an import would take past a limit, counting the rows before it', async () => {
    // The Hall has one asset; it holds three.
    const answer = await app.csv(
      'tag,name,room\nA-301,Bench,Hall\nA-302,Plant,Hall\nA-303,Clock,Hall\nA-304,Mat,Hall\n',
    );
    expect(answer.status).toBe(422);
    expect((answer.body.errors as Json[]).map((e) => [e.row, e.code, e.message])).toEqual([
      [4, 'ROOM_FULL', 'A room holds at most 3 assets.'],
      [5, 'ROOM_FULL', 'A room holds at most 3 assets.'],
    ]);
    expect((await app.assets()).filter((a) => a.room !== null && String(a.tag).startsWith('A-30'))).toEqual([]);
  });

  it('refuses a column the caller’s roles may not set, on every row that gives it', async () => {
    const refused = await app.csv('tag,name,price\nA-401,Kettle,25\nA-402,Mug,\n', app.clerk);
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([
      { row: 2, column: 'price', field: 'price', code: 'FORBIDDEN', message: 'Your roles may not set price.' },
    ]);
    expect((await app.csv('tag,name\nA-401,Kettle\n', app.clerk)).status).toBe(201);
    const visitor = await app.csv('tag,name\nA-403,Tray\n', app.visitor);
    expect(visitor).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
  });
});

describe.each(SQLITE_ONLY)('import files on $name', (db) => {
  let app: Awaited<ReturnType<typeof start>>;
  let tags = 0;
  const tag = () => `A-${String(500 + ++tags)}`;
  beforeAll(async () => {
    app = await start(db);
  });
  afterAll(() => app.stop());

  /** The answer to a file, and that no asset was added by it when it was refused. */
  const refused = async (payload: string | Buffer, contentType = 'text/csv') => {
    const before = (await app.assets()).length;
    const answer = await app.send(app.admin, '/api/assets/import', payload, contentType);
    expect((await app.assets()).length).toBe(before);
    return answer;
  };

  it('checks a dry run as the import would, writing nothing', async () => {
    const answer = await app.csv(`tag,name\n${tag()},Fan\nbad,Heater\n`, app.admin, '?dryRun=true');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ dryRun: true, rows: 2, imported: 0, refused: 1 });
    const ok = await app.csv(`tag,name\n${tag()},Fan\n`, app.admin, '?dryRun=true');
    expect(ok.body).toMatchObject({ dryRun: true, rows: 1, imported: 0, refused: 0 });
    expect(await app.assets()).toEqual([]);
  });

  it('reads UTF-8 with or without a byte-order mark and UTF-16 in either order, and says what else it found', async () => {
    const text = `tag,name\n${tag()},Café crème\n`;
    expect((await app.send(app.admin, '/api/assets/import', `\uFEFF${text}`, 'text/csv')).status).toBe(201);
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`tag,name\n${tag()},Théière\n`, 'utf16le')]);
    expect((await app.send(app.admin, '/api/assets/import', utf16, 'text/csv')).status).toBe(201);
    const noMark = Buffer.from(`tag,name\n${tag()},Crêpière\n`, 'utf16le');
    expect((await app.send(app.admin, '/api/assets/import', noMark, 'text/csv')).status).toBe(201);
    expect((await app.assets()).map((a) => a.name)).toEqual(['Café crème', 'Théière', 'Crêpière']);
    const latin1 = await refused(Buffer.from(`tag,name\n${tag()},Caf\u00e9\n`, 'latin1'));
    expect(latin1.status).toBe(400);
    expect(latin1.body.code).toBe('IMPORT_UNREADABLE');
    expect(latin1.body.detail).toMatch(/not UTF-8 text: byte E9 .*Windows-1252 or ISO-8859-1/);
  });

  it('refuses what is not CSV or XLSX, whatever it is sent as', async () => {
    const pdf = await refused(Buffer.from('%PDF-1.7\n%\u00e2\u00e3\n1 0 obj\n'), 'text/csv');
    expect(pdf.body).toMatchObject({ status: 400, code: 'IMPORT_UNREADABLE' });
    expect(pdf.body.detail).toBe('The file cannot be imported: the file is a PDF document, not CSV or XLSX.');
    const plain = await refused('tag,name\n', 'text/plain');
    expect(plain.body).toMatchObject({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
    const json = await refused(JSON.stringify([{ tag: 'A-999' }]), 'application/json');
    expect(json.body).toMatchObject({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
    const zipAsCsv = await refused(await workbook([['tag', 'name']]), 'text/csv');
    expect(zipAsCsv.body.detail).toContain('sent as CSV but is an XLSX workbook');
  });

  it('refuses a header that names no field or one field twice, a row too long, a huge cell and a formula', async () => {
    const unknown = await refused('tag,name,colour\nA-900,Desk,red\n');
    expect(unknown.body.detail).toBe(
      'The file cannot be imported: the column "colour" matches no field of Asset ' +
        '(its fields: tag ("Asset tag"), name, room, price, count, working); rename it or leave it out.',
    );
    const twice = await refused('tag,Asset tag,name\nA-900,A-901,Desk\n');
    expect(twice.body.detail).toContain('the headers "tag" and "Asset tag" are both Asset.tag');
    const same = await refused('name,tag,name\nDesk,A-900,Desk\n');
    expect(same.body.detail).toContain('the header "name" appears twice');
    const wide = await refused('tag,name\nA-900,Desk\nA-901,Desk,extra\n');
    expect(wide.body.detail).toContain('row 3 has 3 cells but the header has 2 columns');
    const huge = await refused(`tag,name\nA-900,${'x'.repeat(10 * 1024 * 1024)}\n`);
    expect(huge.body.detail).toContain('row 2 is larger than 1 MiB');
    const formula = await refused('tag,name\nA-900,=HYPERLINK("http://example.org")\n');
    expect(formula.body.detail).toContain('cell B2 (name) holds a formula');
    // The export's guard: an apostrophe before what would be a formula keeps it text.
    expect((await app.csv(`tag,name\n${tag()},'=not a formula\n`)).status).toBe(201);
    expect((await app.assets()).some((a) => a.name === '=not a formula')).toBe(true);
  });

  it('imports an XLSX workbook as the body or as a form’s file, and never evaluates a formula in one', async () => {
    const rows = [
      ['Asset tag', 'name', 'count', 'working'],
      [tag(), 'Projector', 2, true],
    ];
    const body = await app.send(app.admin, '/api/assets/import', await workbook(rows), XLSX);
    expect(body).toMatchObject({ status: 201, body: { imported: 1 } });
    const form = multipartForm(
      'assets.xlsx',
      XLSX,
      await workbook([
        ['tag', 'name'],
        [tag(), 'Screen'],
      ]),
    );
    const formAnswer = await app.send(app.admin, '/api/assets/import', form.body, form.type);
    expect(formAnswer).toMatchObject({ status: 201, body: { imported: 1 } });
    const csvForm = multipartForm('assets.csv', 'text/csv', Buffer.from(`tag,name\n${tag()},Cable\n`));
    expect((await app.send(app.admin, '/api/assets/import', csvForm.body, csvForm.type)).status).toBe(201);
    const formula = await refused(
      await workbook([
        ['tag', 'name'],
        [tag(), { formula: 'CONCAT("a","b")', result: 'ab' }],
      ]),
      XLSX,
    );
    expect(formula.body.detail).toContain('cell B2 holds a formula (=CONCAT("a","b"))');
    const wrongPart = multipartForm('assets.csv', 'text/csv', Buffer.from('tag,name\n'), 'upload');
    const noFile = await refused(wrongPart.body, wrongPart.type);
    expect(noFile.body).toMatchObject({ status: 400, code: 'INVALID_PAYLOAD' });
  });
});

describe.each(SQLITE_ONLY)('the import wizard’s calls on $name', (db) => {
  let app: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    app = await start(db);
  });
  afterAll(() => app.stop());

  it('previews a file: what each header matches and the first rows, checking none and writing nothing', async () => {
    const rows = Array.from({ length: 12 }, (_, i) => `A-${String(700 + i)},Chair ${i},red`).join('\n');
    const form = multipartForm('assets.csv', 'text/csv', Buffer.from(`Asset tag,Name,Colour\n${rows}\n`));
    const answer = await app.send(app.clerk, '/api/assets/import/preview', form.body, form.type);
    expect(answer.status).toBe(200);
    expect(answer.body.columns).toEqual([
      { header: 'Asset tag', field: 'tag' },
      { header: 'Name', field: 'name' },
      { header: 'Colour', field: null },
    ]);
    expect(answer.body.total).toBe(12);
    expect(answer.body.rows).toHaveLength(10);
    expect((answer.body.rows as Json[])[0]).toEqual({ row: 2, cells: ['A-700', 'Chair 0', 'red'] });
    expect(await app.assets()).toEqual([]);
    const visitor = await app.send(app.visitor, '/api/assets/import/preview', form.body, form.type);
    expect(visitor.status).toBe(403);
  });

  it('takes the columns a form’s mapping chooses, leaving out those it maps to nothing', async () => {
    const csv = Buffer.from('Code,Label,Colour\nA-801,Stool,red\nbad,Bench,blue\n');
    const mapping = JSON.stringify({ Code: 'tag', Label: 'name', Colour: '' });
    const dry = multipartForm('assets.csv', 'text/csv', csv, 'file', { mapping });
    const checked = await app.send(app.clerk, '/api/assets/import?dryRun=true', dry.body, dry.type);
    expect(checked.body).toMatchObject({ dryRun: true, rows: 2, refused: 1 });
    expect((checked.body.errors as Json[]).map((e) => [e.row, e.column, e.code])).toEqual([
      [3, 'Code', 'PATTERN_MISMATCH'],
    ]);
    const fixed = multipartForm('assets.csv', 'text/csv', Buffer.from('Code,Label,Colour\nA-801,Stool,red\n'), 'file', {
      mapping,
    });
    expect((await app.send(app.clerk, '/api/assets/import', fixed.body, fixed.type)).status).toBe(201);
    expect((await app.assets()).map((a) => a.name)).toEqual(['Stool']);
    const broken = multipartForm('assets.csv', 'text/csv', csv, 'file', { mapping: '["tag"]' });
    expect((await app.send(app.clerk, '/api/assets/import', broken.body, broken.type)).body).toMatchObject({
      code: 'INVALID_PAYLOAD',
    });
  });
});

/** An XLSX workbook of one sheet holding these rows. */
async function workbook(rows: unknown[][]): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('Assets');
  for (const row of rows) sheet.addRow(row);
  return Buffer.from(await book.xlsx.writeBuffer());
}

/** A multipart form with text fields, then one file part. */
function multipartForm(
  filename: string,
  type: string,
  content: Buffer,
  name = 'file',
  fields: Record<string, string> = {},
) {
  const boundary = '----ninepoint-test-boundary';
  const texts = Object.entries(fields)
    .map(([key, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${key}"\r\n\r\n${value}\r\n`)
    .join('');
  const head = Buffer.from(
    texts +
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { body: Buffer.concat([head, content, tail]), type: `multipart/form-data; boundary=${boundary}` };
}
