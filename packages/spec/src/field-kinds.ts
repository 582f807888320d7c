import type { FieldKind, FieldType } from './model.ts';
import { wordList } from './word-list.ts';

/**
 * What each field type is, in one table: the checker, the server and the browser look a kind's
 * meaning up here rather than listing kinds in chains, so a new kind is a compile error until it
 * has a row (and until every layer's own table has one: the server's `compile/field-kinds.ts`,
 * the web app's `fields/field-kinds.tsx`). See docs/architecture.md, "Adding a field type".
 */

/** The field type of one kind, e.g. `FieldTypeOf<'decimal'>` has its `scale`. */
export type FieldTypeOf<K extends FieldKind> = Extract<FieldType, { kind: K }>;

/**
 * What a kind's values are, which decides most of what is done with them: the checks a spec may
 * give (lengths for text, ranges for numbers), the list API's ranges (numbers and moments), a
 * dashboard's sums (numbers) and groups (choices and booleans), how a condition reads in words.
 */
export type ValueFamily = 'text' | 'number' | 'moment' | 'boolean' | 'choice' | 'reference';

/**
 * How the list API reads `filter[field]=…`: the text-like kinds share `text` (which also takes
 * `[contains]`); every other kind is filtered as itself.
 */
export type FilterKind = 'text' | 'choice' | 'integer' | 'decimal' | 'boolean' | 'date' | 'datetime' | 'reference';

/** The CEL type of a kind's values; `reference` is the referenced entity's message type (or dyn). */
export type CelKind = 'string' | 'int' | 'double' | 'bool' | 'timestamp' | 'reference';

export interface FieldKindFacts<K extends FieldKind> {
  family: ValueFamily;
  filter: FilterKind;
  cel: CelKind;
  /**
   * The longest value when the spec gives no length: beyond it an address could not be used
   * (RFC 5321's 254 for email), and a text is bounded so that no write can store a megabyte in a
   * name (`DEFAULT_TEXT_LENGTH`, `DEFAULT_LONG_TEXT_LENGTH`). Null for no limit of its own.
   */
  maxLength: number | null;
  /** The type as a spec writes it: `long text`, `decimal(2)`, `choice of low, high`, `Book`. */
  written(type: FieldTypeOf<K>): string;
  /** Its values in words, for INVALID_TYPE's `{type}`: the same in the server's answers and the browser's checks. */
  values(type: FieldTypeOf<K>): string;
  /** Its values as `ninepoint explain` describes a field. */
  explained(type: FieldTypeOf<K>): string;
}

/** The most characters a `text` field holds when its rules give no length (docs/spec-format.md, point 3). */
export const DEFAULT_TEXT_LENGTH = 1000;
/** The most characters a `long text` field holds when its rules give no length. */
export const DEFAULT_LONG_TEXT_LENGTH = 100_000;

const places = (scale: number) => `${scale} decimal place${scale === 1 ? '' : 's'}`;

export const FIELD_KINDS: { readonly [K in FieldKind]: FieldKindFacts<K> } = {
  text: {
    family: 'text',
    filter: 'text',
    cel: 'string',
    maxLength: DEFAULT_TEXT_LENGTH,
    written: () => 'text',
    values: () => 'text',
    explained: () => 'text',
  },
  longText: {
    family: 'text',
    filter: 'text',
    cel: 'string',
    maxLength: DEFAULT_LONG_TEXT_LENGTH,
    written: () => 'long text',
    values: () => 'text',
    explained: () => 'long text',
  },
  email: {
    family: 'text',
    filter: 'text',
    cel: 'string',
    maxLength: 254,
    written: () => 'email',
    values: () => 'an email address',
    explained: () => 'email address',
  },
  url: {
    family: 'text',
    filter: 'text',
    cel: 'string',
    maxLength: 2048,
    written: () => 'url',
    values: () => 'a web address starting with http:// or https://',
    explained: () => 'URL',
  },
  integer: {
    family: 'number',
    filter: 'integer',
    cel: 'int',
    maxLength: null,
    written: () => 'integer',
    values: () => 'a whole number',
    explained: () => 'integer',
  },
  decimal: {
    family: 'number',
    filter: 'decimal',
    cel: 'double',
    maxLength: null,
    written: (t) => (t.scale === null ? 'decimal' : `decimal(${t.scale})`),
    values: (t) => (t.scale === null ? 'a number' : `a number with at most ${places(t.scale)}`),
    explained: (t) => (t.scale === null ? 'decimal' : `decimal with at most ${places(t.scale)}`),
  },
  boolean: {
    family: 'boolean',
    filter: 'boolean',
    cel: 'bool',
    maxLength: null,
    written: () => 'boolean',
    values: () => 'true or false',
    explained: () => 'yes or no',
  },
  date: {
    family: 'moment',
    filter: 'date',
    cel: 'timestamp',
    maxLength: null,
    written: () => 'date',
    values: () => 'a date (YYYY-MM-DD)',
    explained: () => 'date',
  },
  datetime: {
    family: 'moment',
    filter: 'datetime',
    cel: 'timestamp',
    maxLength: null,
    written: () => 'datetime',
    values: () => 'a date and time with a time zone (ISO 8601)',
    explained: () => 'date and time',
  },
  choice: {
    family: 'choice',
    filter: 'choice',
    cel: 'string',
    maxLength: null,
    written: (t) => `choice of ${t.values.join(', ')}`,
    values: (t) => `one of ${t.values.join(', ')}`,
    explained: (t) => `one of ${wordList(t.values, 'or')}`,
  },
  reference: {
    family: 'reference',
    filter: 'reference',
    cel: 'reference',
    maxLength: null,
    written: (t) => t.entity,
    values: (t) => `the id of a ${t.entity}`,
    explained: (t) => (t.entity === 'User' ? 'a signed-in user (User)' : `a ${t.entity}`),
  },
};

/** A kind's facts for a type of any kind. */
export function kindFacts(type: FieldType | FieldKind): FieldKindFacts<FieldKind> {
  // One cast for the table: TypeScript cannot see that `type.kind` and its row agree.
  return FIELD_KINDS[typeof type === 'string' ? type : type.kind] as FieldKindFacts<FieldKind>;
}

/** The type as a spec writes it, e.g. "choice of low, high" or "Book". */
export function describeType(type: FieldType): string {
  return kindFacts(type).written(type as never);
}

/** What a type's values are, in words, for INVALID_TYPE's `{type}`. */
export function valueWords(type: FieldType): string {
  return kindFacts(type).values(type as never);
}

/** A type as `ninepoint explain` describes it. */
export function explainedType(type: FieldType): string {
  return kindFacts(type).explained(type as never);
}

/** What a type's values are (text, number, moment, boolean, choice, reference). */
export function familyOf(type: FieldType | FieldKind): ValueFamily {
  return kindFacts(type).family;
}

/** Types whose values are strings with a length: checked by length and pattern, searched by `q`. */
export function isTextLike(type: FieldType | FieldKind): boolean {
  return familyOf(type) === 'text';
}

/** Types whose values are numbers with a range: a dashboard may sum them. */
export function isNumeric(type: FieldType | FieldKind): boolean {
  return familyOf(type) === 'number';
}

/** Types whose values are days or instants. */
export function isMoment(type: FieldType | FieldKind): boolean {
  return familyOf(type) === 'moment';
}

/** Types with few values a dashboard may count per (besides the state): choices and booleans. */
export function isGroupable(type: FieldType | FieldKind): boolean {
  const family = familyOf(type);
  return family === 'choice' || family === 'boolean';
}

/** The list filters that take a range (`[from]`, `[to]`): those of numbers, days and instants. */
const RANGED_FILTERS: ReadonlySet<FilterKind> = new Set(
  Object.values(FIELD_KINDS)
    .filter((k) => k.family === 'number' || k.family === 'moment')
    .map((k) => k.filter),
);

/** Whether a list filter takes a range (`[from]`, `[to]`): numbers, days and instants do. */
export function isRangedFilter(kind: FilterKind): boolean {
  return RANGED_FILTERS.has(kind);
}

/** For a switch that has handled every case: a new case is a compile error here. */
export function assertNever(value: never): never {
  throw new Error(`Unexpected ${JSON.stringify(value)}`);
}
