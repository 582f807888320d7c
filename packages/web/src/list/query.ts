import {
  type Entity,
  type Field,
  type FieldType,
  type FilterKind,
  isRangedFilter,
  isTextLike,
  kindFacts,
  type Model,
  runtimeSettings,
  type Screen,
  type StateMachine,
  USER_ENTITY,
} from '@ninepoint/spec';
import type { Me } from '../api/session.ts';
import { fieldLabel, label } from '../app/screens.ts';
import { webKind } from '../fields/field-kinds.ts';
import type { ApiRecord } from '../format.ts';

/**
 * What a list screen asks the API for, and how that lives in the page's address: the sort, the
 * text searched, the filters per field, the columns shown and the page size
 * (`?sort=-due&q=dune&filter[state]=out&filter[state]=overdue&filter[due][from]=2026-01-01&columns=book,due`),
 * so a deep link, a reload or the back button shows the same records. These mirror what the
 * server accepts (`packages/server/src/compile/list-params.ts`): any field sorts; a choice or the
 * state filters by any of several values, text by what it contains, numbers, dates and moments by
 * a range (both ends included), other fields by equality; text-like fields are searched.
 */

/** A column of the list, or a field one may filter by: a declared field or a system field. */
export interface ListField {
  name: string;
  label: string;
  type: FieldType;
  /** The declared field, when it is one. */
  field: Field | null;
}

/** How a filter's input reads a value: the list API's filter of the field's kind (the spec's `FIELD_KINDS`). */
export type { FilterKind };

export interface FilterField extends ListField {
  kind: FilterKind;
  /** The values of a choice (or the states). */
  values: readonly string[];
}

/**
 * What the user set on one field, as the API takes it: `values` (`filter[f]=v`, several for a
 * choice: any of them), `contains` (`filter[f][contains]`), `from` and `to` (`filter[f][from]`).
 */
export interface FieldFilter {
  values?: string[];
  contains?: string;
  from?: string;
  to?: string;
  /** `filter[f][not]`: none of these (records with no value pass). */
  not?: string[];
  /** `filter[f][after]`, `[before]`: the value itself left out. */
  after?: string;
  before?: string;
  /** `filter[f][empty]`: true for no value, false for any value. */
  empty?: boolean;
}

/** One or-group: any of its fields' filters holds (`or[n][field]…`). */
export type FilterGroup = Record<string, FieldFilter>;

/** Most or-groups the address keeps: as many as the server takes. */
export const MAX_GROUPS = 10;

export interface ListState {
  /** `field` or `-field`; null for the server's default (oldest first). */
  sort: string | null;
  q: string;
  /** Filters the user set, by field. */
  filters: Record<string, FieldFilter>;
  /** Or-groups, each of which must hold by one of its filters. */
  groups: FilterGroup[];
  size: number;
  /** The columns shown, by name; null for the screen's own choice. */
  columns: string[] | null;
}

/** The server's default sort, oldest first: what the list shows when the address names none. */
export const DEFAULT_SORT = 'created_at';

/** The fields `q` searches: the text-like ones. */
export function searchableFields(entity: Entity | undefined): Field[] {
  return entity ? entity.fields.filter((f) => isTextLike(f.type)) : [];
}

export function machineOf(model: Model, entity: string): StateMachine | undefined {
  return model.machines.find((m) => m.entity === entity);
}

/** Fields the list may be sorted by: every declared field and the system fields. */
export function sortableNames(entity: Entity, machine: StateMachine | undefined): Set<string> {
  return new Set([
    'id',
    'created_at',
    'updated_at',
    'created_by',
    ...(machine ? ['state'] : []),
    ...entity.fields.map((f) => f.name),
  ]);
}

/**
 * The fields one may filter by with an input that makes sense: the state and choices by several
 * values, a yes/no or a reference by one, text by what it contains, numbers, days and moments by
 * a range.
 */
export function filterFields(entity: Entity, machine: StateMachine | undefined): FilterField[] {
  const out: FilterField[] = [];
  if (machine) {
    out.push({
      name: 'state',
      label: 'State',
      type: { kind: 'choice', values: machine.states.map((s) => s.name) },
      field: null,
      kind: 'choice',
      values: machine.states.map((s) => s.name),
    });
  }
  for (const field of entity.fields) {
    const t = field.type;
    const base = { name: field.name, label: fieldLabel(field), type: t, field };
    out.push({ ...base, kind: kindFacts(t).filter, values: t.kind === 'choice' ? t.values : [] });
  }
  return out;
}

/** Whether a filter value is one the server will take for that kind of field. */
export function validFilterValue(kind: FilterKind, value: string, values: readonly string[] = []): boolean {
  switch (kind) {
    case 'choice':
      return values.includes(value);
    case 'boolean':
      return value === 'true' || value === 'false';
    case 'date': {
      // A real day: Date.parse rolls 30 February over into March, the server refuses it.
      const ms = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : Number.NaN;
      return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === value;
    }
    case 'datetime':
      return (
        /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value) &&
        !Number.isNaN(Date.parse(value))
      );
    case 'integer':
      return /^-?\d{1,16}$/.test(value) && Number.isSafeInteger(Number(value));
    case 'decimal':
      return /^-?\d+(\.\d+)?$/.test(value) && Number.isFinite(Number(value));
    case 'reference':
      return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
    case 'text':
      return value !== '' && !value.includes('\u0000');
  }
}

/** Whether a field's filter holds anything. */
export function isActive(filter: FieldFilter | undefined): boolean {
  return Boolean(
    filter &&
      ((filter.values?.length ?? 0) > 0 ||
        filter.contains ||
        filter.from ||
        filter.to ||
        (filter.not?.length ?? 0) > 0 ||
        filter.after ||
        filter.before ||
        filter.empty !== undefined),
  );
}

/**
 * A field's filter as query parameters, the same in the address and in the API call; `prefix`
 * is `filter` or an or-group's `or[n]`.
 */
export function filterParams(name: string, filter: FieldFilter, prefix = 'filter'): [string, string][] {
  const out: [string, string][] = [];
  const at = `${prefix}[${name}]`;
  for (const value of filter.values ?? []) out.push([at, value]);
  if (filter.contains) out.push([`${at}[contains]`, filter.contains]);
  if (filter.from) out.push([`${at}[from]`, filter.from]);
  if (filter.to) out.push([`${at}[to]`, filter.to]);
  if (filter.after) out.push([`${at}[after]`, filter.after]);
  if (filter.before) out.push([`${at}[before]`, filter.before]);
  for (const value of filter.not ?? []) out.push([`${at}[not]`, value]);
  if (filter.empty !== undefined) out.push([`${at}[empty]`, String(filter.empty)]);
  return out;
}

/** A field's filter read from query parameters; what the server would refuse is left out. */
function readFieldFilter(params: URLSearchParams, field: FilterField, prefix = 'filter'): FieldFilter {
  const filter: FieldFilter = {};
  const at = `${prefix}[${field.name}]`;
  const valid = (v: string | null): v is string => v !== null && validFilterValue(field.kind, v, field.values);
  const values = [...new Set(params.getAll(at).filter(valid))];
  // Several values mean "any of them" for a choice only.
  if (values.length > 0) filter.values = field.kind === 'choice' ? values : values.slice(0, 1);
  const contains = params.get(`${at}[contains]`);
  if (field.kind === 'text' && contains !== null && validFilterValue('text', contains)) filter.contains = contains;
  if (isRangedFilter(field.kind)) {
    for (const end of ['from', 'to', 'after', 'before'] as const) {
      const value = params.get(`${at}[${end}]`);
      if (valid(value)) filter[end] = value;
    }
  }
  const not = [...new Set(params.getAll(`${at}[not]`).filter(valid))];
  if (not.length > 0) filter.not = field.kind === 'choice' ? not : not.slice(0, 1);
  const empty = params.get(`${at}[empty]`);
  if (empty === 'true' || empty === 'false') filter.empty = empty === 'true';
  return filter;
}

/** The or-groups of an address (`or[1][…]`, `or[2][…]`), in their order; empty ones left out. */
function readGroups(params: URLSearchParams, fields: FilterField[]): FilterGroup[] {
  const numbers = new Set<number>();
  for (const key of params.keys()) {
    const n = /^or\[(\d{1,2})\]\[/.exec(key)?.[1];
    if (n !== undefined) numbers.add(Number(n));
  }
  const groups: FilterGroup[] = [];
  for (const n of [...numbers].sort((a, b) => a - b).slice(0, MAX_GROUPS)) {
    const group: FilterGroup = {};
    for (const field of fields) {
      const filter = readFieldFilter(params, field, `or[${n}]`);
      if (isActive(filter)) group[field.name] = filter;
    }
    if (Object.keys(group).length > 0) groups.push(group);
  }
  return groups;
}

/** Or-groups as query parameters, numbered from 1. */
function groupParams(groups: FilterGroup[]): [string, string][] {
  return groups.flatMap((group, i) =>
    Object.entries(group).flatMap(([name, filter]) => filterParams(name, filter, `or[${i + 1}]`)),
  );
}

/** A screen's `where` filters as the API takes them (`me` is the signed-in user's id). */
export interface FixedFilters {
  /** Sent as `filter[field]=value`. */
  api: Record<string, string>;
  /** Fields the server does not filter by (`created_by`): the page's records are checked here instead. */
  local: { field: string; value: string | number | boolean | null }[];
}

export function fixedFilters(screen: Screen, entity: Entity, machine: StateMachine | undefined, me: Me): FixedFilters {
  const fixed: FixedFilters = { api: {}, local: [] };
  const filterable = new Set(['created_by', ...(machine ? ['state'] : []), ...entity.fields.map((f) => f.name)]);
  for (const filter of screen.filters) {
    const value = 'me' in filter.value ? (me.user?.id ?? null) : filter.value.literal;
    // A chain through references (`doctor.account = me`) only the server can follow.
    const served = filterable.has(filter.field) || filter.field.includes('.');
    if (served && value !== null) fixed.api[filter.field] = String(value);
    else fixed.local.push({ field: filter.field, value });
  }
  return fixed;
}

/** Whether a record passes the filters the server could not apply. */
export function passesLocal(record: ApiRecord, local: FixedFilters['local']): boolean {
  return local.every((f) => f.value !== null && record[f.field] === f.value);
}

/** The page sizes one may choose: common sizes up to MAX_PAGE_SIZE (500 at most, so a page renders at once), and PAGE_SIZE. */
export function pageSizes(model: Model): { initial: number; options: number[] } {
  const settings = runtimeSettings(model);
  const max = Math.min(settings.MAX_PAGE_SIZE, 500);
  const initial = Math.min(settings.PAGE_SIZE, settings.MAX_PAGE_SIZE);
  const options = [...new Set([10, 25, 50, 100, 200, 500, initial].filter((n) => n <= max || n === initial))].sort(
    (a, b) => a - b,
  );
  return { initial, options };
}

/** The largest page the API gives: what an export asks for. */
export function maxPageSize(model: Model): number {
  return runtimeSettings(model).MAX_PAGE_SIZE;
}

/** The list's state as the address holds it; anything that does not fit is left out. */
export function readListState(
  params: URLSearchParams,
  options: {
    sortable: Set<string>;
    filters: FilterField[];
    fixed: FixedFilters;
    sizes: { initial: number; options: number[] };
    /** The columns one may show, by name; without it the address's columns are ignored. */
    columns?: readonly string[];
  },
): ListState {
  const sortText = params.get('sort');
  const sortName = sortText?.replace(/^-/, '') ?? '';
  const sort = sortText && options.sortable.has(sortName) ? sortText : null;
  const filters: Record<string, FieldFilter> = {};
  for (const field of options.filters) {
    if (field.name in options.fixed.api) continue;
    const filter = readFieldFilter(params, field);
    if (isActive(filter)) filters[field.name] = filter;
  }
  const groups = readGroups(
    params,
    options.filters.filter((f) => !(f.name in options.fixed.api)),
  );
  const sizeText = Number(params.get('size'));
  const size = options.sizes.options.includes(sizeText) ? sizeText : options.sizes.initial;
  const known = new Set(options.columns ?? []);
  const named = (params.get('columns') ?? '').split(',').filter((c) => known.has(c));
  const columns = params.has('columns') && named.length > 0 ? [...new Set(named)] : null;
  return { sort, q: params.get('q') ?? '', filters, groups, size, columns };
}

/** The address for a list state; defaults are left out so links stay short. */
export function writeListState(state: ListState, initialSize: number): URLSearchParams {
  const params = new URLSearchParams();
  if (state.q.trim() !== '') params.set('q', state.q);
  if (state.sort) params.set('sort', state.sort);
  for (const [name, filter] of Object.entries(state.filters)) {
    for (const [key, value] of filterParams(name, filter)) params.append(key, value);
  }
  for (const [key, value] of groupParams(state.groups)) params.append(key, value);
  if (state.columns) params.set('columns', state.columns.join(','));
  if (state.size !== initialSize) params.set('size', String(state.size));
  return params;
}

/** The query string of a list call: the state, the screen's fixed filters, and a page's cursor. */
export function apiQuery(
  state: ListState,
  fixed: FixedFilters,
  page: { limit: number; cursor?: string | null; count?: boolean },
  searchable: boolean,
): string {
  const params = new URLSearchParams();
  params.set('limit', String(page.limit));
  if (state.sort) params.set('sort', state.sort);
  if (searchable && state.q.trim() !== '') params.set('q', state.q.trim());
  for (const [name, filter] of Object.entries(state.filters)) {
    // A screen's own filter on a field wins over the user's.
    if (name in fixed.api) continue;
    for (const [key, value] of filterParams(name, filter)) params.append(key, value);
  }
  for (const [name, value] of Object.entries(fixed.api)) params.set(`filter[${name}]`, value);
  for (const [key, value] of groupParams(state.groups)) params.append(key, value);
  if (page.cursor) params.set('cursor', page.cursor);
  if (page.count) params.set('count', 'true');
  return params.toString();
}

/**
 * The columns of a list: the record's title field first, then its state, then the other fields
 * worth a column (long text is left for the detail screen), at most `max`, then when it was
 * created. Fields a `where` filter fixes (every row has the same value) are left out.
 */
export function listColumns(
  entity: Entity,
  machine: StateMachine | undefined,
  screen: Screen,
  title: Field | undefined,
  { max = 6, model }: { max?: number; model?: Pick<Model, 'entities'> } = {},
): ListField[] {
  const fixed = model ? fixedFields(model, entity, screen) : new Set(screen.filters.map((f) => f.field));
  const columns: ListField[] = [];
  if (title) columns.push({ name: title.name, label: label(title.name), type: title.type, field: title });
  if (machine && !fixed.has('state')) {
    columns.push({
      name: 'state',
      label: 'State',
      type: { kind: 'choice', values: machine.states.map((s) => s.name) },
      field: null,
    });
  }
  for (const field of entity.fields) {
    if (columns.length >= max + (machine ? 1 : 0)) break;
    if (field === title || fixed.has(field.name) || !webKind(field.type).brief) continue;
    columns.push({ name: field.name, label: fieldLabel(field), type: field.type, field });
  }
  columns.push({ name: 'created_at', label: 'Created', type: { kind: 'datetime' }, field: null });
  return columns;
}

/**
 * Every column the list may show, for choosing them: those `listColumns` would give with no
 * limit (long text included), and when the record was last updated.
 */
export function columnChoices(
  entity: Entity,
  machine: StateMachine | undefined,
  screen: Screen,
  title: Field | undefined,
  model?: Pick<Model, 'entities'>,
): ListField[] {
  const fixed = model ? fixedFields(model, entity, screen) : new Set(screen.filters.map((f) => f.field));
  const columns = listColumns(entity, machine, screen, title, {
    max: Number.POSITIVE_INFINITY,
    ...(model ? { model } : {}),
  });
  const created = columns.pop();
  for (const field of entity.fields) {
    if (!webKind(field.type).brief && !fixed.has(field.name)) {
      columns.push({ name: field.name, label: fieldLabel(field), type: field.type, field });
    }
  }
  if (created) columns.push(created);
  columns.push({ name: 'updated_at', label: 'Updated', type: { kind: 'datetime' }, field: null });
  return columns;
}

/**
 * The fields a screen's `where` gives one value on every row: those it names, and the first step
 * of a chain whose further steps are unique (`doctor.account = me` with a unique `account`: one
 * doctor's appointments).
 */
export function fixedFields(model: Pick<Model, 'entities'>, entity: Entity, screen: Screen): Set<string> {
  const fixed = new Set<string>();
  for (const { field: path } of screen.filters) {
    const [first = '', ...rest] = path.split('.');
    fixed.add(path);
    let at: Entity | undefined = entity;
    let step = first;
    let one = true;
    for (const next of rest) {
      const field: Field | undefined = at?.fields.find((f) => f.name === step);
      at =
        field?.type.kind === 'reference'
          ? model.entities.find((e) => e.name === (field.type as { entity: string }).entity)
          : undefined;
      if (!at?.fields.find((f) => f.name === next)?.unique) one = false;
      step = next;
    }
    if (one) fixed.add(first);
  }
  return fixed;
}

/** Every field of a record, for an export: id, the declared fields, state, and the system fields. */
export function exportFields(entity: Entity, machine: StateMachine | undefined): string[] {
  return [
    'id',
    ...entity.fields.map((f) => f.name),
    ...(machine ? ['state'] : []),
    'created_at',
    'updated_at',
    'created_by',
  ];
}

/** Whether a field refers to users (the built-in `User` entity). */
export function refersToUsers(type: FieldType | undefined): boolean {
  return type?.kind === 'reference' && type.entity === USER_ENTITY;
}

/** The users a page's records name, in any field that refers to users: one call names them all. */
export function pageUserIds(entity: Entity, items: readonly Readonly<Record<string, unknown>>[]): string[] {
  const fields = entity.fields.filter((f) => refersToUsers(f.type));
  return items.flatMap((r) => fields.map((f) => r[f.name])).filter((id): id is string => typeof id === 'string');
}
