import { CHOICE_COLOURS, type ChoiceColour, choiceColour } from './choice-colours.ts';
import { DEFAULT_IMAGE_KINDS, FILE_DEFAULT_MAX_BYTES, FILE_MAX_COUNT } from './file-formats.ts';
import type { FieldType } from './model.ts';
import { ENTITY_NAME, USER_ENTITY } from './names.ts';
import { type Cell, cellPart, splitList } from './parse-tables.ts';
import type { Scope } from './scope.ts';
import { suggest } from './suggest.ts';

const SIMPLE_TYPES: Record<string, FieldType> = {
  text: { kind: 'text' },
  string: { kind: 'text' },
  'long text': { kind: 'longText' },
  longtext: { kind: 'longText' },
  integer: { kind: 'integer' },
  int: { kind: 'integer' },
  decimal: { kind: 'decimal', scale: null },
  boolean: { kind: 'boolean' },
  bool: { kind: 'boolean' },
  date: { kind: 'date' },
  datetime: { kind: 'datetime' },
  'date and time': { kind: 'datetime' },
  email: { kind: 'email' },
  url: { kind: 'url' },
};

/** The type words a spec may write, as an unknown type's hint lists them. */
const TYPE_WORDS = [
  'text',
  'long text',
  'integer',
  'decimal',
  'boolean',
  'date',
  'datetime',
  'email',
  'url',
  'choice of',
  'file',
  'files',
  'image',
  'images',
];
/** `file`, `images`, `files, at most 5` (several, at most 5; `file, at most 5` reads the same). */
const FILE_TYPE = /^(file|image)(s?)(?:\s*,\s*(?:at most|up to|max)\s+(\d+)(?:\s+(?:files|images))?)?$/;
/** `high (red)`: a value, then in parentheses the colour declared for it. */
const DECLARED_COLOUR = /^(.*?\S)(\s*)\(\s*([^()]*?)\s*\)$/;
const CHOICE_VALUE = /^[A-Za-z0-9][A-Za-z0-9 _.-]*$/;

/** Reads a field's type cell. Reports and returns null when it is not a type. */
export function readFieldType(cell: Cell, scope: Scope, where: string): FieldType | null {
  const text = cell.text.trim();
  // An entity's exact name wins over a type word, so an entity may be called Int or Date.
  if (scope.entities.has(text)) return { kind: 'reference', entity: text };
  const lower = text.toLowerCase().replace(/\s+/g, ' ');
  const simple = SIMPLE_TYPES[lower];
  if (simple) return simple;
  const decimal = /^decimal\s*\(\s*(\d+)\s*\)$/.exec(lower);
  if (decimal) return { kind: 'decimal', scale: Number(decimal[1]) };
  const file = FILE_TYPE.exec(lower);
  if (file) return readFileType(cell, file, scope, where);
  const choice = /^(choice of|one of|choice:)\s*/i.exec(text);
  if (choice) return readChoice(cellPart(cell, choice[0].length, text.length - choice[0].length), scope);
  const reference = /^(?:reference to |ref to |→ ?)?([A-Za-z][A-Za-z0-9]*)$/.exec(text);
  if (reference?.[1] && ENTITY_NAME.test(reference[1])) {
    const name = reference[1];
    const part = cellPart(cell, text.length - name.length, name.length);
    if (name === USER_ENTITY || scope.entity(part, where, true) !== undefined)
      return { kind: 'reference', entity: name };
    return null;
  }
  scope.bag.report('unknown-type', cell.span, `${where} has type "${text}", which is not a field type.`, {
    expected: suggest(lower, TYPE_WORDS),
    hint: `Types are ${TYPE_WORDS.join(', ')} (e.g. "choice of low, high", "files, at most 5"), or an entity name for a reference.`,
  });
  return null;
}

function readFileType(cell: Cell, match: RegExpExecArray, scope: Scope, where: string): FieldType | null {
  const image = match[1] === 'image';
  const count = match[3] === undefined ? null : Number(match[3]);
  if (count !== null && (count < 1 || count > FILE_MAX_COUNT)) {
    scope.bag.report(
      'invalid-file-limit',
      cell.span,
      `${where} may hold ${count} files, which is not 1..${FILE_MAX_COUNT}.`,
      {
        hint: `Write e.g. "${match[1]}s, at most 5" (1 to ${FILE_MAX_COUNT} files), or "${match[1]}" for one.`,
      },
    );
    return null;
  }
  const several = match[2] === 's' || (count !== null && count > 1);
  return {
    kind: 'file',
    image,
    maxFiles: several ? (count ?? FILE_MAX_COUNT) : 1,
    maxBytes: FILE_DEFAULT_MAX_BYTES,
    kinds: image ? DEFAULT_IMAGE_KINDS : [],
  };
}

function readChoice(cell: Cell, scope: Scope): FieldType | null {
  const values: string[] = [];
  const colours: Record<string, ChoiceColour> = {};
  for (const listed of splitList(cell, ',', { parentheses: true })) {
    // `high (red)`: the value, then the colour the spec declares for it.
    const declared = DECLARED_COLOUR.exec(listed.text);
    const item = declared ? cellPart(listed, 0, declared[1]?.length ?? 0) : listed;
    const value = item.text.replace(/^`|`$/g, '');
    if (!CHOICE_VALUE.test(value)) {
      scope.bag.report('unknown-type', item.span, `"${value}" is not a valid choice value.`, {
        hint: 'Choice values start with a letter or digit and use letters, digits, spaces, _ . or -.',
      });
      return null;
    }
    if (values.includes(value)) {
      scope.bag.report('duplicate-name', item.span, `The choice value "${value}" is listed twice.`);
      continue;
    }
    values.push(value);
    if (declared) {
      const word = declared[3] ?? '';
      const at = listed.text.lastIndexOf(word);
      const colour = choiceColour(word);
      if (colour) colours[value] = colour;
      else
        scope.bag.report(
          'unknown-colour',
          cellPart(listed, at, word.length).span,
          `"${word}" is not a colour a choice value may have.`,
          {
            expected: suggest(word.toLowerCase(), CHOICE_COLOURS),
            hint: `The colours are ${CHOICE_COLOURS.join(', ')}; without one, "${value}" takes its colour from its place in the list.`,
          },
        );
    }
  }
  if (values.length === 0) {
    scope.bag.report('unknown-type', cell.span, 'A choice needs at least one value.', {
      hint: 'Write e.g. "choice of low, normal, high".',
    });
    return null;
  }
  return Object.keys(colours).length > 0 ? { kind: 'choice', values, colours } : { kind: 'choice', values };
}
