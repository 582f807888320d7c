import { assertNever, type ChoiceColour, type Entity, type Field, type FieldType } from '@ninepoint/spec';
import { webKind } from './fields/field-kinds.ts';

/**
 * Shared formatting of records for display: one place that decides how a value of each field type
 * reads on screen, and what a record is called. Pure functions, no React: screens, CSV export and
 * tests can all use them.
 */

/** A record as the API answers it: the declared fields plus `id`, `created_at`, `updated_at`, `created_by`, `state`. */
export type ApiRecord = Record<string, string | number | boolean | null>;

/** What an empty value shows as. */
export const EMPTY = '—';

/** The type of a system field, so that `created_at` formats like any datetime field. */
export function systemFieldType(name: string): FieldType | undefined {
  switch (name) {
    case 'id':
    case 'state':
      return { kind: 'text' };
    case 'created_at':
    case 'updated_at':
      return { kind: 'datetime' };
    case 'created_by':
      return { kind: 'reference', entity: 'User' };
    default:
      return undefined;
  }
}

/** The type of a field of an entity, system fields included; undefined when there is no such field. */
export function fieldType(entity: Entity, name: string): FieldType | undefined {
  return entity.fields.find((f) => f.name === name)?.type ?? systemFieldType(name);
}

const dateFormat = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  timeZone: 'UTC',
});
const dateTimeFormat = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
});

/** `2025-03-14` → `Mar 14, 2025` in the reader's locale; the text itself when it is not a date. */
export function formatDate(value: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return value;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return Number.isNaN(date.getTime()) ? value : dateFormat.format(date);
}

/** An ISO 8601 moment → date and time in the reader's locale and time zone. */
export function formatDateTime(value: string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : dateTimeFormat.format(date);
}

const dayFormat = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric' });

/** An ISO 8601 moment → its day in the reader's time zone (`Mar 14, 2025`): enough for a column of when records were made. */
export function formatDay(value: string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : dayFormat.format(date);
}

const ISO_MOMENT = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?(?![\d:.])/g;
const ISO_DATE = /\b\d{4}-\d{2}-\d{2}\b(?!T\d)/g;

/**
 * A catalogue message with the ISO dates and moments it was filled with (`{due}`, `{started_at}`:
 * `2026-11-23T10:00:00.000Z`) as fields show them. The API's messages keep ISO text, which any
 * client can read; the reader's locale and time zone are known only here.
 */
export function formatMessage(text: string): string {
  return text.replace(ISO_MOMENT, (moment) => formatDateTime(moment)).replace(ISO_DATE, (day) => formatDate(day));
}

/** A number with the reader's digit grouping; a `decimal(N)` field shows N places. */
export function formatNumber(value: number, scale: number | null = null): string {
  return value.toLocaleString(
    undefined,
    scale === null ? {} : { minimumFractionDigits: scale, maximumFractionDigits: scale },
  );
}

/**
 * A field value as text for display: dates and moments in the reader's locale, booleans as
 * Yes/No, decimals with their scale, empty values as an em dash. References show the id (screens
 * show them as links with the referenced record's title, see `recordTitle`).
 */
export function formatValue(type: FieldType | undefined, value: unknown): string {
  if (value === null || value === undefined || value === '') return EMPTY;
  if (!type) return String(value);
  switch (type.kind) {
    case 'boolean':
      return value === true ? 'Yes' : value === false ? 'No' : String(value);
    case 'integer':
      return typeof value === 'number' ? formatNumber(value) : String(value);
    case 'decimal':
      return typeof value === 'number' ? formatNumber(value, type.scale) : String(value);
    case 'date':
      return typeof value === 'string' ? formatDate(value) : String(value);
    case 'datetime':
      return typeof value === 'string' ? formatDateTime(value) : String(value);
    case 'reference':
      return typeof value === 'string' ? shortId(value) : String(value);
    case 'file': {
      const count = typeof value === 'string' ? value.split(',').length : 0;
      return `${count} ${type.image ? 'image' : 'file'}${count === 1 ? '' : 's'}`;
    }
    case 'text':
    case 'longText':
    case 'email':
    case 'url':
    case 'choice':
      return String(value);
    default:
      return assertNever(type);
  }
}

/** The first characters of an id, enough to tell records apart on a screen: `0190f3a2…`. */
export function shortId(id: string): string {
  return id.length > 8 ? `${id.slice(0, 8)}…` : id;
}

const TITLE_NAMES = ['title', 'name', 'subject', 'label', 'summary', 'description', 'headline', 'code'];

/**
 * The field that names a record of an entity: one called title, name, subject…, else its first
 * required one-line text field, else its first one-line text field; undefined when it has none.
 */
export function titleField(entity: Entity): Field | undefined {
  const texts = entity.fields.filter((f) => webKind(f.type).names);
  for (const name of TITLE_NAMES) {
    const found = texts.find((f) => f.name.toLowerCase() === name);
    if (found) return found;
  }
  return texts.find((f) => f.required) ?? texts[0];
}

/** What a record is called on screen: its title field's value, else `Book 0190f3a2…`. */
export function recordTitle(entity: Entity, record: ApiRecord | null | undefined): string {
  const field = titleField(entity);
  const value = field && record ? record[field.name] : null;
  if (typeof value === 'string' && value.trim() !== '') return value;
  const id = record?.id;
  return typeof id === 'string' ? `${entity.name} ${shortId(id)}` : entity.name;
}

/** The plural of a count with its noun: `1 book`, `3 books` (the noun is given in both forms). */
export function counted(n: number, one: string, many: string): string {
  return `${formatNumber(n)} ${n === 1 ? one : many}`;
}

const STATE_PALETTE = ['blue', 'violet', 'cyan', 'orange', 'grape', 'lime', 'pink', 'yellow'];
const STATE_WORDS: [RegExp, string][] = [
  [/^(new|draft|open|todo|pending|queued|planned)$/, 'gray'],
  [/(overdue|late|lost|reject|declin|cancel|fail|block|escalat|expired|denied|refused)/, 'red'],
  [/(done|closed|resolved|returned|paid|approved|complete|accepted|published|shipped|delivered|finished)/, 'teal'],
  [/(wait|hold|review|submitted|sent back)/, 'yellow'],
];

/**
 * A Mantine colour for a state badge: grey for states that have not started, red for the ones
 * that went wrong, teal for the ones that are done, yellow for waiting; other states take a colour
 * by their place in the machine, so one state has one colour on every screen.
 */
export function stateColor(states: readonly string[], state: string): string {
  const name = state.toLowerCase();
  for (const [pattern, color] of STATE_WORDS) if (pattern.test(name)) return color;
  const index = states.indexOf(state);
  return STATE_PALETTE[Math.max(index, 0) % STATE_PALETTE.length] ?? 'blue';
}

/** Words that say how pressing a choice is, calm to urgent. */
const URGENCY: [RegExp, string][] = [
  [/^(urgent|critical|blocker|highest|emergency|p0)$/, 'red'],
  [/^(high|major|important|p1)$/, 'orange'],
  [/^(normal|medium|moderate|p2)$/, 'blue'],
  [/^(low|minor|lowest|trivial|p3|p4)$/, 'gray'],
];
const CHOICE_PALETTE = ['blue', 'grape', 'cyan', 'lime', 'orange', 'pink', 'violet', 'teal'];

/**
 * A Mantine colour for a choice value: the colour the spec declares for it (`high (orange)`), else
 * by urgency when the value says how pressing it is (low grey, normal blue, high orange, urgent red:
 * High is never green), else one hue per value by its place in the spec's list of values, the same
 * on every screen (list badges, board cards, dashboards).
 */
export function choiceColor(
  field: string,
  values: readonly string[],
  value: string,
  declared?: Readonly<Record<string, ChoiceColour>>,
): string {
  const colour = declared?.[value];
  // The spec's palette says grey, as its prose does; Mantine's name is gray.
  if (colour) return colour === 'grey' ? 'gray' : colour;
  const name = value.toLowerCase();
  for (const [pattern, color] of URGENCY) if (pattern.test(name)) return color;
  const at = Math.max(values.indexOf(value), 0);
  // Two choices of one entity should not start on the same hue.
  const shift = [...field].reduce((sum, c) => sum + c.charCodeAt(0), 0);
  return CHOICE_PALETTE[(at + shift) % CHOICE_PALETTE.length] ?? 'blue';
}
