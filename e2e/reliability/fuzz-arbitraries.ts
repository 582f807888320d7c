import type { CompiledApp, JsonSchema, Route } from '@ninepoint/server';
import { type Entity, type Model, USER_ENTITY } from '@ninepoint/spec';
import fc from 'fast-check';

/**
 * Requests for the calls of a compiled app, derived from its route table and JSON Schemas: list
 * queries, ids, payloads valid by the schema and payloads broken on purpose, transitions with and
 * without bodies, If-Match headers. They name the records the fuzzer has seen (`FuzzPools`), which
 * grow and shrink as the server answers.
 */

/** What the fuzzer knows of the app's data so far: ids per entity (and `User`), cursors per list path. */
export interface FuzzPools {
  ids: Map<string, string[]>;
  /** Ids of records deleted during the run: real once, NOT_FOUND now. */
  deleted: string[];
  cursors: Map<string, string[]>;
}

/** One request, ready to send in-process (`inject`) or over TCP (`fetch`): the URL is already encoded. */
export interface FuzzRequest {
  route: Route;
  /** Index into the fuzzer's actors (users of each role, a visitor, a bad token). */
  actor: number;
  method: string;
  /** Path and query, percent-encoded (possibly on purpose badly). */
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
  /** What kind of case this is, for the failure message and the tally. */
  kind: string;
  /** False when the path was made to match no call (an id that does not decode, or too long). */
  onRoute: boolean;
}

/** Percent-encodes the UTF-8 of a string, as a browser would; a lone surrogate becomes U+FFFD. */
export function pct(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Strings that break naive code: control and format characters, surrogates, normalisation, SQL and LIKE syntax. */
export const NASTY_STRINGS: readonly string[] = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uD800',
  'x\uDC00y',
  '\uDBFF\uDFFF',
  '\uFEFF',
  '\uFFFF',
  '\uFFFE',
  '\u202Eevil',
  '\u200B\u200C\u200D',
  'e\u0301',
  '\u00E9',
  'ﬁ',
  '𝕳𝖊𝖑𝖑𝖔',
  '👩‍👩‍👧‍👦',
  '🇺🇳',
  '\r\n\t\v\f',
  '\u0085\u2028\u2029',
  '%',
  '_',
  '\\',
  '%_\\%',
  "'",
  "' OR '1'='1",
  '"; DROP TABLE books; --',
  '$1',
  '?',
  '\u0024{x}',
  '{{x}}',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  'null',
  'undefined',
  'NaN',
  '-0',
  '1e309',
  'true',
  '[]',
  '{}',
  '\u0000'.repeat(64),
  'ｆｕｌｌｗｉｄｔｈ',
  'İı',
  'ß',
];

/** Numbers at the edges, as JSON text (some of which JSON.stringify cannot write). */
export const EDGE_NUMBERS: readonly string[] = [
  '0',
  '-0',
  '0.0',
  '1',
  '-1',
  '0.1',
  '0.005',
  '1.5',
  '2.675',
  '9007199254740991',
  '9007199254740992',
  '9007199254740993',
  '-9007199254740992',
  '1e15',
  '1e16',
  '1e21',
  '1e308',
  '1e309',
  '-1e309',
  '5e-324',
  '1e-400',
  '123456789012345678901234567890',
  '1.0000000000000002',
  '0.30000000000000004',
  '1E2',
  '4.9999',
  '5000.001',
  '49.999999999999999',
];

/** Malformed JSON texts and texts that are JSON but not an object. */
const NOT_AN_OBJECT: readonly string[] = [
  '',
  ' ',
  '{',
  '}',
  '{"a":}',
  '{"a":1,}',
  "{'a':1}",
  '{a:1}',
  'NaN',
  'undefined',
  '[]',
  '[{}]',
  '"text"',
  '0',
  'null',
  'true',
  '{}{}',
  '\uFEFF{}',
  '{"a":"\\ud800"}',
  '{"a":"\\x00"}',
  '{"a":"\\u00"}',
  '{"__proto__":{"admin":true}}',
  '{"constructor":{"prototype":{"admin":true}}}',
  '{"a":1,"a":2}',
];

const SYSTEM_FIELDS = ['id', 'state', 'created_by', 'created_at', 'updated_at', '_version', 'version'];

/** Junk of every JSON type, nested a little. */
const junk: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom<unknown>(...NASTY_STRINGS),
  fc.constantFrom<unknown>(null, true, false, 0, -1, [], {}, [null], { id: 1 }),
);

/** A date (`YYYY-MM-DD`) some days from today, mostly near it, where rules about "today" decide. */
function dateArbitrary(today: number): fc.Arbitrary<string> {
  return fc
    .oneof({ weight: 6, arbitrary: fc.integer({ min: -45, max: 45 }) }, fc.integer({ min: -400_000, max: 400_000 }))
    .map((days) => new Date(today + days * 86_400_000).toISOString().slice(0, 10));
}

function dateTimeArbitrary(today: number): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.integer({ min: -60 * 24 * 45, max: 60 * 24 * 45 }),
      fc.constantFrom('Z', '+00:00', '+02:00', '-05:30', '+14:00'),
      fc.boolean(),
    )
    .map(([minutes, zone, millis]) => {
      const iso = new Date(today + minutes * 60_000).toISOString();
      const base = millis ? iso.slice(0, 23) : iso.slice(0, 19);
      return `${base}${zone}`;
    });
}

/** Code points (one UTF-16 unit or a surrogate pair each) as JSON Schema's lengths count them. */
function textArbitrary(minLength: number, maxLength: number): fc.Arbitrary<string> {
  const max = Math.max(minLength, Math.min(maxLength, minLength + 40));
  return fc.oneof(
    { weight: 4, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength, maxLength: max }) },
    fc.string({ unit: 'binary', minLength, maxLength: max }),
  );
}

export interface SchemaHooks {
  today: number;
  /** An id of a record of this entity (or `User`), for a reference field. */
  reference: (entity: string) => fc.Arbitrary<string>;
}

/**
 * Values valid by a field's JSON Schema (as `compile/json-schemas.ts` writes them): types, enums,
 * lengths, patterns, ranges, formats; references name known records. Rules of point 5 may still
 * refuse them, which is the server's answer to check, not a fault of the case.
 */
export function valueArbitrary(schema: JsonSchema, hooks: SchemaHooks, referenceTo?: string): fc.Arbitrary<unknown> {
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  const nullable = types.includes('null');
  const type = types.find((t) => t !== 'null');
  let value: fc.Arbitrary<unknown>;
  if (schema.enum) {
    value = fc.constantFrom(...schema.enum.filter((v) => v !== null));
  } else if (referenceTo) {
    value = hooks.reference(referenceTo);
  } else if (type === 'string') {
    value = stringArbitrary(schema, hooks);
  } else if (type === 'integer' || type === 'number') {
    value = numberArbitrary(schema, type);
  } else if (type === 'boolean') {
    value = fc.boolean();
  } else {
    value = junk;
  }
  return nullable ? fc.option(value, { nil: null, freq: 6 }) : value;
}

function stringArbitrary(schema: JsonSchema, hooks: SchemaHooks): fc.Arbitrary<string> {
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : 80;
  const fits = (s: string) => [...s].length >= minLength && [...s].length <= maxLength;
  switch (schema.format) {
    case 'uuid':
      return fc.uuid();
    case 'date':
      return dateArbitrary(hooks.today);
    case 'date-time':
      return dateTimeArbitrary(hooks.today);
    case 'email':
      return fc.emailAddress().filter(fits);
    case 'uri':
      return fc
        .webUrl({ validSchemes: ['http', 'https'], withQueryParameters: true, withFragments: true })
        .filter((u) => /^https?:\/\//.test(u) && fits(u));
  }
  if (typeof schema.pattern === 'string') {
    return fc.stringMatching(new RegExp(schema.pattern)).filter(fits);
  }
  return textArbitrary(minLength, maxLength);
}

function numberArbitrary(schema: JsonSchema, type: 'integer' | 'number'): fc.Arbitrary<number> {
  const min = typeof schema.minimum === 'number' ? schema.minimum : -1e9;
  const max = typeof schema.maximum === 'number' ? schema.maximum : 1e9;
  const step = type === 'integer' ? 1 : typeof schema.multipleOf === 'number' ? schema.multipleOf : null;
  if (step !== null) {
    const low = Math.ceil(min / step);
    const high = Math.floor(max / step);
    const decimals = Math.max(0, Math.round(-Math.log10(step)));
    const of = (n: number) => Number((n * step).toFixed(decimals));
    // Mostly small values near the bottom of the range, where limits of point 5 tend to allow them.
    return fc.oneof(
      { weight: 3, arbitrary: fc.integer({ min: low, max: Math.min(high, low + 100) }).map(of) },
      fc.integer({ min: low, max: high }).map(of),
      fc.constantFrom(low, high).map(of),
    );
  }
  return fc.oneof(fc.double({ min, max, noNaN: true, noDefaultInfinity: true }), fc.constantFrom(min, max));
}

/** An object valid by a payload schema; optional properties come and go. */
export function objectArbitrary(
  schema: JsonSchema,
  hooks: SchemaHooks,
  references: ReadonlyMap<string, string>,
): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties)) {
    model[name] = valueArbitrary(property, hooks, references.get(name));
  }
  return fc.record(model, { requiredKeys: schema.required ?? [] }) as fc.Arbitrary<Record<string, unknown>>;
}

/**
 * A JSON text with some values given as raw JSON (numbers JSON.stringify cannot write, keys an
 * object literal cannot hold): each `raw` entry replaces a placeholder string.
 */
function jsonWithRaw(body: Record<string, unknown>, raw: Record<string, string>): string {
  const placeholders: Record<string, unknown> = { ...body };
  const marks = new Map<string, string>();
  for (const [key, text] of Object.entries(raw)) {
    const mark = `\u0001raw${marks.size}\u0001`;
    marks.set(JSON.stringify(mark), text);
    placeholders[key] = mark;
  }
  let json = JSON.stringify(placeholders);
  for (const [mark, text] of marks) json = json.replace(mark, text);
  return json;
}

/**
 * A payload for a call: valid by its schema, or valid and then broken in one way (a wrong type, a
 * required field missing, an extra or system property, a huge or strange string, a number at the
 * edge, nested junk, duplicate or prototype keys), or not an object at all.
 */
export function payloadArbitrary(
  schema: JsonSchema,
  hooks: SchemaHooks,
  references: ReadonlyMap<string, string>,
  maxBodyBytes: number,
): fc.Arbitrary<{ body: string; kind: string }> {
  const valid = objectArbitrary(schema, hooks, references);
  const names = Object.keys(schema.properties ?? {});
  const stringNames = names.filter((n) => {
    const t = schema.properties?.[n]?.type;
    return t === 'string' || (Array.isArray(t) && t.includes('string'));
  });
  const numberNames = names.filter((n) => {
    const t = schema.properties?.[n]?.type;
    const ts = Array.isArray(t) ? t : [t];
    return ts.includes('integer') || ts.includes('number');
  });
  const required = schema.required ?? [];
  const anyName = names.length > 0 ? fc.constantFrom(...names) : fc.constant('title');
  const cases: { weight: number; arbitrary: fc.Arbitrary<{ body: string; kind: string }> }[] = [
    { weight: 8, arbitrary: valid.map((v) => ({ body: JSON.stringify(v), kind: 'valid' })) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(valid, anyName, junk)
        .map(([v, name, value]) => ({ body: JSON.stringify({ ...v, [name]: value }), kind: 'wrong type' })),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(valid, fc.oneof(fc.constantFrom(...SYSTEM_FIELDS), fc.string({ maxLength: 12 })), junk)
        .map(([v, name, value]) => ({ body: JSON.stringify({ ...v, [name]: value }), kind: 'extra property' })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(valid, fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'))
        .map(([v, key]) => ({
          body: jsonWithRaw(v, { [key]: key === 'constructor' ? '{"prototype":{"polluted":1}}' : '{"polluted":1}' }),
          kind: 'prototype key',
        })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(valid, anyName, junk).map(([v, name, value]) => {
        // A key written twice: JSON.parse keeps the last, a stricter parser might refuse.
        const text = JSON.stringify(v);
        const duplicate = `${JSON.stringify(name)}:${JSON.stringify(value) ?? 'null'}`;
        return { body: text === '{}' ? `{${duplicate}}` : `{${duplicate},${text.slice(1)}`, kind: 'duplicate key' };
      }),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(...NOT_AN_OBJECT)
        .map((body) => ({ body, kind: 'not an object' }))
        .chain((c) =>
          fc.oneof(
            fc.constant(c),
            fc.jsonValue({ maxDepth: 2 }).map((j) => ({ body: JSON.stringify(j) ?? '', kind: c.kind })),
          ),
        ),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(valid, anyName, fc.integer({ min: 20, max: 2000 })).map(([v, name, depth]) => ({
        body: jsonWithRaw(v, { [name]: `${'['.repeat(depth)}${']'.repeat(depth)}` }),
        kind: 'nested junk',
      })),
    },
  ];
  if (required.length > 0) {
    cases.push({
      weight: 2,
      arbitrary: fc.tuple(valid, fc.constantFrom(...required)).map(([v, name]) => {
        const { [name]: _, ...rest } = v;
        return { body: JSON.stringify(rest), kind: 'missing required' };
      }),
    });
  }
  if (stringNames.length > 0) {
    cases.push(
      {
        weight: 2,
        arbitrary: fc
          .tuple(valid, fc.constantFrom(...stringNames), fc.constantFrom(...NASTY_STRINGS))
          .map(([v, name, text]) => ({ body: JSON.stringify({ ...v, [name]: text }), kind: 'unicode edge' })),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(
            valid,
            fc.constantFrom(...stringNames),
            // Around the body limit: just under it still reaches the schema, just over it does not.
            fc.constantFrom(5_000, 70_000, Math.floor(maxBodyBytes * 0.9), maxBodyBytes + 10),
            fc.constantFrom('x', 'é', '😀'),
          )
          .map(([v, name, bytes, char]) => ({
            body: JSON.stringify({ ...v, [name]: char.repeat(Math.ceil(bytes / Buffer.byteLength(char))) }),
            kind: 'huge string',
          })),
      },
    );
  }
  if (numberNames.length > 0) {
    cases.push({
      weight: 2,
      arbitrary: fc
        .tuple(valid, fc.constantFrom(...numberNames), fc.constantFrom(...EDGE_NUMBERS))
        .map(([v, name, text]) => ({ body: jsonWithRaw(v, { [name]: text }), kind: 'edge number' })),
    });
  }
  return fc.oneof(...cases);
}

/** The entity each reference field of an entity points to, by field name. */
export function referencesOf(entity: Entity | undefined): Map<string, string> {
  const map = new Map<string, string>();
  for (const field of entity?.fields ?? []) {
    if (field.type.kind === 'reference') map.set(field.name, field.type.entity);
  }
  return map;
}

/** Entities in an order where each comes after those it refers to (User aside). */
export function creationOrder(model: Model): Entity[] {
  const done = new Set<string>([USER_ENTITY]);
  const order: Entity[] = [];
  let left = [...model.entities];
  while (left.length > 0) {
    const ready = left.filter((e) => [...referencesOf(e).values()].every((t) => done.has(t) || t === e.name));
    const next = ready.length > 0 ? ready : left.slice(0, 1);
    for (const e of next) {
      order.push(e);
      done.add(e.name);
    }
    left = left.filter((e) => !next.includes(e));
  }
  return order;
}

/** A value picked from a pool that changes during the run (by index, so that a seed replays the same picks). */
export function pick(pool: () => readonly string[], fallback: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.tuple(fc.nat(), fallback).map(([n, other]) => {
    const items = pool();
    return items.length > 0 ? (items[n % items.length] as string) : other;
  });
}

/** Ids for a path parameter: known records mostly, else unknown UUIDs, deleted ones, malformed text. */
function idArbitrary(entity: string, pools: FuzzPools): fc.Arbitrary<{ segment: string; onRoute: boolean }> {
  const encoded = (a: fc.Arbitrary<string>) => a.map((id) => ({ segment: pct(id), onRoute: true }));
  return fc.oneof(
    { weight: 10, arbitrary: encoded(pick(() => pools.ids.get(entity) ?? [], fc.uuid())) },
    { weight: 2, arbitrary: encoded(fc.uuid({ version: 7 })) },
    { weight: 1, arbitrary: encoded(pick(() => pools.deleted, fc.uuid())) },
    {
      weight: 1,
      arbitrary: encoded(
        fc.oneof(
          fc.constantFrom(...NASTY_STRINGS.filter((s) => s !== '')),
          fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }),
          fc.uuid().map((u) => u.toUpperCase()),
          fc.uuid().map((u) => `${u} `),
          fc.uuid().map((u) => u.replaceAll('-', '')),
          fc.constantFrom('0', '-1', '1e3', 'null', '00000000-0000-0000-0000-000000000000'),
        ),
      ),
    },
    // Percent-escapes that do not decode (to UTF-8), and an id longer than a path parameter may
    // be (Fastify's maxParamLength, 100): such paths match no call, and answer UNKNOWN_CALL.
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        { segment: '%FF%FE', onRoute: false },
        { segment: '%C3%28', onRoute: false },
        { segment: '%ED%A0%80', onRoute: false },
        { segment: '%00', onRoute: true },
        { segment: '%', onRoute: false },
        { segment: '%zz', onRoute: false },
        { segment: 'a'.repeat(101), onRoute: false },
      ),
    },
  );
}

/** Query parameters for a list call: its sorts, filters, search, limits and cursors, right and wrong. */
function listQueryArbitrary(route: Route, pools: FuzzPools, hooks: SchemaHooks): fc.Arbitrary<string> {
  const list = route.list;
  if (!list) return fc.constant('');
  const sorts = [...list.sortable.keys()];
  const filters = [...list.filterable.entries()];
  const text = fc.oneof(fc.constantFrom(...NASTY_STRINGS), fc.string({ unit: 'binary', maxLength: 20 }));
  const sortValue = fc.oneof(
    { weight: 4, arbitrary: fc.tuple(fc.constantFrom(...sorts), fc.boolean()).map(([s, d]) => (d ? `-${s}` : s)) },
    fc.constantFrom('--id', '-', '', 'password', 'id,title', '+id', 'ID'),
    text,
  );
  const filterValue = (field: string): fc.Arbitrary<string> => {
    const type = list.filterable.get(field);
    const typed: fc.Arbitrary<string> = (() => {
      switch (type?.kind) {
        case 'choice':
          return fc.constantFrom(...type.values);
        case 'integer':
          return fc.oneof(fc.integer({ min: -5, max: 100 }).map(String), fc.constantFrom(...EDGE_NUMBERS));
        case 'decimal':
          return fc.oneof(
            fc.double({ noNaN: true, min: -10, max: 6000 }).map(String),
            fc.constantFrom(...EDGE_NUMBERS),
          );
        case 'boolean':
          return fc.constantFrom('true', 'false', '1', '0', 'yes', 'TRUE');
        case 'date':
          return dateArbitrary(hooks.today);
        case 'datetime':
          return dateTimeArbitrary(hooks.today);
        case 'reference':
          return pick(() => [...pools.ids.values()].flat(), fc.uuid());
        default:
          return fc.string({ maxLength: 8 });
      }
    })();
    return fc.oneof({ weight: 3, arbitrary: typed }, text);
  };
  const pair: fc.Arbitrary<[string, string]> = fc.oneof(
    fc.tuple(
      fc.constant('limit'),
      fc.oneof(fc.integer({ min: -2, max: 1200 }).map(String), fc.constantFrom('', 'abc', '1.5', '1e2', '0x10', ' 5')),
    ),
    fc.tuple(
      fc.constant('cursor'),
      fc.oneof(
        { weight: 3, arbitrary: pick(() => pools.cursors.get(route.path) ?? [], fc.base64String({ maxLength: 40 })) },
        pick(() => pools.cursors.get(route.path) ?? [], fc.constant('x')).map((c) => `${c.slice(0, -2)}AA`),
        fc.base64String({ maxLength: 60 }),
        text,
      ),
    ),
    fc.tuple(fc.constant('sort'), sortValue),
    fc.tuple(fc.constant('q'), fc.oneof(text, fc.constant('q'.repeat(1001)))),
    fc.tuple(fc.constant('count'), fc.constantFrom('true', 'false', '1', '', 'yes')),
    ...(filters.length > 0
      ? [
          fc
            .constantFrom(...filters.map(([f]) => f))
            .chain((f) => fc.tuple(fc.constant(`filter[${f}]`), filterValue(f))),
        ]
      : []),
    fc.tuple(fc.constantFrom('filter[nope]', 'filter[', 'filter[]', 'filter', 'filter[id]', 'sort[]', 'x', ''), text),
  );
  return fc
    .tuple(
      fc.array(pair, { maxLength: 5 }),
      // Escapes that do not decode, appended raw: the query string is what a client sent.
      rarely(fc.constantFrom('q=%FF%FE', 'filter[title]=%C3%28', 'limit=%00', 'q=%', 'sort=%zz', '%FF=1'), 8),
    )
    .map(([pairs, raw]) => {
      const parts = pairs.map(([k, v]) => `${pct(k).replace(/%5B/g, '[').replace(/%5D/g, ']')}=${pct(v)}`);
      if (raw) parts.push(raw);
      return parts.join('&');
    });
}

/** A value one time in `n`, else undefined. */
function rarely<T>(arbitrary: fc.Arbitrary<T>, n: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: n - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
}

const IF_MATCH = fc.oneof(
  fc.constantFrom('"1"', '"2"', '"3"', '*', 'W/"1"', '"1", "2"', '""', '"abc"', '"999999999999999999"', '1'),
  fc.string({ unit: 'grapheme-ascii', maxLength: 12 }),
);

const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=latin1',
  'application/JSON',
  'application/merge-patch+json',
  'application/json;',
  '*/*',
];

/**
 * Every call of the route table, as requests: list with random queries, get/update/delete and
 * transitions with known, unknown and malformed ids, bodies valid and mutated, with and without
 * If-Match, by each of the actors: `users` first in the caller's list, then `strangers`.
 */
export function requestArbitrary(
  compiled: CompiledApp,
  pools: FuzzPools,
  actors: { users: number; strangers: number },
  hooks: SchemaHooks,
): fc.Arbitrary<FuzzRequest> {
  // Users (indexes first) call most; visitors and bad credentials, whose calls stop at the
  // permission check, one call in six.
  const actor = fc.oneof(
    { weight: 5, arbitrary: fc.nat({ max: actors.users - 1 }) },
    {
      weight: actors.strangers > 0 ? 1 : 0,
      arbitrary: fc.nat({ max: Math.max(0, actors.strangers - 1) }).map((n) => actors.users + n),
    },
  );
  const { routes } = compiled.routeTable;
  const maxBody = compiled.settings.MAX_BODY_BYTES;
  return fc
    .constantFrom(...routes)
    .chain((route) => {
      const entity = compiled.model.entities.find((e) => e.name === route.action.entity);
      const references = referencesOf(entity);
      const id = route.params.length > 0 ? idArbitrary(route.action.entity, pools) : fc.constant(null);
      const query = route.action.kind === 'list' ? listQueryArbitrary(route, pools, hooks) : fc.constant('');
      const reads = route.method === 'GET';
      const body: fc.Arbitrary<{ body: string; kind: string } | null> = reads
        ? fc.constant(null)
        : route.body
          ? fc.oneof(
              { weight: 8, arbitrary: payloadArbitrary(route.body.schema, hooks, references, maxBody) },
              fc.constantFrom(null, { body: '{}', kind: 'empty object' }),
            )
          : // A call without a payload still has its body read: none, `{}`, or something else.
            fc.oneof(
              { weight: 4, arbitrary: fc.constant(null) },
              fc.constant({ body: '{}', kind: 'empty object' }),
              payloadArbitrary(
                { type: 'object', properties: {}, additionalProperties: false },
                hooks,
                references,
                maxBody,
              ),
            );
      return fc.record({
        route: fc.constant(route),
        actor,
        id,
        query,
        body,
        ifMatch: reads ? fc.constant(undefined) : rarely(IF_MATCH, 3),
        contentType: rarely(fc.constantFrom(...CONTENT_TYPES), 12),
      });
    })
    .map(({ route, actor, id, query, body, ifMatch, contentType }): FuzzRequest => {
      const param = route.params[0];
      const path = param && id ? route.path.replace(`:${param}`, id.segment) : route.path;
      const headers: Record<string, string> = {};
      if (body !== null) headers['content-type'] = contentType ?? 'application/json';
      if (ifMatch !== undefined) headers['if-match'] = ifMatch;
      const kind = route.action.kind === 'list' ? 'list' : body === null ? `${route.action.kind}, no body` : body.kind;
      return {
        route,
        actor,
        method: route.method,
        url: query ? `${path}?${query}` : path,
        headers,
        body: body?.body,
        kind: contentType && body !== null ? `${kind}, ${contentType}` : kind,
        onRoute: id?.onRoute ?? true,
      };
    });
}
