import { RE2JS } from 're2js';
import { assertNever, isNumeric, isTextLike } from './field-kinds.ts';
import { FILE_FORMATS, FILE_MAX_BYTES, FILE_MAX_COUNT, fileKind, SIZE_UNITS, sizeWords } from './file-formats.ts';
import type { Bound, DefaultValue, Field, FieldType, FieldTypeOfKind } from './model.ts';
import { type Cell, cellPart, splitList } from './parse-tables.ts';
import type { Scope } from './scope.ts';
import { indexWithin } from './spans.ts';
import { suggest } from './suggest.ts';

export type FieldRules = Pick<
  Field,
  'required' | 'unique' | 'default' | 'min' | 'max' | 'minLength' | 'maxLength' | 'pattern' | 'thread'
>;

const RULE_WORDS = [
  'required',
  'optional',
  'unique',
  'thread',
  'default',
  'pattern',
  'at least',
  'at most',
  'min',
  'max',
  '1..10',
  '1..200 characters',
];
const BOUND = '(-?\\d+(?:\\.\\d+)?|[A-Z][A-Z0-9_]*)';
const RANGE = new RegExp(`^${BOUND}\\s*\\.\\.\\s*${BOUND}(\\s+(?:characters?|chars?))?$`);
const ONE_SIDED = new RegExp(`^(at least|at most|min|max|>=|<=|up to)\\s*${BOUND}(\\s+(?:characters?|chars?))?$`, 'i');

/** A file field's rules: `at most 10 MB`, `at most 5 files`, or a kind of file (`pdf`, `png`). */
const FILE_SIZE = /^(?:at most|up to|max|<=)\s*(\d+(?:\.\d+)?)\s*([a-z]*)$/i;
const FILE_COUNT = /^(?:at most|up to|max|<=)\s*(\d+)\s+(?:files?|images?)$/i;
const KIND_WORD = /^[a-z][a-z0-9]*$/i;

/**
 * Reads a field's rules cell: `required, unique, default 1, 0..MAX_COPIES, pattern ^a+$`. A file
 * field's rules also give its limits (`at most 10 MB, pdf, png`): `fileType` is its type with them.
 */
export function readFieldRules(
  cell: Cell | null,
  type: FieldType | null,
  scope: Scope,
  field: string,
): FieldRules & { fileType?: FieldTypeOfKind<'file'> } {
  if (type?.kind === 'file') return readFileRules(cell, type, scope, field);
  return readValueRules(cell, type, scope, field);
}

function readFileRules(
  cell: Cell | null,
  type: FieldTypeOfKind<'file'>,
  scope: Scope,
  field: string,
): FieldRules & { fileType: FieldTypeOfKind<'file'> } {
  const limits = { ...type };
  const kinds: string[] = [];
  const others: Cell[] = [];
  for (const item of cell && cell.text !== '-' ? splitList(cell) : []) {
    const text = item.text.trim();
    const count = FILE_COUNT.exec(text);
    const size = count ? null : FILE_SIZE.exec(text);
    if (count) {
      const n = Number(count[1]);
      if (type.maxFiles === 1) {
        scope.bag.report('invalid-file-limit', item.span, `Field ${field} holds one file, so it cannot take ${n}.`, {
          hint: `Make its type "${type.image ? 'images' : 'files'}" to hold several.`,
        });
      } else if (n < 1 || n > FILE_MAX_COUNT) {
        scope.bag.report(
          'invalid-file-limit',
          item.span,
          `Field ${field} may hold ${n} files, which is not 1..${FILE_MAX_COUNT}.`,
        );
      } else limits.maxFiles = n;
    } else if (size) {
      const unit = (size[2] ?? '').toLowerCase();
      const factor = SIZE_UNITS[unit];
      const bytes = factor === undefined ? Number.NaN : Math.floor(Number(size[1]) * factor);
      if (factor === undefined) {
        scope.bag.report(
          'invalid-file-limit',
          item.span,
          `Field ${field} has a size "${text}" without a unit it knows.`,
          {
            expected: suggest(unit, ['KB', 'MB', 'GB', 'bytes']).map((u) => `at most ${size[1]} ${u}`),
            hint: 'Write a size in KB, MB or GB (1 MB is 1,048,576 bytes), e.g. "at most 10 MB".',
          },
        );
      } else if (bytes < 1 || bytes > FILE_MAX_BYTES) {
        scope.bag.report(
          'invalid-file-limit',
          item.span,
          `Field ${field} allows files of ${size[1]} ${size[2]}, which is not 1 byte..5 GB.`,
          {
            hint: 'Write a size from 1 byte to 5 GB, e.g. "at most 10 MB".',
          },
        );
      } else limits.maxBytes = bytes;
    } else if (KIND_WORD.test(text) && !['required', 'optional', 'unique'].includes(text.toLowerCase())) {
      const kind = fileKind(text);
      if (kind === undefined) {
        scope.bag.report(
          'invalid-file-limit',
          item.span,
          `Field ${field} accepts "${text}", which is not a kind of file the server recognises from its bytes.`,
          {
            expected: suggest(text.toLowerCase(), Object.keys(FILE_FORMATS)),
            hint: `Kinds are ${Object.keys(FILE_FORMATS).join(', ')}; leave them out to accept any file.`,
          },
        );
      } else if (type.image && !FILE_FORMATS[kind]?.raster) {
        scope.bag.report(
          'invalid-file-limit',
          item.span,
          `Field ${field} is an image field, and ${kind} is not an image.`,
          {
            hint: 'An image field takes png, jpeg, gif, webp or avif; make it a file field to take other kinds.',
          },
        );
      } else if (!kinds.includes(kind)) kinds.push(kind);
    } else others.push(item);
  }
  if (kinds.length > 0) limits.kinds = kinds;
  const rules = readValueRules(null, type, scope, field);
  for (const item of others) {
    const lower = item.text.toLowerCase().replace(/\s+/g, ' ');
    if (lower === 'required') rules.required = true;
    else if (lower === 'optional') rules.required = false;
    else if (lower === 'keeps location' || lower === 'keep location') {
      if (limits.kinds.length > 0 && !limits.kinds.some((k) => FILE_FORMATS[k]?.exif === true)) {
        scope.bag.report(
          'invalid-file-limit',
          item.span,
          `Field ${field} accepts only ${limits.kinds.join(', ')}, which carry no photo location to keep.`,
          { hint: 'Remove "keeps location", or accept jpeg, png, webp or avif.' },
        );
      } else limits.keepsLocation = true;
    } else {
      scope.bag.report(
        'invalid-field-rule',
        item.span,
        `Field ${field} is a file field; "${item.text}" is not one of its rules.`,
        {
          hint: `A file field's rules are required, a size ("at most ${sizeWords(type.maxBytes)}"), kinds ("pdf, png")${type.maxFiles > 1 ? ', a count ("at most 5 files")' : ''} and "keeps location".`,
        },
      );
    }
  }
  return { ...rules, fileType: limits };
}

function readValueRules(cell: Cell | null, type: FieldType | null, scope: Scope, field: string): FieldRules {
  const rules: FieldRules = {
    required: false,
    unique: false,
    default: null,
    min: null,
    max: null,
    minLength: null,
    maxLength: null,
    pattern: null,
  };
  if (!cell || cell.text === '' || cell.text === '-') return rules;
  const items = splitList(cell);
  let defaultCell: Cell | null = null;
  // Where the range and length were written, so a reversed one is reported at its own item.
  const boundsAt: { range?: Cell; length?: Cell } = {};
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as Cell;
    const lower = item.text.toLowerCase();
    if (lower === 'required') rules.required = true;
    else if (lower === 'optional') rules.required = false;
    else if (lower === 'unique') rules.unique = true;
    // Only a reference can be a thread: `validate/threads.ts` says so of any other field.
    else if (lower === 'thread') rules.thread = true;
    else if (/^pattern\s*:?\s*`[^`]*`$/.test(lower)) {
      readPattern(item, type, scope, field, rules);
    } else if (/^pattern\b/.test(lower)) {
      // An unquoted pattern may contain commas: it runs to the end of the cell.
      const start = indexWithin(cell.span, item.span);
      const rest = cellPart(cell, start, cell.text.length - start);
      readPattern(rest, type, scope, field, rules);
      break;
    } else if (/^(default|defaults to)\b/.test(lower)) {
      const m = /^(default|defaults to)\s*:?\s*/i.exec(item.text) as RegExpExecArray;
      defaultCell = cellPart(item, m[0].length, item.text.length - m[0].length);
    } else if (readBounds(item, type, scope, field, rules)) {
      const asLength = rules.minLength !== null || rules.maxLength !== null;
      if (/\.\./.test(item.text)) boundsAt[asLength && !(rules.min || rules.max) ? 'length' : 'range'] = item;
    } else {
      scope.bag.report(
        'invalid-field-rule',
        item.span,
        `Field ${field} has a rule "${item.text}" that is not understood.`,
        {
          expected: suggest(lower, RULE_WORDS),
          hint: 'Rules are required, optional, unique, thread (on a reference), default X, a range such as 0..10 or 1..200 characters, at least/at most N, and pattern REGEX.',
        },
      );
    }
  }
  checkOrder(rules.min, rules.max, boundsAt.range ?? cell, scope, field, 'range');
  checkOrder(rules.minLength, rules.maxLength, boundsAt.length ?? cell, scope, field, 'length');
  if (defaultCell && type) rules.default = readDefault(defaultCell, type, rules, scope, field);
  return rules;
}

function readBounds(item: Cell, type: FieldType | null, scope: Scope, field: string, rules: FieldRules): boolean {
  const range = RANGE.exec(item.text);
  const oneSided = range ? null : ONE_SIDED.exec(item.text);
  if (!range && !oneSided) return false;
  const inChars = Boolean(range ? range[3] : oneSided?.[3]);
  const asLength = inChars || (type !== null && isTextLike(type));
  if (type && asLength && !isTextLike(type)) {
    scope.bag.report(
      'invalid-field-rule',
      item.span,
      `Field ${field} is not text, so it cannot have a length in characters.`,
    );
    return true;
  }
  if (type && !asLength && !isNumeric(type)) {
    scope.bag.report(
      'invalid-field-rule',
      item.span,
      `Field ${field} is a ${type.kind}; only integer and decimal fields have a range.`,
      {
        hint: 'A range applies to integer and decimal fields; a length ("1..200 characters") to text fields.',
      },
    );
    return true;
  }
  const what = `Field ${field}`;
  const at = (text: string) => cellPart(item, item.text.indexOf(text), text.length);
  if (range) {
    const low = scope.bound(at(range[1] as string), what);
    const high = scope.bound(at(range[2] as string), what);
    if (asLength) [rules.minLength, rules.maxLength] = [low, high];
    else [rules.min, rules.max] = [low, high];
  } else if (oneSided) {
    const bound = scope.bound(at(oneSided[2] as string), what);
    const lower = /^(at least|min|>=)$/i.test(oneSided[1] as string);
    if (asLength && lower) rules.minLength = bound;
    else if (asLength) rules.maxLength = bound;
    else if (lower) rules.min = bound;
    else rules.max = bound;
  }
  if (asLength && (negative(rules.minLength) || negative(rules.maxLength))) {
    scope.bag.report('invalid-range', item.span, `Field ${field} has a negative length.`);
  }
  return true;
}

function negative(bound: Bound | null): boolean {
  return bound !== null && bound.value < 0;
}

function checkOrder(
  low: Bound | null,
  high: Bound | null,
  cell: Cell,
  scope: Scope,
  field: string,
  what: string,
): void {
  if (low && high && low.value > high.value) {
    scope.bag.report(
      'invalid-range',
      cell.span,
      `Field ${field} has a ${what} from ${low.value} to ${high.value}: the lower bound is above the upper.`,
      {
        hint: `Swap the bounds: ${high.constant ?? high.value}..${low.constant ?? low.value}.`,
      },
    );
  }
}

function readPattern(rest: Cell, type: FieldType | null, scope: Scope, field: string, rules: FieldRules): void {
  const m = /^pattern\s*:?\s*/i.exec(rest.text) as RegExpExecArray;
  let source = rest.text.slice(m[0].length).trim();
  const quoted = /^`([^`]*)`$/.exec(source);
  if (quoted) source = quoted[1] ?? '';
  if (type && !isTextLike(type)) {
    scope.bag.report(
      'invalid-field-rule',
      rest.span,
      `Field ${field} is a ${type.kind}; only text fields can have a pattern.`,
    );
    return;
  }
  if (source === '') {
    scope.bag.report('invalid-pattern', rest.span, `Field ${field} has an empty pattern.`, {
      hint: 'Write e.g. pattern `^[A-Z]{3}$`.',
    });
    return;
  }
  try {
    RE2JS.compile(source);
    rules.pattern = source;
  } catch (error) {
    scope.bag.report(
      'invalid-pattern',
      rest.span,
      `Field ${field} has a pattern that is not a valid regular expression: ${(error as Error).message}.`,
      {
        hint: 'Patterns use RE2 syntax: JavaScript regular expressions without lookaround or back-references, so matching takes linear time. Write them in backticks when they contain a comma.',
      },
    );
  }
}

function readDefault(cell: Cell, type: FieldType, rules: FieldRules, scope: Scope, field: string): DefaultValue | null {
  const raw = cell.text.replace(/^`|`$/g, '');
  const text = /^"(.*)"$/.exec(raw)?.[1] ?? raw;
  const fail = (expected: string) => {
    scope.bag.report('invalid-default', cell.span, `Field ${field} has default "${raw}", which is not ${expected}.`);
    return null;
  };
  let value: string | number | boolean;
  switch (type.kind) {
    case 'integer':
      if (!/^-?\d+$/.test(text) && !scope.constants.has(text)) return fail('a whole number');
      value = scope.constants.has(text) ? (scope.bound(cell, `Field ${field}`)?.value ?? 0) : Number(text);
      break;
    case 'decimal':
      if (!/^-?\d+(\.\d+)?$/.test(text) && !scope.constants.has(text)) return fail('a number');
      value = scope.constants.has(text) ? (scope.bound(cell, `Field ${field}`)?.value ?? 0) : Number(text);
      break;
    case 'boolean':
      if (!/^(true|false|yes|no)$/i.test(text)) return fail('true or false');
      value = /^(true|yes)$/i.test(text);
      break;
    case 'date':
      if (text.toLowerCase() === 'today') return { dynamic: 'today' };
      if (!/^\d{4}-\d{2}-\d{2}$/.test(text) || Number.isNaN(Date.parse(text)))
        return fail('a date (YYYY-MM-DD) or today');
      value = text;
      break;
    case 'datetime':
      if (text.toLowerCase() === 'now') return { dynamic: 'now' };
      if (Number.isNaN(Date.parse(text))) return fail('a date and time (ISO 8601) or now');
      value = text;
      break;
    case 'choice':
      if (!type.values.includes(text)) return fail(`one of ${type.values.join(', ')}`);
      value = text;
      break;
    case 'reference':
      if (type.entity === 'User' && text.toLowerCase() === 'me') return { dynamic: 'me' };
      return fail(
        type.entity === 'User' ? 'me (the signed-in user)' : 'allowed: a reference to another record has no default',
      );
    case 'text':
    case 'longText':
    case 'email':
    case 'url':
      value = text;
      break;
    case 'file':
      return fail('allowed: a file field has no default');
    default:
      return assertNever(type);
  }
  const bad = violates(value, rules);
  if (bad) return fail(bad);
  return { literal: value };
}

/** Why a default breaks the field's own range, length or pattern, or null when it does not. */
function violates(value: string | number | boolean, rules: FieldRules): string | null {
  if (typeof value === 'number') {
    if (rules.min && value < rules.min.value) return `at least ${rules.min.value}`;
    if (rules.max && value > rules.max.value) return `at most ${rules.max.value}`;
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (rules.minLength && length < rules.minLength.value) return `at least ${rules.minLength.value} characters`;
    if (rules.maxLength && length > rules.maxLength.value) return `at most ${rules.maxLength.value} characters`;
    if (rules.pattern && !RE2JS.compile(rules.pattern).matcher(value).find()) return 'matching its pattern';
  }
  return null;
}
