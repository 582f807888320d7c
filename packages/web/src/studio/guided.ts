import { type ChoiceColour, FILE_FORMATS, type Model, offsetAt, type PointKey } from '@ninepoint/spec';

/**
 * The Studio's guided forms: a field, a state, a transition or a role written as a row of the
 * Markdown table it belongs in, right after the table's last row, in the table's own columns and
 * padded to their widths, so the text reads as if typed by hand. What a row says is checked by
 * the checker like any typed text; these functions only decide where and how it is written.
 */

/** An insertion into the spec's text: `insert` at the 0-based offset `at`; `line` is the new row's 1-based line. */
export interface RowInsert {
  at: number;
  insert: string;
  line: number;
}

/** The cells of a table row (without the outer pipes), untrimmed; a `\|` stays inside its cell. */
export function cells(line: string): string[] {
  const inner = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  return inner.split(/(?<!\\)\|/);
}

export const isTableLine = (line: string) => line.trim().startsWith('|');

/**
 * A row written after the table row at 1-based `afterLine`, its cells placed by the table's
 * header (`values` keyed by header words, lower case: `field`, `type`, `rules`, `meaning`) and
 * padded to the header's widths. Null when that line is not in a table, or the table has no
 * column for a value given.
 */
export function rowAfter(source: string, afterLine: number, values: Record<string, string>): RowInsert | null {
  const lines = source.split('\n');
  let last = afterLine - 1;
  if (!isTableLine(lines[last] ?? '')) return null;
  // The table's last row: the new row goes below every row, not between two.
  while (last + 1 < lines.length && isTableLine(lines[last + 1] ?? '')) last++;
  let first = afterLine - 1;
  while (first > 0 && isTableLine(lines[first - 1] ?? '')) first--;
  const headerLine = lines[first] ?? '';
  const header = cells(headerLine).map((c) => c.trim().toLowerCase().replace(/`/g, ''));
  const widths = cells(headerLine).map((c) => Math.max(c.length - 2, 1));
  for (const key of Object.keys(values)) if (values[key] !== '' && !header.includes(key)) return null;
  const row = `| ${header.map((name, i) => cellText(values[name] ?? '').padEnd(widths[i] ?? 1)).join(' | ')} |`;
  const eol = lines[last]?.endsWith('\r') ? '\r' : '';
  const at = (offsetAt(source, last + 1, 1) ?? source.length) + (lines[last]?.length ?? 0);
  return { at, insert: `\n${row}${eol}`, line: last + 2 };
}

/** A cell's text never ends the cell early: a `|` in it is written `\|`. */
function cellText(text: string): string {
  return text.replace(/\r?\n/g, ' ').replace(/(?<!\\)\|/g, '\\|');
}

// ---------------------------------------------------------------------------------------------
// Fields

/** The types the field form offers, as the spec writes them (`choice` and `reference` take more). */
export const FIELD_TYPES = [
  { value: 'text', label: 'Text, one line' },
  { value: 'long text', label: 'Long text' },
  { value: 'integer', label: 'Whole number' },
  { value: 'decimal', label: 'Decimal number' },
  { value: 'boolean', label: 'Yes or no' },
  { value: 'date', label: 'Date' },
  { value: 'datetime', label: 'Date and time' },
  { value: 'email', label: 'Email address' },
  { value: 'url', label: 'Web address' },
  { value: 'choice', label: 'Choice of values' },
  { value: 'reference', label: 'Another record, or a user' },
  { value: 'file', label: 'File' },
  { value: 'files', label: 'Files, several' },
  { value: 'image', label: 'Image' },
  { value: 'images', label: 'Images, several' },
] as const;

export type FieldTypeChoice = (typeof FIELD_TYPES)[number]['value'];

export interface FieldForm {
  name: string;
  type: FieldTypeChoice;
  required: boolean;
  /** `choice`: the values, comma-separated (a value may carry its colour typed: `high (red)`). */
  values: string;
  /** `choice`: the colour picked for a value, by the value's name (null: none); a value not here keeps what is typed. */
  colours: Readonly<Record<string, ChoiceColour | null>>;
  /** `reference`: the entity (or `User`). */
  entity: string;
  /** File types: the largest file in MB (0: the default). */
  maxMegabytes: number;
  /** File types: the kinds accepted (empty: any file; an image field's raster kinds). */
  kinds: string[];
  /** `files` and `images`: how many at most (0: the default). */
  maxFiles: number;
  /** File types: photos keep their EXIF location (`keeps location`); stripped otherwise. */
  keepsLocation: boolean;
  meaning: string;
}

export const isFileType = (type: FieldTypeChoice) =>
  type === 'file' || type === 'files' || type === 'image' || type === 'images';

/** The kinds a file field may list, and those an image field may (raster images only). */
export function fileKinds(image: boolean): string[] {
  return Object.entries(FILE_FORMATS)
    .filter(([, format]) => !image || format.raster)
    .map(([kind]) => kind);
}

/** Whether the kinds chosen may carry a photo's location (none chosen: any kind, so they may). */
export function kindsCarryLocation(kinds: readonly string[]): boolean {
  return kinds.length === 0 || kinds.some((k) => FILE_FORMATS[k]?.exif === true);
}

/** A field name the spec takes: lower case, a letter first, words joined by `_`. */
export function fieldNameProblem(name: string, taken: readonly string[]): string | null {
  if (name === '') return 'Give the field a name.';
  if (!/^[a-z][a-z0-9_]*$/.test(name)) return 'Lower-case letters, digits and _ only, starting with a letter.';
  if (taken.includes(name)) return `The entity has a field "${name}" already.`;
  return null;
}

/**
 * The values a choice form lists, in order: each with the colour typed after it (`high (red)`),
 * if any. A colour word the palette does not know stays typed, for the checker to name
 * (`unknown-colour`) rather than be dropped.
 */
export function choiceValues(values: string): { name: string; typed: string | null }[] {
  return values
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '')
    .map((v) => {
      const coloured = /^(.*?)\s*\(([^()]*)\)$/.exec(v);
      return coloured ? { name: coloured[1] ?? v, typed: (coloured[2] ?? '').trim() } : { name: v, typed: null };
    });
}

/** The type cell: `choice of low (grey), high (red)`, `Book`, `files, at most 5`. */
export function fieldTypeText(form: FieldForm): string {
  switch (form.type) {
    case 'choice':
      return `choice of ${choiceValues(form.values)
        .map(({ name, typed }) => {
          // What the picker says (a colour, or null for none) wins over a colour typed.
          const picked = form.colours[name];
          const colour = picked === undefined ? typed : picked;
          return colour ? `${name} (${colour})` : name;
        })
        .join(', ')}`;
    case 'reference':
      return form.entity;
    case 'files':
    case 'images':
      return form.maxFiles > 0 ? `${form.type}, at most ${form.maxFiles}` : form.type;
    default:
      return form.type;
  }
}

/** The rules cell: `required, at most 10 MB, pdf, png`. */
export function fieldRulesText(form: FieldForm): string {
  const rules = form.required ? ['required'] : [];
  if (isFileType(form.type)) {
    if (form.maxMegabytes > 0) rules.push(`at most ${form.maxMegabytes} MB`);
    rules.push(...form.kinds);
    if (form.keepsLocation && kindsCarryLocation(form.kinds)) rules.push('keeps location');
  }
  return rules.join(', ');
}

/** Where a new field of `entity` goes: after its table's last row; null when it has no field table yet. */
export function fieldInsert(source: string, model: Model, entity: string, form: FieldForm): RowInsert | null {
  const found = model.entities.find((e) => e.name === entity);
  const last = Math.max(0, ...(found?.fields.map((f) => f.span.line) ?? []));
  if (last === 0) return null;
  return rowAfter(source, last, {
    field: form.name,
    type: fieldTypeText(form),
    rules: fieldRulesText(form),
    meaning: form.meaning.trim(),
  });
}

// ---------------------------------------------------------------------------------------------
// States, transitions, roles

/** Where a new state of `entity`'s machine goes: after the last row of its states table. */
export function stateInsert(
  source: string,
  model: Model,
  entity: string,
  form: { name: string; meaning: string },
): RowInsert | null {
  const machine = model.machines.find((m) => m.entity === entity);
  const lines = source.split('\n');
  // States named in a `state` table's first cell; a state only mentioned by a transition is not.
  const rows = (machine?.states ?? [])
    .map((s) => s.span.line)
    .filter((line) => cells(lines[line - 1] ?? '')[0]?.trim() !== undefined && isTableLine(lines[line - 1] ?? ''))
    .filter((line) => !(machine?.transitions ?? []).some((t) => t.span.line === line));
  const last = Math.max(0, ...rows);
  if (last === 0) return null;
  return rowAfter(source, last, { state: form.name.trim(), meaning: form.meaning.trim() });
}

export interface TransitionForm {
  name: string;
  from: string[];
  to: string;
  who: string[];
  when: string;
  meaning: string;
}

/** Where a new transition of `entity`'s machine goes: after the last row of its transitions table. */
export function transitionInsert(source: string, model: Model, entity: string, form: TransitionForm): RowInsert | null {
  const machine = model.machines.find((m) => m.entity === entity);
  const last = Math.max(0, ...(machine?.transitions.map((t) => t.span.line) ?? []));
  if (last === 0) return null;
  const values: Record<string, string> = {
    transition: form.name.trim(),
    from: form.from.join(', '),
    to: form.to,
    who: form.who.join(', '),
  };
  if (form.when.trim() !== '') values.when = form.when.trim();
  if (form.meaning.trim() !== '') values.meaning = form.meaning.trim();
  return rowAfter(source, last, values);
}

/**
 * Where a new role goes: after the roles table's last row, with what it may do with each
 * entity (`read`, `create, read own`) in that entity's column.
 */
export function roleInsert(
  source: string,
  model: Model,
  form: { name: string; meaning: string; grants: Record<string, string> },
): RowInsert | null {
  const last = Math.max(0, ...model.roles.map((r) => r.span.line));
  if (last === 0) return null;
  const values: Record<string, string> = { role: form.name.trim(), meaning: form.meaning.trim() };
  for (const [entity, grant] of Object.entries(form.grants)) {
    if (grant.trim() !== '') values[entity.toLowerCase()] = grant.trim();
  }
  return rowAfter(source, last, values);
}

// ---------------------------------------------------------------------------------------------
// The outline

export interface OutlineEntry {
  key: string;
  label: string;
  /** 1-based line of its heading; null for a point the spec does not have yet. */
  line: number | null;
  /** Entities under point 3, state machines under point 4. */
  children: { label: string; line: number }[];
  shown: boolean;
}

/** The nine points in order, where each begins, and the entities and machines under 3 and 4. */
export function outline(model: Model): OutlineEntry[] {
  return model.points.map((point) => {
    const under: Partial<Record<PointKey, { label: string; line: number }[]>> = {
      entities: model.entities.map((e) => ({ label: e.name, line: e.span.line })),
      states: model.machines.map((m) => ({ label: m.entity, line: m.span.line })),
    };
    return {
      key: point.key,
      label: `${point.number}. ${point.title}`,
      line: point.span?.line ?? null,
      children: (under[point.key] ?? []).filter((c) => c.line > 0),
      shown: point.shown,
    };
  });
}
