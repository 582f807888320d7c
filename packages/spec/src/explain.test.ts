import { describe, expect, it } from 'vitest';
import { explainModel } from './explain.ts';
import { type Field, type Model, POINTS, type Span } from './model.ts';

const at: Span = { line: 1, column: 1, endLine: 1, endColumn: 1, offset: 0 };

const TITLES = [
  'What the product does and for whom',
  'Screens and routes',
  'Entities and their fields',
  'States and transitions',
  'Validation rules',
  'Roles and permissions',
  'The calls it makes',
  'The error catalogue',
  'Business constants and limits',
];

function field(name: string, over: Partial<Field>): Field {
  return {
    name,
    type: { kind: 'text' },
    required: false,
    unique: false,
    default: null,
    min: null,
    max: null,
    minLength: null,
    maxLength: null,
    pattern: null,
    doc: '',
    span: at,
    ...over,
  };
}

function blankModel(): Model {
  return {
    version: 1,
    product: { name: 'New product', summary: '', audience: '', description: '', span: null },
    points: POINTS.map((key, i) => ({
      key,
      number: i + 1,
      title: TITLES[i] ?? '',
      shown: false,
      span: null,
      prose: '',
    })),
    screens: [],
    entities: [],
    machines: [],
    rules: [],
    roles: [],
    permissions: [],
    calls: [],
    notifications: [],
    webhooks: [],
    schedules: [],
    hooks: [],
    errors: [],
    constants: [],
  };
}

/** A small lending desk, built by hand so these tests do not depend on the parser. */
function lendingDesk(): Model {
  const model = blankModel();
  model.points = model.points.map((p) => ({ ...p, shown: p.key !== 'calls' }));
  model.product = {
    name: 'Lending desk',
    summary: 'Lets the staff of a small library lend books to members.',
    audience: 'Library staff and members.',
    description: '',
    span: at,
  };
  model.screens = [
    { route: '/', params: [], kind: 'home', entity: null, filters: [], who: ['anyone'], doc: '', span: at },
    {
      route: '/my/loans',
      params: [],
      kind: 'list',
      entity: 'Loan',
      filters: [
        { field: 'borrower', value: { me: true } },
        { field: 'state', value: { literal: 'out' } },
      ],
      who: ['member'],
      doc: 'What I have borrowed.',
      span: at,
    },
  ];
  model.entities = [
    {
      name: 'Book',
      doc: 'A title on the shelves.',
      span: at,
      fields: [
        field('title', {
          required: true,
          minLength: { value: 1, constant: null },
          maxLength: { value: 200, constant: null },
        }),
        field('isbn', { required: true, unique: true, pattern: '^97[89][0-9]{10}$' }),
        field('copies', {
          type: { kind: 'integer' },
          required: true,
          min: { value: 0, constant: null },
          max: { value: 50, constant: 'MAX_COPIES' },
          default: { literal: 1 },
        }),
        field('price', { type: { kind: 'decimal', scale: 2 }, min: { value: 0, constant: null } }),
        field('format', {
          type: { kind: 'choice', values: ['paper', 'hardback', 'audio'] },
          default: { literal: 'paper' },
        }),
      ],
    },
    {
      name: 'Loan',
      doc: '',
      span: at,
      fields: [
        field('book', { type: { kind: 'reference', entity: 'Book' }, required: true }),
        field('borrower', { type: { kind: 'reference', entity: 'User' }, required: true, default: { dynamic: 'me' } }),
        field('due', { type: { kind: 'date' }, required: true, doc: 'When it must be back.' }),
      ],
    },
  ];
  model.machines = [
    {
      entity: 'Loan',
      initial: 'out',
      states: ['out', 'overdue', 'returned'].map((name) => ({
        name,
        doc: name === 'out' ? 'With the member.' : '',
        span: at,
      })),
      doc: '',
      span: at,
      transitions: [
        {
          name: 'lend',
          slug: 'lend',
          from: [],
          to: 'out',
          creates: true,
          who: ['staff'],
          guard: 'book.copies > 0',
          error: null,
          doc: '',
          span: at,
          guardSpan: at,
        },
        {
          name: 'return',
          slug: 'return',
          from: ['out', 'overdue'],
          to: 'returned',
          creates: false,
          who: ['staff', 'member'],
          guard: null,
          error: null,
          sets: [{ field: 'returned_on', source: 'today', span: at, fieldSpan: at, sourceSpan: at }],
          doc: '',
          span: at,
          guardSpan: null,
        },
        {
          name: 'mark overdue',
          slug: 'mark-overdue',
          from: ['out'],
          to: 'overdue',
          creates: false,
          who: [],
          guard: 'now > due',
          error: 'FORBIDDEN',
          doc: '',
          span: at,
          guardSpan: at,
        },
      ],
    },
  ];
  model.rules = [
    {
      name: 'due in the future',
      appliesTo: { entity: 'Loan', field: 'due', transition: null },
      condition: { kind: 'expression', source: 'value > today' },
      error: 'DUE_IN_PAST',
      doc: '',
      span: at,
      conditionSpan: at,
    },
    {
      name: 'loan limit',
      appliesTo: { entity: 'Loan', field: null, transition: 'lend' },
      condition: {
        kind: 'limit',
        max: { value: 5, constant: 'MAX_LOANS' },
        entity: 'Loan',
        states: ['out', 'overdue'],
        per: ['borrower'],
        period: null,
      },
      error: 'LOAN_LIMIT',
      doc: '',
      span: at,
      conditionSpan: at,
    },
  ];
  model.roles = [
    {
      name: 'staff',
      doc: '',
      span: at,
      joins: { kind: 'invitation' },
      people: { invite: 'any', manage: true },
      twoFactor: false,
    },
    {
      name: 'member',
      doc: 'Anyone with a library card.',
      span: at,
      joins: { kind: 'sign-up', domains: ['library.example'] },
      people: { invite: ['member'], manage: false },
      twoFactor: false,
    },
    {
      name: 'anyone',
      doc: '',
      span: at,
      joins: { kind: 'invitation' },
      people: { invite: [], manage: false },
      twoFactor: false,
    },
  ];
  const none = {
    create: false,
    read: 'none',
    update: 'none',
    delete: 'none',
    createFields: null,
    updateFields: null,
    via: { read: null, update: null, delete: null },
    inStates: { read: null, update: null, delete: null },
    readFields: null,
  } as const;
  const every = {
    createFields: null,
    updateFields: null,
    readFields: null,
    via: { read: null, update: null, delete: null },
    inStates: { read: null, update: null, delete: null },
  };
  model.permissions = [
    { role: 'staff', entity: 'Book', create: true, read: 'all', update: 'all', delete: 'all', ...every, span: at },
    { role: 'staff', entity: 'Loan', create: true, read: 'all', update: 'all', delete: 'none', ...every, span: at },
    { role: 'member', entity: 'Book', ...none, read: 'all', span: at },
    { role: 'member', entity: 'Loan', ...none, read: 'own', update: 'own', readFields: ['book', 'due'], span: at },
    { role: 'anyone', entity: 'Book', ...none, span: at },
  ];
  model.errors = [
    { code: 'DUE_IN_PAST', status: 422, message: 'The due date must be in the future.', builtin: false, span: at },
  ];
  model.constants = [
    { name: 'MAX_LOANS', type: 'integer', value: 5, raw: '5', meaning: 'books a member may hold at once', span: at },
    { name: 'GRACE', type: 'duration', value: 172800, raw: '48 hours', meaning: '', span: at },
  ];
  return model;
}

describe('explainModel', () => {
  it('says that all nine points are not shown for the blank model, and what happens in their place', () => {
    const text = explainModel(blankModel());
    expect(text.startsWith('New product\n===========\nAll nine points are not shown')).toBe(true);
    expect(text.match(/: not shown; /g)).toHaveLength(9);
    expect(text).toContain(
      '6. Roles and permissions: not shown; there are no roles, so every signed-in user may do everything.',
    );
  });

  it('starts with the product name, how many points are shown, and point 1 as summary and audience', () => {
    const text = explainModel(lendingDesk());
    expect(text).toMatch(/^Lending desk\n=+\n8 of 9 points shown\.\n\n1\. What the product does and for whom\n/);
    expect(text).toContain(
      '  Lets the staff of a small library lend books to members.\n  For whom: Library staff and members.\n',
    );
    expect(text).toContain('7. The calls it makes: not shown; the conventional calls per entity are derived.');
  });

  it('describes screens with their filters and who may open them', () => {
    const text = explainModel(lendingDesk());
    expect(text).toContain('  /: home, open to anyone, signed in or not\n');
    expect(text).toContain(
      '  /my/loans: list of Loan where borrower = me (the signed-in user) and state = out, open to member\n    What I have borrowed.\n',
    );
  });

  it('describes each field with its type and rules in words', () => {
    const text = explainModel(lendingDesk());
    expect(text).toContain('  Book\n    A title on the shelves.\n');
    expect(text).toContain('    title: text, required, from 1 to 200 characters\n');
    expect(text).toContain(
      '    isbn: text, required, unique, at most 1000 characters (the default), matching the pattern ^97[89][0-9]{10}$\n',
    );
    expect(text).toContain('    copies: integer, required, from 0 to MAX_COPIES (50), default 1\n');
    expect(text).toContain('    price: decimal with at most 2 decimal places, optional, at least 0\n');
    expect(text).toContain('    format: one of paper, hardback or audio, optional, default paper\n');
    expect(text).toContain('    borrower: a signed-in user (User), required, default the acting user\n');
    expect(text).toContain('    due: date, required\n      When it must be back.\n');
  });

  it('describes state machines: initial state, states, and each transition with who, when and what it sets', () => {
    const text = explainModel(lendingDesk());
    expect(text).toContain('  Loan: starts in out; states out, overdue and returned\n    out: With the member.\n');
    expect(text).toContain('    lend: (new) → out, by staff, when book.copies > 0\n');
    expect(text).toContain('    return: out, overdue → returned, by staff or member; sets returned_on = today\n');
    expect(text).toContain(
      '    mark overdue: out → overdue, by any role that may update Loan, when now > due; otherwise FORBIDDEN\n',
    );
  });

  it('describes rules, expressions and cross-record limits alike, with the error they raise', () => {
    const text = explainModel(lendingDesk());
    expect(text).toContain('  due in the future (Loan.due): value > today; otherwise DUE_IN_PAST\n');
    expect(text).toContain(
      '  loan limit (Loan, when taking lend): at most MAX_LOANS (5) Loan in state out or overdue per borrower; otherwise LOAN_LIMIT\n',
    );
  });

  it('turns the permission matrix into sentences, with own records and roles that may do nothing', () => {
    const text = explainModel(lendingDesk());
    expect(text).toContain(
      "  staff may create, read, update and delete Book; create, read and update Loan; manages people's accounts and roles\n",
    );
    expect(text).toContain(
      '  member may read Book; read own (all but borrower) and update own Loan; people may sign up to it (emails at library.example only); may invite people as member\n    Anyone with a library card.\n',
    );
    expect(text).toContain('  anyone (signed-out visitors included) may do nothing\n');
  });

  it('lists error codes with their status, and constants with their value as written', () => {
    const text = explainModel(lendingDesk());
    expect(text).toContain('  DUE_IN_PAST (422): The due date must be in the future.\n');
    expect(text).toContain('  MAX_LOANS = 5 (integer): books a member may hold at once\n');
    expect(text).toContain('  GRACE = 48 hours (duration)\n');
  });

  it('describes calls with their action and payload', () => {
    const model = lendingDesk();
    model.points = model.points.map((p) => ({ ...p, shown: true }));
    model.calls = [
      {
        method: 'PATCH',
        path: '/api/books/:id',
        params: ['id'],
        action: { kind: 'update', entity: 'Book' },
        payload: { entity: 'Book', fields: ['title', 'copies'] },
        doc: '',
        derived: false,
        span: at,
      },
      {
        method: 'POST',
        path: '/api/loans/:id/mark-overdue',
        params: ['id'],
        action: { kind: 'transition', entity: 'Loan', transition: 'mark overdue' },
        payload: null,
        doc: '',
        derived: false,
        span: at,
      },
    ];
    const text = explainModel(model);
    expect(text).toContain('  PATCH /api/books/:id: update Book, payload Book (title, copies)\n');
    expect(text).toContain('  POST /api/loans/:id/mark-overdue: take "mark overdue" on a Loan\n');
  });

  it('ends with one newline and never a trailing space', () => {
    const text = explainModel(lendingDesk());
    expect(text.endsWith('\n')).toBe(true);
    expect(text.endsWith('\n\n')).toBe(false);
    expect(text).not.toMatch(/ $/m);
  });
});
