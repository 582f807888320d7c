import { readFileSync } from 'node:fs';
import { checkSpec } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import { cellAt, cellCompletions, entityNames } from './completions.ts';
import {
  choiceValues,
  type FieldForm,
  fieldInsert,
  fieldNameProblem,
  fieldTypeText,
  fileKinds,
  kindsCarryLocation,
  outline,
  type RowInsert,
  roleInsert,
  stateInsert,
  transitionInsert,
} from './guided.ts';

const LENDING_DESK = readFileSync(new URL('../../../../examples/lending-desk.md', import.meta.url), 'utf8');
const model = checkSpec(LENDING_DESK).model;

const apply = (source: string, row: RowInsert | null) => {
  if (!row) throw new Error('no place for the row');
  return source.slice(0, row.at) + row.insert + source.slice(row.at);
};
const lineOf = (source: string, n: number) => source.split('\n')[n - 1] ?? '';
const errors = (source: string) => checkSpec(source).diagnostics.filter((d) => d.severity === 'error');

const FIELD: FieldForm = {
  name: 'scan',
  type: 'file',
  required: false,
  values: '',
  colours: {},
  entity: '',
  maxMegabytes: 10,
  kinds: ['pdf', 'png'],
  maxFiles: 0,
  keepsLocation: false,
  meaning: 'the signed form',
};

describe('the guided forms write the Markdown a person would', () => {
  it('add a file field to an entity, with its limits, as the last row of its table padded to its columns', () => {
    const row = fieldInsert(LENDING_DESK, model, 'Loan', FIELD);
    const text = apply(LENDING_DESK, row);
    const line = lineOf(text, row?.line ?? 0);
    expect(line).toMatch(/^\| scan +\| file +\| at most 10 MB, pdf, png +\| the signed form +\|$/);
    // The row is as wide as the header above it.
    const header = text.split('\n').find((l) => l.startsWith('| field ') && text.indexOf(l) < (row?.at ?? 0));
    expect(errors(text)).toEqual([]);
    expect(
      checkSpec(text)
        .model.entities.find((e) => e.name === 'Loan')
        ?.fields.at(-1),
    ).toMatchObject({
      name: 'scan',
      type: { kind: 'file', maxBytes: 10 * 1024 * 1024, kinds: ['pdf', 'png'] },
    });
    expect(header).toBeDefined();
  });

  it('write several images with how many at most, and offer only raster kinds for images', () => {
    const form: FieldForm = { ...FIELD, name: 'photos', type: 'images', maxFiles: 3, kinds: ['jpeg'] };
    const text = apply(LENDING_DESK, fieldInsert(LENDING_DESK, model, 'Book', form));
    expect(errors(text)).toEqual([]);
    expect(
      checkSpec(text)
        .model.entities.find((e) => e.name === 'Book')
        ?.fields.at(-1)?.type,
    ).toMatchObject({
      kind: 'file',
      image: true,
      maxFiles: 3,
    });
    expect(fileKinds(true)).not.toContain('pdf');
    expect(fileKinds(false)).toContain('pdf');
  });

  it('write keeps location for photos that keep it, and never where the kinds carry none', () => {
    const form: FieldForm = { ...FIELD, name: 'site', type: 'image', kinds: ['jpeg'], keepsLocation: true };
    const row = fieldInsert(LENDING_DESK, model, 'Book', form);
    const text = apply(LENDING_DESK, row);
    expect(lineOf(text, row?.line ?? 0)).toMatch(/^\| site +\| image +\| at most 10 MB, jpeg, keeps location +\|/);
    expect(errors(text)).toEqual([]);
    expect(
      checkSpec(text)
        .model.entities.find((e) => e.name === 'Book')
        ?.fields.at(-1)?.type,
    ).toMatchObject({ kind: 'file', image: true, keepsLocation: true });
    // A PDF carries no location: the box is not offered, and a stale tick writes nothing.
    expect(kindsCarryLocation(['pdf'])).toBe(false);
    expect(kindsCarryLocation([])).toBe(true);
    const pdfOnly = apply(
      LENDING_DESK,
      fieldInsert(LENDING_DESK, model, 'Book', { ...FIELD, kinds: ['pdf'], keepsLocation: true }),
    );
    expect(errors(pdfOnly)).toEqual([]);
  });

  it('write a choice with the colours picked per value, which the checker reads back', () => {
    const form: FieldForm = {
      ...FIELD,
      name: 'condition',
      type: 'choice',
      kinds: [],
      maxMegabytes: 0,
      values: 'good, worn (gray), damaged',
      colours: { good: 'teal', damaged: 'red' },
      meaning: 'as last seen',
    };
    const row = fieldInsert(LENDING_DESK, model, 'Book', form);
    const text = apply(LENDING_DESK, row);
    expect(lineOf(text, row?.line ?? 0)).toMatch(
      /^\| condition +\| choice of good \(teal\), worn \(gray\), damaged \(red\) +\|/,
    );
    expect(errors(text)).toEqual([]);
    const type = checkSpec(text)
      .model.entities.find((e) => e.name === 'Book')
      ?.fields.at(-1)?.type;
    expect(type).toMatchObject({ kind: 'choice', values: ['good', 'worn', 'damaged'] });
    expect(type?.kind === 'choice' ? type.colours : null).toEqual({ good: 'teal', worn: 'grey', damaged: 'red' });
  });

  it('let the picker take a typed colour away, and leave a colour the palette lacks for the checker to name', () => {
    const form: FieldForm = { ...FIELD, type: 'choice', values: 'low (teal), high (crimson)', colours: {} };
    expect(fieldTypeText({ ...form, colours: { low: null } })).toBe('choice of low, high (crimson)');
    expect(fieldTypeText({ ...form, colours: { high: 'red' } })).toBe('choice of low (teal), high (red)');
    expect(choiceValues(form.values)).toEqual([
      { name: 'low', typed: 'teal' },
      { name: 'high', typed: 'crimson' },
    ]);
    const text = apply(LENDING_DESK, fieldInsert(LENDING_DESK, model, 'Book', { ...form, name: 'urgency' }));
    expect(errors(text)).toEqual([]);
    expect(checkSpec(text).diagnostics.map((d) => d.code)).toContain('unknown-colour');
  });

  it('add a state, a transition and a role that the checker reads back', () => {
    let text = apply(
      LENDING_DESK,
      stateInsert(LENDING_DESK, model, 'Loan', { name: 'damaged', meaning: 'back, but not fit to lend' }),
    );
    let checked = checkSpec(text);
    text = apply(
      text,
      transitionInsert(text, checked.model, 'Loan', {
        name: 'report damage',
        from: ['out'],
        to: 'damaged',
        who: ['staff'],
        when: '',
        meaning: 'the book came back torn',
      }),
    );
    checked = checkSpec(text);
    text = apply(
      text,
      roleInsert(text, checked.model, { name: 'volunteer', meaning: 'helps on Saturdays', grants: { Book: 'read' } }),
    );
    expect(errors(text)).toEqual([]);
    const after = checkSpec(text).model;
    const loan = after.machines.find((m) => m.entity === 'Loan');
    expect(loan?.states.map((s) => s.name)).toContain('damaged');
    expect(loan?.transitions.find((t) => t.name === 'report damage')).toMatchObject({
      from: ['out'],
      to: 'damaged',
      who: ['staff'],
    });
    expect(after.roles.map((r) => r.name)).toContain('volunteer');
    // The people column the form does not ask about is left empty: no say over accounts.
    expect(after.roles.find((r) => r.name === 'volunteer')?.people).toEqual({ invite: [], manage: false });
    expect(after.permissions.find((p) => p.role === 'volunteer' && p.entity === 'Book')).toBeDefined();
  });

  it('refuse a field name the spec would not take', () => {
    expect(fieldNameProblem('Pages', [])).toMatch(/Lower-case/);
    expect(fieldNameProblem('title', ['title'])).toMatch(/already/);
    expect(fieldNameProblem('pages', ['title'])).toBeNull();
  });

  it('outline the nine points with the entities and machines under them', () => {
    const points = outline(model);
    expect(points.map((p) => p.label.split('.')[0])).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9']);
    const entities = points.find((p) => p.key === 'entities');
    expect(entities?.children.map((c) => c.label)).toEqual(['Book', 'Loan']);
    expect(lineOf(LENDING_DESK, entities?.line ?? 0)).toMatch(/^## 3\./);
    expect(lineOf(LENDING_DESK, entities?.children[0]?.line ?? 0)).toMatch(/^### Book/);
  });
});

describe('completions in the field tables', () => {
  const at = (text: string, marker = '¦') => ({ text: text.replace(marker, ''), offset: text.indexOf(marker) });
  const TABLE = '### Claim\n\n| field | type | rules |\n| --- | --- | --- |\n';

  it('offer the types, file and image among them, and the entities, in the type column', () => {
    const { text, offset } = at(`${TABLE}| receipt | fi¦ | |\n`);
    const cell = cellAt(text, offset);
    expect(cell?.column).toBe('type');
    const labels = cellCompletions(cell ?? { column: '', row: {} }, entityNames(text)).map((c) => c.label);
    expect(labels).toEqual(expect.arrayContaining(['file', 'files', 'image', 'images, at most 5', 'Claim', 'User']));
  });

  it('offer a file field its size limit and kinds, an image field raster kinds only', () => {
    const file = at(`${TABLE}| receipt | file | at most 10 MB, p¦ |\n`);
    const fileLabels = cellCompletions(cellAt(file.text, file.offset) ?? { column: '', row: {} }, []).map(
      (c) => c.label,
    );
    expect(fileLabels).toEqual(expect.arrayContaining(['at most 10 MB', 'pdf', 'png']));
    const image = at(`${TABLE}| photo | images, at most 3 | j¦ |\n`);
    const imageLabels = cellCompletions(cellAt(image.text, image.offset) ?? { column: '', row: {} }, []).map(
      (c) => c.label,
    );
    expect(imageLabels).toContain('jpeg');
    expect(imageLabels).not.toContain('pdf');
  });

  it('offer nothing in a header, outside tables, or in a table without fields', () => {
    const header = at('| field | ty¦pe |\n| --- | --- |\n');
    expect(cellAt(header.text, header.offset)).toBeNull();
    const prose = at('Some te¦xt\n');
    expect(cellAt(prose.text, prose.offset)).toBeNull();
    const states = at('| state | meaning |\n| --- | --- |\n| o¦ut | |\n');
    expect(cellCompletions(cellAt(states.text, states.offset) ?? { column: '', row: {} }, [])).toEqual([]);
  });
});
