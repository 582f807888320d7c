import type { Entity, Field } from '@ninepoint/spec';
import { TableError } from './read-table.ts';

/** A header cell matched to a field. */
export interface Column {
  /** Its place in the row, from 0. */
  index: number;
  /** As the header writes it. */
  header: string;
  field: Field;
}

/** A header cell as names are compared: lower case, with spaces, `-` and `_` alike. */
export function headerKey(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, ' ');
}

/** What a header cell could mean: a field's name or its label, compared as `headerKey` does. */
export function fieldFor(entity: Entity, header: string): Field | undefined {
  const key = headerKey(header);
  return entity.fields.find((f) => headerKey(f.name) === key || (f.label !== undefined && headerKey(f.label) === key));
}

/**
 * The header row matched to the entity's fields, by name or label. A header that matches no field,
 * or two headers of one field, is a `TableError` naming them (with the fields it could mean); an
 * empty header cell over an empty column is ignored. `mapping` (column header → field name, or ''
 * to leave the column out) is the caller's own choice, over what the headers match by themselves
 * (the web app's wizard).
 */
export function matchColumns(
  entity: Entity,
  header: readonly string[],
  mapping: Readonly<Record<string, string>> = {},
): Column[] {
  const columns: Column[] = [];
  const unknown: string[] = [];
  const byField = new Map<string, string>();
  header.forEach((text, index) => {
    if (text.trim() === '') return;
    const chosen = Object.hasOwn(mapping, text) ? mapping[text] : undefined;
    if (chosen === '') return;
    const field = chosen !== undefined ? entity.fields.find((f) => f.name === chosen) : fieldFor(entity, text);
    if (!field) {
      unknown.push(text);
      return;
    }
    const other = byField.get(field.name);
    if (other !== undefined) {
      throw new TableError(
        other === text
          ? `the header "${text}" appears twice: each field may be one column only`
          : `the headers "${other}" and "${text}" are both ${entity.name}.${field.name}: each field may be one column only`,
      );
    }
    byField.set(field.name, text);
    columns.push({ index, header: text, field });
  });
  if (unknown.length > 0) {
    const names = entity.fields.map((f) => (f.label ? `${f.name} ("${f.label}")` : f.name)).join(', ');
    const quoted = unknown.map((u) => `"${u}"`).join(', ');
    throw new TableError(
      `${unknown.length === 1 ? 'the column' : 'the columns'} ${quoted} ${unknown.length === 1 ? 'matches' : 'match'} no field of ${entity.name} ` +
        `(its fields: ${names}); rename ${unknown.length === 1 ? 'it' : 'them'} or leave ${unknown.length === 1 ? 'it' : 'them'} out`,
    );
  }
  if (columns.length === 0) throw new TableError(`the header row names no field of ${entity.name}`);
  return columns;
}

/** A header cell as the wizard shows it: the field it matches by itself, if any. */
export interface HeaderMatch {
  header: string;
  field: string | null;
}

/** What each header cell matches by itself (name or label), for the caller to confirm or choose. */
export function headerMatches(entity: Entity, header: readonly string[]): HeaderMatch[] {
  return header.map((text) => ({
    header: text,
    field: text.trim() === '' ? null : (fieldFor(entity, text)?.name ?? null),
  }));
}
