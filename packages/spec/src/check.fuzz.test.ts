/**
 * Property tests: whatever the input, `checkSpec` returns (quickly) a model and well-formed
 * diagnostics, and never throws.
 *
 * Reproducible by default (seed 42). Each property runs a fifth of its full count under `npm test`
 * and the full count under `npm run test:reliability` (RELIABILITY=full, the reliability project's
 * setting: e2e/reliability/scale.ts). `FUZZ_SEED=123` picks another seed; `FUZZ_RUNS=10` multiplies
 * every property's full number of runs instead (e.g. for a long soak: `FUZZ_RUNS=20 FUZZ_SEED=$RANDOM
 * npx vitest run packages/spec/src/check.fuzz.test.ts`). A failure prints the seed and path to replay it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HUGE_TABLE_SPECS, PATHOLOGICAL_SPECS, sketch } from '../test/hard-specs.ts';
import { blankSpec } from './blank-spec.ts';
import { type CheckResult, checkSpec, MAX_SPEC_BYTES } from './check.ts';
import { DIAGNOSTIC_CODES } from './diagnostic-codes.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 42);
const SCALE = Number(process.env.FUZZ_RUNS ?? (process.env.RELIABILITY === 'full' ? 1 : 0.2));
const runs = (n: number) => Math.max(1, Math.round(n * SCALE));
/**
 * A property stops after this long, reporting the (partly shrunk) counterexample if it has one:
 * shrinking an input that is slow to check re-checks many slow inputs. Passing runs finish far sooner.
 */
const PROPERTY_TIME_LIMIT_MS = 15_000 * Math.max(1, SCALE);
const options = (numRuns: number) => ({
  seed: SEED,
  numRuns: runs(numRuns),
  plugins: [fc.interruptAfterTimeLimit(PROPERTY_TIME_LIMIT_MS)],
});

/**
 * A hang guard, not a speed target: machines are shared and noisy, so a tight limit fails under
 * load. Exponential blow-ups pass it by orders of magnitude; how fast the huge and pathological
 * specs check is measured by `npm run bench -- check` (bench/check-spec.bench.ts).
 */
const TIME_LIMIT_MS = 15_000;

const seeds = [sketch, blankSpec()];

// ---------------------------------------------------------------------------------------------
// The invariants every outcome must satisfy
// ---------------------------------------------------------------------------------------------

const MODEL_LISTS = [
  'screens',
  'entities',
  'machines',
  'rules',
  'roles',
  'permissions',
  'calls',
  'errors',
  'constants',
] as const;

/** Words a message may only contain when the spec itself does: they betray a formatting bug. */
const LEAKS = ['undefined', 'NaN', '[object Object]'];

/**
 * Runs the checker and lists every broken invariant (empty when the outcome is well-formed).
 * With `withinLines`, also that each diagnostic starts and ends inside its own line (an editor
 * underlines exactly that text); checked by a property of its own so a cosmetic span slip does
 * not hide a crash or a hang from the main properties.
 */
function violations(source: string, withinLines = false): string[] {
  const start = performance.now();
  let result: CheckResult;
  try {
    result = checkSpec(source);
  } catch (error) {
    return [`checkSpec threw: ${(error as Error)?.stack ?? String(error)}`];
  }
  const elapsed = performance.now() - start;
  const problems: string[] = [];
  if (elapsed >= TIME_LIMIT_MS) problems.push(`took ${Math.round(elapsed)} ms (limit ${TIME_LIMIT_MS} ms)`);
  const { model, diagnostics, ok } = result;
  if (typeof model !== 'object' || model === null) return [...problems, 'no model'];
  if (model.points?.length !== 9) problems.push(`model has ${model.points?.length} points`);
  for (const key of MODEL_LISTS) if (!Array.isArray(model[key])) problems.push(`model.${key} is not a list`);
  if (!Array.isArray(diagnostics)) return [...problems, 'diagnostics is not a list'];
  if (ok !== !diagnostics.some((d) => d.severity === 'error')) problems.push(`ok is ${ok} but errors disagree`);

  const lines = source.split(/\r\n?|\n/);
  const lineLength = (line: number) => lines[line - 1]?.length ?? 0;
  const leaks = LEAKS.filter((word) => !source.includes(word));
  diagnostics.forEach((d, i) => {
    const where = `diagnostic ${i} (${d.code} at ${d.line}:${d.column}-${d.endLine}:${d.endColumn}: ${d.message})`;
    if (!Object.hasOwn(DIAGNOSTIC_CODES, d.code)) {
      problems.push(`${where}: unknown code`);
      return;
    }
    if (d.severity !== DIAGNOSTIC_CODES[d.code].severity) problems.push(`${where}: severity ${d.severity}`);
    const integers = [d.line, d.column, d.endLine, d.endColumn].every(Number.isInteger);
    if (!integers) problems.push(`${where}: position is not whole numbers`);
    if (d.line < 1 || d.line > lines.length + 1) problems.push(`${where}: line outside 1..${lines.length + 1}`);
    if (d.column < 1) problems.push(`${where}: column below 1`);
    if (d.endLine < d.line || d.endLine > lines.length + 1) problems.push(`${where}: end line out of order or range`);
    if (d.endLine === d.line && d.endColumn < d.column) problems.push(`${where}: ends before it starts`);
    if (withinLines && d.column > lineLength(d.line) + 1) problems.push(`${where}: starts beyond the end of its line`);
    if (withinLines && d.endColumn > lineLength(d.endLine) + 1) {
      problems.push(`${where}: ends beyond the end of its line`);
    }
    if (typeof d.message !== 'string' || d.message === '') problems.push(`${where}: no message`);
    for (const word of leaks) {
      if (`${d.message} ${d.hint}`.includes(word)) problems.push(`${where}: message or hint contains "${word}"`);
    }
    const next = diagnostics[i + 1];
    if (next && (next.line < d.line || (next.line === d.line && next.column < d.column))) {
      problems.push(`${where}: not sorted by position`);
    }
  });
  return problems;
}

/** A property body: the outcome for `source` breaks no invariant. */
function wellFormed(source: string): void {
  expect(violations(source)).toEqual([]);
}

/** A property body: as `wellFormed`, and every diagnostic lies inside its line. */
function wellPlaced(source: string): void {
  expect(violations(source, true)).toEqual([]);
}

// ---------------------------------------------------------------------------------------------
// Mutations of a valid spec, as plain data so a counterexample prints compactly
// ---------------------------------------------------------------------------------------------

/** Strings that are slow or deep for some parser when repeated: the units of a huge cell. */
const HUGE_UNITS = ['x', '(', ')', '[', '!', '-', '`', '|', '\\', '"', '{', '_', '*', 'a.', '1+', 'é', '😀', ' ', 'A'];

/** Characters with meaning somewhere in the format. */
const SYNTAX = ['|', '`', '\\', '\n', '\r', '#', ' ', '\t', '-', '(', ')', ':', '"', '{', '}', '.', ',', '*', '_'];

/** Tokens of the format, for near-valid noise. */
const TOKENS = [
  '# ',
  '## ',
  '### ',
  '\n',
  '\r\n',
  '|',
  ' | ',
  '|---|',
  '---',
  '`',
  '``',
  '(new)',
  'Not shown.',
  'is not shown',
  '1.',
  '2.',
  '3.',
  '4.',
  '5.',
  '6.',
  '7.',
  '8.',
  '9.',
  'Screens and routes',
  'Entities and their fields',
  'States and transitions',
  'Validation rules',
  'Roles and permissions',
  'The calls it makes',
  'The error catalogue',
  'Business constants and limits',
  'route',
  'screen',
  'shows',
  'who',
  'field',
  'type',
  'rules',
  'transition',
  'from',
  'to',
  'when',
  'sets',
  ' = ',
  '; ',
  'state',
  'rule',
  'applies to',
  'condition',
  'error',
  'role',
  'method',
  'path',
  'payload',
  'does',
  'code',
  'status',
  'message',
  'name',
  'value',
  'meaning',
  'Book',
  'Loan',
  'User',
  'title',
  'copies',
  'due',
  'borrower',
  'book',
  'out',
  'returned',
  'staff',
  'member',
  'anyone',
  'me',
  'where',
  ' = ',
  ' and ',
  'list',
  'detail',
  'form',
  'board',
  'home',
  '/books',
  '/:id',
  '/api/books',
  '/api/loans/:id/return',
  'GET',
  'POST',
  'PATCH',
  'text',
  'integer',
  'decimal(2)',
  'date',
  'choice of a, b',
  'required',
  'unique',
  'default ',
  'pattern ',
  '^[a-z]+$',
  '1..10',
  '..',
  'at most ',
  ' characters',
  'MAX_LOANS',
  'LOAN_LIMIT',
  'NOT_FOUND',
  '422',
  '{MAX_LOANS}',
  '{title}',
  'at most MAX_LOANS Loan in state out per borrower',
  'book.copies > 0',
  'now > due',
  '"x" in user.roles',
  'size(title) > 3',
  '&&',
  '||',
  '==',
  'create, read own',
  'all',
  '14 days',
  'true',
  'Loan: return',
  'list Book',
  'Loan.due',
];

type Mutation =
  | { kind: 'drop-cell'; row: number; cell: number }
  | { kind: 'copy-cell'; from: number; fromCell: number; row: number; cell: number }
  | { kind: 'huge-cell'; row: number; cell: number; unit: string; times: number; inside: boolean }
  | { kind: 'swap-names'; a: number; b: number }
  | { kind: 'insert'; at: number; text: string }
  | { kind: 'pipes'; at: number[] }
  | { kind: 'backticks'; row: number; cell: number; open: number; close: number }
  | { kind: 'duplicate-lines'; at: number; count: number; times: number }
  | { kind: 'delete-lines'; at: number; count: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'line-endings'; style: 'crlf' | 'cr' | 'mixed' };

const index = fc.nat({ max: 10_000 });

const insertion = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: fc.constantFrom(...SYNTAX), maxLength: 20 }),
  fc.array(fc.constantFrom(...TOKENS), { maxLength: 8 }).map((t) => t.join('')),
);

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('drop-cell'), row: index, cell: index }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('copy-cell'), from: index, fromCell: index, row: index, cell: index }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('huge-cell'),
      row: index,
      cell: index,
      unit: fc.constantFrom(...HUGE_UNITS),
      times: fc.integer({ min: 1_000, max: 100_000 }),
      inside: fc.boolean(),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('swap-names'), a: index, b: index }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('insert'), at: index, text: insertion }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('pipes'), at: fc.array(index, { minLength: 1, maxLength: 20 }) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('backticks'),
      row: index,
      cell: index,
      open: fc.nat({ max: 6 }),
      close: fc.nat({ max: 6 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('duplicate-lines'),
      at: index,
      count: fc.integer({ min: 1, max: 8 }),
      times: fc.integer({ min: 1, max: 200 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('delete-lines'), at: index, count: fc.integer({ min: 1, max: 10 }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('truncate'), at: index }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('line-endings'), style: fc.constantFrom('crlf', 'cr', 'mixed') }),
  },
) as fc.Arbitrary<Mutation>;

/** Table rows of the source: line numbers (0-based) of lines that start with a pipe. */
function tableRows(lines: string[]): number[] {
  return lines.flatMap((line, i) => (line.trimStart().startsWith('|') ? [i] : []));
}

/** Rewrites cell `cell` (modulo the row's cells) of table row `row` (modulo the rows). */
function editCell(source: string, row: number, cell: number, edit: (text: string) => string): string {
  const lines = source.split('\n');
  const rows = tableRows(lines);
  if (rows.length === 0) return source;
  const n = rows[row % rows.length] as number;
  const cells = (lines[n] as string).split('|');
  // Cells sit between the leading and trailing pipe.
  const inner = Math.max(1, cells.length - 2);
  const i = 1 + (cell % inner);
  cells[i] = edit(cells[i] ?? '');
  lines[n] = cells.join('|');
  return lines.join('\n');
}

function cellText(source: string, row: number, cell: number): string {
  let text = '';
  editCell(source, row, cell, (t) => {
    text = t;
    return t;
  });
  return text;
}

function mutate(source: string, m: Mutation): string {
  const at = (i: number) => i % (source.length + 1);
  switch (m.kind) {
    case 'drop-cell': {
      const lines = source.split('\n');
      const rows = tableRows(lines);
      if (rows.length === 0) return source;
      const n = rows[m.row % rows.length] as number;
      const cells = (lines[n] as string).split('|');
      cells.splice(1 + (m.cell % Math.max(1, cells.length - 2)), 1);
      lines[n] = cells.join('|');
      return lines.join('\n');
    }
    case 'copy-cell': {
      const text = cellText(source, m.from, m.fromCell);
      return editCell(source, m.row, m.cell, () => text);
    }
    case 'huge-cell':
      // Alone, or inside a word: some scanners treat a run at the edge of a cell differently.
      return editCell(source, m.row, m.cell, () =>
        m.inside ? ` a${m.unit.repeat(m.times)}b ` : ` ${m.unit.repeat(m.times)} `,
      );
    case 'swap-names': {
      const names = [...new Set(source.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? [])];
      const a = names[m.a % Math.max(1, names.length)];
      const b = names[m.b % Math.max(1, names.length)];
      if (!a || !b || a === b) return source;
      return source.replace(/[A-Za-z_][A-Za-z0-9_]*/g, (name) => (name === a ? b : name === b ? a : name));
    }
    case 'insert': {
      const i = at(m.at);
      return source.slice(0, i) + m.text + source.slice(i);
    }
    case 'pipes': {
      let out = source;
      for (const i of m.at) {
        const j = i % (out.length + 1);
        out = `${out.slice(0, j)}|${out.slice(j)}`;
      }
      return out;
    }
    case 'backticks':
      return editCell(source, m.row, m.cell, (t) => ` ${'`'.repeat(m.open)}${t.trim()}${'`'.repeat(m.close)} `);
    case 'duplicate-lines': {
      const lines = source.split('\n');
      const i = m.at % lines.length;
      const block = lines.slice(i, i + m.count);
      lines.splice(i, 0, ...Array.from({ length: m.times }, () => block).flat());
      return lines.join('\n');
    }
    case 'delete-lines': {
      const lines = source.split('\n');
      lines.splice(m.at % lines.length, m.count);
      return lines.join('\n');
    }
    case 'truncate':
      return source.slice(0, at(m.at));
    case 'line-endings':
      if (m.style === 'crlf') return source.replace(/\r?\n/g, '\r\n');
      if (m.style === 'cr') return source.replace(/\r?\n/g, '\r');
      return source.split('\n').reduce((out, line, i) => out + (i === 0 ? '' : ['\n', '\r\n', '\r'][i % 3]) + line, '');
  }
}

/** A seed spec and the mutations applied to it; a counterexample prints those, not the (maybe huge) source. */
const mutated = fc
  .record({ seed: fc.constantFrom(...seeds.keys()), mutations: fc.array(mutation, { minLength: 1, maxLength: 5 }) })
  .map(({ seed, mutations }) => ({
    source: mutations.reduce(mutateCapped, seeds[seed] as string),
    [fc.toStringMethod]: () => fc.stringify({ seed, mutations }),
  }));

/** Keeps repeated huge mutations from building strings far beyond what the checker refuses anyway. */
function mutateCapped(source: string, m: Mutation): string {
  const out = mutate(source, m);
  return out.length > 2 * MAX_SPEC_BYTES ? out.slice(0, 2 * MAX_SPEC_BYTES) : out;
}

// ---------------------------------------------------------------------------------------------
// Random documents
// ---------------------------------------------------------------------------------------------

/** Headings, tables and prose assembled from the format's own words: reaches the readers' corners. */
const cell = fc.oneof(
  { weight: 6, arbitrary: fc.array(fc.constantFrom(...TOKENS), { maxLength: 4 }).map((t) => t.join(' ')) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...SYNTAX), maxLength: 8 }) },
);
const tableBlock = fc
  .record({
    header: fc.array(cell, { minLength: 1, maxLength: 6 }),
    rows: fc.array(fc.array(cell, { maxLength: 7 }), { maxLength: 8, size: 'medium' }),
  })
  .map(({ header, rows }) =>
    [
      `| ${header.join(' | ')} |`,
      `|${header.map(() => '---').join('|')}|`,
      ...rows.map((r) => `| ${r.join(' | ')} |`),
    ].join('\n'),
  );
const headingBlock = fc
  .record({ depth: fc.integer({ min: 1, max: 4 }), text: cell, number: fc.option(fc.integer({ min: 0, max: 11 })) })
  .map(({ depth, text, number }) => `${'#'.repeat(depth)} ${number === null ? '' : `${number}. `}${text}`);
const structured = fc
  .array(fc.oneof(headingBlock, tableBlock, cell), { maxLength: 30, size: 'medium' })
  .map((blocks) => blocks.join('\n\n'));

const tokenSoup = fc
  .array(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...TOKENS) }, fc.string({ maxLength: 6 })), {
    maxLength: 400,
    size: 'large',
  })
  .map((t) => t.join(''));

// ---------------------------------------------------------------------------------------------

describe('checkSpec on mutated specs', () => {
  it('starts from seeds that check cleanly', () => {
    for (const seed of seeds) expect(checkSpec(seed).diagnostics).toEqual([]);
  });

  it('never throws or hangs, and reports only known codes at positions inside the source', () => {
    fc.assert(
      fc.property(mutated, ({ source }) => wellFormed(source)),
      options(2500),
    );
  });

  it('places a syntax error at the end of a guard inside its line, even without a closing pipe', () => {
    wellPlaced(
      sketch.replace('| lend | (new) | out | staff | book.copies > 0 |', () => '| lend | (new) | out | staff | book.'),
    );
  });

  it('places every diagnostic inside its own line', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          mutated,
          structured.map((source) => ({ source })),
        ),
        ({ source }) => wellPlaced(source),
      ),
      options(1000),
    );
  });

  it('gives the same result for the same source twice (no state leaks between checks)', () => {
    fc.assert(
      fc.property(mutated, ({ source }) => {
        const first = checkSpec(source);
        expect(JSON.stringify(checkSpec(source))).toBe(JSON.stringify(first));
      }),
      options(200),
    );
  });

  it.each(HUGE_TABLE_SPECS)('checks the sketch with 5,000 rows of %s without hanging', (_, build) => {
    const source = build();
    expect(source.length).toBeLessThan(MAX_SPEC_BYTES);
    wellFormed(source);
  });
});

describe('checkSpec on random documents', () => {
  it('survives arbitrary code points, including lone control characters', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 2000, size: 'large' }), wellFormed), options(1000));
  });

  it('survives arbitrary Unicode graphemes (combining marks, emoji, wide scripts)', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 500, size: 'large' }), wellFormed), options(500));
  });

  it('survives a soup of the format’s own tokens', () => {
    fc.assert(fc.property(tokenSoup, wellFormed), options(1000));
  });

  it('survives random headings, tables and prose built from the format’s words', () => {
    fc.assert(fc.property(structured, wellFormed), options(1000));
  });
});

describe('checkSpec on pathological inputs', () => {
  it.each(PATHOLOGICAL_SPECS)('handles %s without hanging', (_, build) => wellFormed(build()));

  // Names the expression library itself declares: a field so named must be reported, not crash the checker.
  const CEL_NAMES = ['type', 'string', 'list', 'map', 'int', 'uint', 'double', 'bool', 'bytes', 'optional', 'google'];
  it.each(CEL_NAMES)('checks a field named "%s" on an entity that has a guard without throwing', (name) => {
    wellFormed(sketch.replace('| due | date | required |', () => `| due | date | required |\n| ${name} | text | |`));
  });
});
