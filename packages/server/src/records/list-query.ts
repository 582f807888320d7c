import { isRangedFilter, type RuntimeSettings } from '@ninepoint/spec';
import {
  DEFAULT_SORT,
  type FilterType,
  LIST_PARAMETERS,
  type ListParams,
  MAX_OR_GROUPS,
  type SortKey,
} from '../compile/list-params.ts';
import { ProblemError } from '../compile/problems.ts';
import type { Value } from '../compile/record-types.ts';
import type { ListFilter, ListQuery, Position } from '../store/store.ts';
import { UUID } from '../store/uuidv7.ts';
import { isDate, normalizeDateTime } from './values.ts';

/** The query string as Fastify parses it: repeated keys become arrays. */
export type RawQuery = Record<string, string | string[] | undefined>;

/** Longest `q` accepted: a search for more is a mistake, and SQLite caps LIKE patterns. */
export const MAX_SEARCH_LENGTH = 1000;
const MAX_CURSOR_LENGTH = 4096;
/** Most values one choice filter takes: more than a choice has is a mistake (or an attack on the planner). */
const MAX_FILTER_VALUES = 100;
const KNOWN = new Set<string>(LIST_PARAMETERS);
const NOTHING: ReadonlySet<string> = new Set();

/**
 * Reads a list call's query string into a store query: `limit`, `cursor`, `sort` (`field` or
 * `-field`), `filter[field]=value` (repeated for a choice: any of the values),
 * `filter[field][contains]=text` (text fields), `filter[field][from]=x` and `filter[field][to]=y`
 * (numbers, dates, date-times; both ends included), `[after]` and `[before]` (ends left out),
 * `filter[field][not]=v` (repeated for a choice: none of them; empty values pass),
 * `filter[field][empty]=true|false`, `or[n][field]…` groups (any one of a group's filters holds;
 * every group and every `filter[…]` must), `q` and `count`. Anything else, and any value that does not
 * fit, is refused with INVALID_PAYLOAD naming the parameter; a name not in the model is never
 * echoed back beyond a short identifier. The `hidden` fields (those point 6 does not let the
 * caller see) are as if the entity had none of that name: sorting or filtering by one is refused
 * word for word as by an unknown field, and `q` does not search them. A filter through references
 * (`filter[doctor.account]`, a screen's `where doctor.account = me`) takes only the caller's own
 * id (`me`).
 */
export function parseListQuery(
  raw: RawQuery,
  params: ListParams,
  settings: Pick<RuntimeSettings, 'PAGE_SIZE' | 'MAX_PAGE_SIZE'>,
  hidden: ReadonlySet<string> = NOTHING,
  me: string | null = null,
): ListQuery {
  const one = (name: string): string | undefined => {
    const value = raw[name];
    if (Array.isArray(value)) throw invalid(`give ${name} once`);
    return value;
  };
  for (const name of Object.keys(raw)) {
    if (!KNOWN.has(name) && !name.startsWith('filter[') && !name.startsWith('or[')) {
      throw invalid(plain(name) ? `there is no query parameter "${name}"` : 'the query has a parameter there is not');
    }
  }

  const limitText = one('limit');
  let limit = Math.min(settings.PAGE_SIZE, settings.MAX_PAGE_SIZE);
  if (limitText !== undefined) {
    if (!/^\d{1,9}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > settings.MAX_PAGE_SIZE) {
      throw invalid(`limit must be a whole number from 1 to ${settings.MAX_PAGE_SIZE}`);
    }
    limit = Number(limitText);
  }

  const sortText = one('sort') ?? DEFAULT_SORT;
  const descending = sortText.startsWith('-');
  const column = descending ? sortText.slice(1) : sortText;
  const sortKey = hidden.has(column) ? undefined : params.sortable.get(column);
  if (!sortKey) {
    throw invalid(plain(column) ? `sort names "${column}", which is not a field to sort by` : 'sort must name a field');
  }

  const filters: ListQuery['filters'] = [];
  const groups = new Map<string, ListFilter[]>();
  for (const [name, value] of Object.entries(raw)) {
    if (name.startsWith('filter[')) {
      const match = /^filter\[([^\]]*)\](?:\[([a-z]+)\])?$/.exec(name);
      filters.push(...readFilter(name, match?.[1], match?.[2], value, params, hidden, me, true));
      continue;
    }
    if (!name.startsWith('or[')) continue;
    const match = /^or\[(\d{1,2})\]\[([^\]]*)\](?:\[([a-z]+)\])?$/.exec(name);
    if (!match) throw invalid('an or-group filter is written or[n][field] or or[n][field][operator]');
    const group = match[1] ?? '';
    if (!groups.has(group) && groups.size >= MAX_OR_GROUPS) throw invalid(`give at most ${MAX_OR_GROUPS} or-groups`);
    const found = readFilter(name, match[2], match[3], value, params, hidden, me, false);
    groups.set(group, [...(groups.get(group) ?? []), ...found]);
  }
  for (const group of groups.values()) {
    // A group whose every filter asks for nothing (`contains` an empty text) holds for every record.
    if (group.length > 0) filters.push(group.length === 1 ? (group[0] as ListFilter) : { op: 'any', filters: group });
  }

  const text = one('q');
  let search: ListQuery['search'] = null;
  if (text !== undefined && text !== '') {
    const columns = hidden.size === 0 ? params.searchable : params.searchable.filter((c) => !hidden.has(c));
    if (columns.length === 0) throw invalid('q searches text fields, and there are none here');
    if (text.length > MAX_SEARCH_LENGTH) throw invalid(`q must be at most ${MAX_SEARCH_LENGTH} characters`);
    if (text.includes('\u0000')) throw invalid('q must not contain NUL (U+0000) characters');
    search = { columns: [...columns], text };
  }

  const countText = one('count');
  if (countText !== undefined && countText !== 'true' && countText !== 'false') {
    throw invalid('count must be true or false');
  }

  const cursor = one('cursor');
  const after = cursor === undefined || cursor === '' ? null : decodeCursor(cursor, sortText, sortKey);
  return { sort: { column, descending }, filters, search, owner: null, after, limit, count: countText === 'true' };
}

const OPERATORS = new Set(['contains', 'from', 'to', 'after', 'before', 'not', 'empty']);

/**
 * One filter parameter (`filter[field][op]` or `or[n][field][op]`) as store conditions: none
 * when it asks for nothing (`contains` an empty text), else one. `top`: a chain through
 * references (a screen's `where`) is taken at the top level only.
 */
function readFilter(
  named: string,
  field: string | undefined,
  op: string | undefined,
  value: string | string[] | undefined,
  params: ListParams,
  hidden: ReadonlySet<string>,
  me: string | null,
  top: boolean,
): ListFilter[] {
  const path = field === undefined ? undefined : params.paths.get(field);
  // A chain through references starts at a field of this entity, which may be hidden too.
  const type =
    field === undefined || hidden.has(field) || (path && hidden.has(path.column))
      ? undefined
      : params.filterable.get(field);
  if (field === undefined || !type) {
    const shown = field !== undefined && plain(field) ? `filter[${field}]` : 'a filter';
    throw invalid(`${shown} names no field to filter by`);
  }
  if (op !== undefined && !OPERATORS.has(op)) {
    throw invalid(`${plain(op) ? `[${op}]` : 'that operator'} is not a filter; use ${[...OPERATORS].join(', ')}`);
  }
  const key = plain(field) ? named : 'a filter';
  const values = Array.isArray(value) ? value : [value ?? ''];
  if (op === undefined) {
    // Several values of a choice (or of the state) mean any of them.
    if (values.length > 1 && type.kind !== 'choice') throw invalid(`give ${key} once`);
    if (path) {
      // A chain filter is a screen's `… = me`: any other user's id would tell whose records are whose.
      if (!top) throw invalid(`${field} is filtered by filter[${field}] only`);
      if (me === null || value !== me) throw invalid(`filter[${field}] takes only your own user id`);
    }
    if (values.length > 1) {
      if (values.length > MAX_FILTER_VALUES) throw invalid(`${key} takes at most ${MAX_FILTER_VALUES} values`);
      return [{ op: 'among', column: field, values: [...new Set(values)].map((v) => filterValue(key, type, v)) }];
    }
    return [{ column: field, value: filterValue(key, type, values[0] ?? ''), ...(path ? { path } : {}) }];
  }
  if (path) throw invalid(`${key}: a filter through references takes only its own value`);
  if (op === 'not') {
    if (values.length > 1 && type.kind !== 'choice') throw invalid(`give ${key} once`);
    if (values.length > MAX_FILTER_VALUES) throw invalid(`${key} takes at most ${MAX_FILTER_VALUES} values`);
    return [{ op: 'notAmong', column: field, values: [...new Set(values)].map((v) => filterValue(key, type, v)) }];
  }
  if (values.length > 1) throw invalid(`give ${key} once`);
  const text = values[0] ?? '';
  if (op === 'empty') {
    if (text !== 'true' && text !== 'false') throw invalid(`${key} must be true or false`);
    return [{ op: 'empty', column: field, empty: text === 'true' }];
  }
  if (op === 'contains') {
    if (type.kind !== 'text') throw invalid(`${key} is for text fields only`);
    if (text.length > MAX_SEARCH_LENGTH) throw invalid(`${key} must be at most ${MAX_SEARCH_LENGTH} characters`);
    if (text.includes('\u0000')) throw invalid(`${key} must not contain NUL (U+0000) characters`);
    // Everything contains nothing: no condition.
    return text === '' ? [] : [{ op, column: field, text }];
  }
  if (!isRangedFilter(type.kind)) throw invalid(`${key} is for numbers, dates and date-times only`);
  return [
    {
      op: op as 'from' | 'to' | 'after' | 'before',
      column: field,
      value: filterValue(key, type, text) as string | number,
    },
  ];
}

/** The `next` of a page: opaque to clients, it holds the sort it was made for and a position in it. */
export function encodeCursor(sort: string, position: Position): string {
  return Buffer.from(JSON.stringify([sort, position.value, position.id])).toString('base64url');
}

function decodeCursor(cursor: string, sort: string, key: SortKey): Position {
  // Made only when the cursor is refused: an Error captures a stack trace, too dear for every page.
  const bad = () => invalid('cursor is not one this list gave, or was made for another sort');
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw bad();
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(decoded) || decoded.length !== 3) throw bad();
  const [madeFor, value, id] = decoded as unknown[];
  if (madeFor !== sort || typeof id !== 'string' || !UUID.test(id)) throw bad();
  const fits =
    value === null
      ? key.nullable
      : key.stored === 'number'
        ? typeof value === 'number' && Number.isFinite(value)
        : typeof value === 'string' &&
          !value.includes('\u0000') &&
          (key.format === 'date'
            ? isDate(value)
            : key.format === 'datetime'
              ? normalizeDateTime(value) !== null
              : true);
  if (!fits) throw bad();
  return { value: value as string | number | null, id };
}

function filterValue(name: string, type: FilterType, text: string): Value {
  const wrong = (what: string) => invalid(`${name} must be ${what}`);
  switch (type.kind) {
    case 'text':
      if (text.includes('\u0000')) throw wrong('text without NUL (U+0000) characters');
      return text;
    case 'choice':
      if (!type.values.includes(text)) throw wrong(`one of ${type.values.join(', ')}`);
      return text;
    case 'integer': {
      const n = Number(text);
      if (!/^-?\d{1,16}$/.test(text) || !Number.isSafeInteger(n)) throw wrong('a whole number');
      return n;
    }
    case 'decimal': {
      const n = Number(text);
      if (!/^-?\d+(\.\d+)?$/.test(text) || !Number.isFinite(n)) throw wrong('a number');
      return n;
    }
    case 'boolean':
      if (text !== 'true' && text !== 'false') throw wrong('true or false');
      return text === 'true';
    case 'date':
      if (!isDate(text)) throw wrong('a date (YYYY-MM-DD)');
      return text;
    case 'datetime': {
      const normalized = normalizeDateTime(text);
      if (normalized === null) throw wrong('a date and time with a time zone (ISO 8601)');
      return normalized;
    }
    case 'reference': {
      // Ids are stored in lower case; the path accepts either, and so does a filter.
      const id = text.toLowerCase();
      if (!UUID.test(id)) throw wrong('an id');
      return id;
    }
  }
}

function invalid(detail: string): ProblemError {
  return new ProblemError('INVALID_PAYLOAD', { detail });
}

/** Whether a name the client sent may be repeated in an answer: a short plain identifier, nothing else. */
function plain(name: string): boolean {
  return /^[A-Za-z0-9_-]{1,64}$/.test(name);
}
