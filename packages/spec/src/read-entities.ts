import { readFieldRules } from './field-rules.ts';
import { readFieldType } from './field-types.ts';
import type { Entity, Field } from './model.ts';
import {
  collectionName,
  ENTITY_NAME,
  FIELD_NAME,
  plain,
  RESERVED_COLLECTIONS,
  RESERVED_FIELD_NAMES,
  USER_ENTITY,
} from './names.ts';
import type { Section } from './parse-sections.ts';
import { docOf, NameSet, requiredCell, rowsOf, validName } from './read-helpers.ts';
import type { Scope } from './scope.ts';

const COLUMNS = [
  { key: 'field', names: ['field', 'name', 'fields'], required: true },
  { key: 'type', names: ['type', 'kind'], required: true },
  { key: 'rules', names: ['rules', 'rule', 'constraints', 'validation'] },
  { key: 'label', names: ['label', 'shown as'] },
];

/** The longest label a field may have: it heads a column and sits beside an input. */
export const MAX_LABEL_LENGTH = 40;

/**
 * Point 3: one `### Entity` per entity with a field table. Entity names are collected first so
 * fields may reference entities defined further down.
 */
export function readEntities(section: Section, scope: Scope): Entity[] {
  const { bag } = scope;
  for (const table of section.tables) {
    bag.report('misplaced-table', table.span, 'This table in point 3 is not under an entity heading.', {
      hint: 'Put a "### EntityName" heading (e.g. "### Book") right above each field table.',
    });
  }
  const names = new NameSet(bag, 'entity');
  // Two names with one plural (Person, People) would share a table and an API path.
  const collections = new NameSet(bag, 'entity collection (plural)');
  const entities: Entity[] = [];
  for (const sub of section.subsections) {
    const name = plain(sub.name);
    const cell = { text: name, span: sub.span };
    if (
      !validName(
        cell,
        ENTITY_NAME,
        bag,
        'entity',
        'Entity names are PascalCase words without spaces, e.g. Book or ExpenseReport',
      )
    )
      continue;
    if (name === USER_ENTITY) {
      bag.report('reserved-name', sub.span, 'User is the built-in entity of signed-in users and cannot be redefined.', {
        hint: 'Reference it from a field ("borrower | User"), or name your entity differently (e.g. Member).',
      });
      continue;
    }
    if (!names.add(cell)) continue;
    const collection = collectionName(name);
    if (RESERVED_COLLECTIONS.has(collection)) {
      bag.report(
        'reserved-name',
        sub.span,
        `${name}'s records would live at /api/${collection}, which Ninepoint itself serves.`,
        {
          hint: `Name the entity differently (e.g. ${name}Record).`,
        },
      );
      continue;
    }
    if (!collections.add({ text: name, span: sub.span }, collection)) continue;
    const entity: Entity = { name, fields: [], doc: sub.prose, span: sub.span };
    entities.push(entity);
    scope.entities.set(name, entity);
  }
  for (const entity of entities) {
    const sub = section.subsections.find((s) => s.span === entity.span);
    if (!sub) continue;
    const untyped: string[] = [];
    entity.fields = readFields(sub.tables, entity.name, scope, untyped);
    if (untyped.length > 0) entity.untyped = untyped;
  }
  return entities;
}

function readFields(tables: Section['tables'], entity: string, scope: Scope, untyped: string[]): Field[] {
  const { bag } = scope;
  // Case-insensitive: SQL column names ignore case, so dueDate and duedate would be one column.
  const names = new NameSet(bag, `field of ${entity}`);
  const fields: Field[] = [];
  const labels = new Map<string, string>();
  for (const row of rowsOf(tables, COLUMNS, bag, `${entity} fields`)) {
    const name = requiredCell(row, 'field', bag, `A field of ${entity}`);
    if (!name) continue;
    const where = `Field ${entity}.${name.text}`;
    const typeCell = requiredCell(row, 'type', bag, where);
    if (
      !validName(
        name,
        FIELD_NAME,
        bag,
        'field',
        'Field names start with a lowercase letter and use letters, digits and _, e.g. due_date',
      )
    )
      continue;
    if (RESERVED_FIELD_NAMES.has(name.text)) {
      bag.report('reserved-name', name.span, `"${name.text}" is reserved and cannot name a field.`, {
        hint: ['id', 'created_at', 'updated_at', 'created_by', 'state'].includes(name.text)
          ? `Every record already has ${name.text}; remove this row.`
          : `"${name.text}" means something in every expression; choose another name.`,
      });
      bag.reservedFields.add(`${entity}.${name.text}`);
      continue;
    }
    if (!names.add(name, name.text.toLowerCase())) continue;
    const type = typeCell ? readFieldType(typeCell, scope, where) : null;
    const rules = readFieldRules(row.cells.get('rules') ?? null, type, scope, `${entity}.${name.text}`);
    if (!type) {
      untyped.push(name.text);
      continue;
    }
    const label = readLabel(row.cells.get('label'), `${entity}.${name.text}`, labels, scope);
    fields.push({ name: name.text, type, ...rules, ...(label ? { label } : {}), doc: docOf(row), span: row.span });
  }
  return fields;
}

/**
 * A field's label from the `label` column: the words screens show for it ("ISBN", "Due date")
 * instead of its name made readable. A label that is too long to head a column, or that another
 * field of the entity already has (a form would show two inputs named alike), is reported
 * (`invalid-label`) and left out: the field's name is shown.
 */
function readLabel(
  cell: { text: string; span: Field['span'] } | undefined,
  field: string,
  seen: Map<string, string>,
  scope: Scope,
): string | null {
  const text = cell?.text.trim() ?? '';
  if (!cell || text === '') return null;
  if (text.length > MAX_LABEL_LENGTH) {
    scope.bag.report(
      'invalid-label',
      cell.span,
      `The label of ${field} is ${text.length} characters long; a label has at most ${MAX_LABEL_LENGTH}.`,
      { hint: 'Keep the label to a few words, and put the explanation in the meaning column.' },
    );
    return null;
  }
  const other = seen.get(text.toLowerCase());
  if (other !== undefined) {
    scope.bag.report('invalid-label', cell.span, `${field} and ${other} have the same label, "${text}".`, {
      hint: 'Give each field of an entity its own label: a form shows them side by side.',
    });
    return null;
  }
  seen.set(text.toLowerCase(), field);
  return text;
}
