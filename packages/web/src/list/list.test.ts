import { readFileSync } from 'node:fs';
import { checkSpec, type Model } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import type { Me } from '../api/session.ts';
import { screenAt, screenTitle, screenTitles } from '../app/screens.ts';
import { formatDate, formatDateTime, formatMessage, formatValue, recordTitle, titleField } from '../format.ts';
import { csvField, toCsv } from './csv.ts';
import { conditionFilter, operatorsFor } from './FilterBuilder.tsx';
import {
  apiQuery,
  filterFields,
  filterParams,
  fixedFields,
  fixedFilters,
  listColumns,
  machineOf,
  pageSizes,
  passesLocal,
  readListState,
  sortableNames,
  writeListState,
} from './query.ts';

const modelOf = (name: string): Model => {
  const { model, ok } = checkSpec(readFileSync(new URL(`../../../../examples/${name}`, import.meta.url), 'utf8'));
  if (!ok) throw new Error(`${name} has errors`);
  return model;
};
const lending = modelOf('lending-desk.md');
const expenses = modelOf('expenses.md');
const helpdesk = modelOf('helpdesk.md');
const entity = (model: Model, name: string) => {
  const found = model.entities.find((e) => e.name === name);
  if (!found) throw new Error(`no ${name}`);
  return found;
};
const screen = (model: Model, route: string) => {
  const found = model.screens.find((s) => s.route === route);
  if (!found) throw new Error(`no ${route}`);
  return found;
};
const ME = '01900000-0000-7000-8000-000000000001';
const me: Me = {
  user: { id: ME, email: 'ada@example.test', name: 'Ada', roles: ['staff'], createdAt: '2026-01-01T00:00:00.000Z' },
  access: {},
  people: null,
  signUp: [],
  singleSignOn: null,
  twoFactor: null,
};

describe('CSV', () => {
  it('quotes commas, quotes, line breaks and edge spaces, and doubles quotes', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a, b')).toBe('"a, b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField(' padded')).toBe('" padded"');
    expect(csvField(null)).toBe('');
    expect(csvField(12.5)).toBe('12.5');
    expect(csvField(false)).toBe('false');
  });

  it('never lets a spreadsheet run a text as a formula', () => {
    expect(csvField('=SUM(A1)')).toBe("'=SUM(A1)");
    expect(csvField('+1')).toBe("'+1");
    expect(csvField('@cmd')).toBe("'@cmd");
    expect(csvField('-1, really')).toBe(`"'-1, really"`);
    expect(csvField(-1)).toBe('-1');
  });

  it('writes a header and rows with CRLF', () => {
    expect(
      toCsv(
        ['a', 'b'],
        [
          [1, 'x'],
          [null, 'y,z'],
        ],
      ),
    ).toBe('a,b\r\n1,x\r\n,"y,z"\r\n');
  });
});

describe('list queries', () => {
  const loan = entity(lending, 'Loan');
  const machine = machineOf(lending, 'Loan');
  const filters = filterFields(loan, machine);
  const fixed = fixedFilters(screen(lending, '/my/loans'), loan, machine, me);
  const sizes = pageSizes(lending);
  const options = { sortable: sortableNames(loan, machine), filters, fixed, sizes };

  it('applies a screen’s where with the signed-in user for me', () => {
    expect(fixed).toEqual({ api: { borrower: ME }, local: [] });
    expect(fixedFilters(screen(lending, '/overdue'), loan, machine, me).api).toEqual({ state: 'overdue' });
  });

  it('asks the server to filter created_by = me like any field', () => {
    const expense = entity(expenses, 'Expense');
    const mine = fixedFilters(screen(expenses, '/my/expenses'), expense, machineOf(expenses, 'Expense'), me);
    expect(mine).toEqual({ api: { created_by: ME }, local: [] });
    expect(passesLocal({ id: 'y', created_by: 'someone' }, mine.local)).toBe(true);
  });

  it('reads the address, dropping what the API would refuse, and writes it back', () => {
    const params = new URLSearchParams(
      'sort=-due&q=dune&filter[state]=out&filter[renewals]=x&filter[borrower]=me&filter[nope]=1&size=24',
    );
    const state = readListState(params, options);
    expect(state).toEqual({
      sort: '-due',
      q: 'dune',
      filters: { state: { values: ['out'] } },
      groups: [],
      size: 24,
      columns: null,
    });
    expect(readListState(new URLSearchParams('sort=password'), options).sort).toBeNull();
    expect(writeListState(state, sizes.initial).toString()).toBe('q=dune&sort=-due&filter%5Bstate%5D=out');
  });

  it('reads and writes the operators of the filter builder and its or-groups', () => {
    const params = new URLSearchParams(
      'filter[state][not]=returned&filter[due][before]=2026-02-01&filter[due][empty]=false&' +
        'or[2][renewals][after]=1&or[2][state]=overdue&or[5][due][empty]=true&or[7][renewals][after]=x',
    );
    const state = readListState(params, options);
    expect(state.filters).toEqual({ state: { not: ['returned'] }, due: { before: '2026-02-01', empty: false } });
    // Numbered as they come; a group left with nothing the API would take is dropped.
    expect(state.groups).toEqual([
      { state: { values: ['overdue'] }, renewals: { after: '1' } },
      { due: { empty: true } },
    ]);
    const query = new URLSearchParams(apiQuery(state, fixed, { limit: 24 }, false));
    expect([...query].filter(([k]) => k.startsWith('or['))).toEqual([
      ['or[1][state]', 'overdue'],
      ['or[1][renewals][after]', '1'],
      ['or[2][due][empty]', 'true'],
    ]);
    expect(writeListState(state, sizes.initial).getAll('or[2][due][empty]')).toEqual(['true']);
  });

  it('asks the API with the fixed filters, the cursor and the count', () => {
    const state = { sort: 'due', q: '', filters: { state: { values: ['out'] } }, groups: [], size: 24, columns: null };
    const query = new URLSearchParams(apiQuery(state, fixed, { limit: 24, cursor: 'abc', count: true }, true));
    expect(Object.fromEntries(query)).toEqual({
      limit: '24',
      sort: 'due',
      'filter[state]': 'out',
      'filter[borrower]': ME,
      cursor: 'abc',
      count: 'true',
    });
  });

  it('offers page sizes up to MAX_PAGE_SIZE, with PAGE_SIZE among them', () => {
    expect(sizes.initial).toBe(24);
    expect(sizes.options).toEqual([10, 24, 25, 50, 100, 200]);
  });

  it('types the filters by field: choices by values, text by contains, numbers and moments by a range', () => {
    const ticket = entity(helpdesk, 'Ticket');
    const kinds = Object.fromEntries(filterFields(ticket, machineOf(helpdesk, 'Ticket')).map((f) => [f.name, f.kind]));
    expect(kinds).toMatchObject({
      state: 'choice',
      category: 'choice',
      reporter: 'reference',
      time_spent: 'decimal',
      description: 'text',
      started_at: 'datetime',
    });
  });

  it('lets the filter builder pick a reference’s record or person (is), as the Filters panel did, or none', () => {
    const ticket = entity(helpdesk, 'Ticket');
    const reporter = filterFields(ticket, machineOf(helpdesk, 'Ticket')).find((f) => f.name === 'reporter');
    if (!reporter) throw new Error('no reporter filter');
    expect(operatorsFor(reporter)).toEqual(['is', 'empty', 'notEmpty']);
    expect(conditionFilter('is', [ME])).toEqual({ values: [ME] });
    expect(filterParams('reporter', conditionFilter('is', [ME]))).toEqual([['filter[reporter]', ME]]);
  });

  it('round-trips several values, contains, ranges and columns through the address', () => {
    const book = entity(lending, 'Book');
    const books = {
      sortable: sortableNames(book, undefined),
      filters: filterFields(book, undefined),
      fixed: { api: {}, local: [] },
      sizes: pageSizes(lending),
      columns: ['title', 'author', 'copies', 'created_at'],
    };
    const loans = { ...options, filters: filterFields(loan, machine), fixed: { api: {}, local: [] } };
    const address =
      'filter[state]=out&filter[state]=overdue&filter[state]=gone&filter[due][from]=2026-01-01&filter[due][to]=2026-02-30' +
      '&filter[renewals][from]=1&filter[book]=nope&columns=due,password,book';
    const state = readListState(new URLSearchParams(address), { ...loans, columns: ['book', 'due', 'state'] });
    // An unknown state, an impossible day, a bad id and an unknown column are left out.
    expect(state.filters).toEqual({
      state: { values: ['out', 'overdue'] },
      due: { from: '2026-01-01' },
      renewals: { from: '1' },
    });
    expect(state.columns).toEqual(['due', 'book']);
    const written = writeListState(state, sizes.initial);
    expect([...written]).toEqual([
      ['filter[state]', 'out'],
      ['filter[state]', 'overdue'],
      ['filter[due][from]', '2026-01-01'],
      ['filter[renewals][from]', '1'],
      ['columns', 'due,book'],
    ]);
    expect(readListState(written, { ...loans, columns: ['book', 'due', 'state'] })).toEqual(state);

    const text = readListState(
      new URLSearchParams('filter[title][contains]=dune&filter[copies][to]=3&filter[copies][contains]=x&columns='),
      books,
    );
    // Contains is for text only; an empty columns list is the screen's own.
    expect(text.filters).toEqual({ title: { contains: 'dune' }, copies: { to: '3' } });
    expect(text.columns).toBeNull();
  });

  it('asks the API for several values, contains and ranges, the screen’s own filter winning', () => {
    const state = {
      sort: null,
      q: '',
      filters: {
        state: { values: ['out', 'overdue'] },
        due: { from: '2026-01-01', to: '2026-01-31' },
        borrower: { values: ['x'] },
      },
      groups: [],
      size: 24,
      columns: ['due'],
    };
    const query = new URLSearchParams(apiQuery(state, fixed, { limit: 24 }, false));
    expect([...query]).toEqual([
      ['limit', '24'],
      ['filter[state]', 'out'],
      ['filter[state]', 'overdue'],
      ['filter[due][from]', '2026-01-01'],
      ['filter[due][to]', '2026-01-31'],
      ['filter[borrower]', ME],
    ]);
  });

  it('leaves out of the columns what the screen’s where fixes, and long text', () => {
    const names = listColumns(loan, machine, screen(lending, '/my/loans'), titleField(loan)).map((c) => c.name);
    expect(names).toEqual(['state', 'book', 'lent_on', 'due', 'renewals', 'created_at']);
  });

  it('leaves out the reference a chain fixes when its further steps are unique (doctor.account = me)', () => {
    const clinic = checkSpec(
      readFileSync(new URL('../../../server/test/fixtures/clinic.md', import.meta.url), 'utf8'),
    ).model;
    const appointment = entity(clinic, 'Appointment');
    const columns = (route: string) =>
      listColumns(appointment, machineOf(clinic, 'Appointment'), screen(clinic, route), undefined, {
        model: clinic,
      }).map((c) => c.name);
    expect(columns('/my/appointments')).toEqual(['state', 'patient', 'starts_at', 'created_at']);
    expect(columns('/my/visits')).toEqual(['state', 'doctor', 'starts_at', 'created_at']);
    // A doctor's name is no one doctor's: the chain fixes nothing but itself.
    const byName = {
      ...screen(clinic, '/appointments'),
      filters: [{ field: 'doctor.name', value: { literal: 'Dr Who' } }],
    };
    expect(fixedFields(clinic, appointment, byName as never)).toEqual(new Set(['doctor.name']));
  });
});

describe('titles and formatting', () => {
  it('names list screens by their route, distinctly', () => {
    const titles = [...screenTitles(lending.screens, lending).values()];
    expect(titles).toEqual(expect.arrayContaining(['Home', 'Books', 'Loans', 'Overdue', 'My loans']));
    expect(screenTitle(screen(helpdesk, '/kb'), helpdesk)).toBe('KB');
    expect(screenTitle(screen(helpdesk, '/my/queue'), helpdesk)).toBe('My queue');
  });

  it('finds the screen of a path as the router ranks them', () => {
    expect(screenAt(lending, '/books/new')?.kind).toBe('form');
    expect(screenAt(lending, '/books/0190')?.kind).toBe('detail');
    expect(screenAt(lending, '/nowhere')).toBeUndefined();
  });

  it('names a record by its title field, else by entity and id', () => {
    expect(recordTitle(entity(lending, 'Book'), { id: '1', title: 'Dune' })).toBe('Dune');
    expect(recordTitle(entity(lending, 'Loan'), { id: '0190f3a2-aaaa' })).toBe('Loan 0190f3a2…');
  });

  it('formats values by type', () => {
    expect(formatValue({ kind: 'boolean' }, true)).toBe('Yes');
    expect(formatValue({ kind: 'text' }, null)).toBe('—');
    expect(formatValue({ kind: 'date' }, 'not a date')).toBe('not a date');
  });

  it('shows the ISO dates and moments a message was filled with as fields show them, and leaves the rest', () => {
    const moment = '2026-11-23T10:00:00.000Z';
    expect(formatMessage(`The problem cannot have started after now (${moment}).`)).toBe(
      `The problem cannot have started after now (${formatDateTime(moment)}).`,
    );
    expect(formatMessage('The due date must be after the day the book was lent (2026-03-14).')).toBe(
      `The due date must be after the day the book was lent (${formatDate('2026-03-14')}).`,
    );
    expect(formatMessage('Loan 0190f3a2-7a2b-7c3d-8e4f-000000000001 of 5 books')).toBe(
      'Loan 0190f3a2-7a2b-7c3d-8e4f-000000000001 of 5 books',
    );
  });
});
