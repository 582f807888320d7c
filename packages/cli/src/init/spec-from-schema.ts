import { collectionName, ENTITY_NAME, RESERVED_COLLECTIONS, RESERVED_FIELD_NAMES, USER_ENTITY } from '@ninepoint/spec';
import pluralize from 'pluralize';
import type { SourceColumn, SourceSchema, SourceTable } from './source-schema.ts';

/** How a field's values are copied from the source's text (see `copy-rows.ts`). */
export type ValueKind = 'text' | 'integer' | 'decimal' | 'boolean' | 'date' | 'datetime' | 'choice' | 'reference';

export interface FieldPlan {
  /** The source column. */
  column: string;
  name: string;
  /** The type cell: `text`, `decimal(2)`, `choice of a, b`, `Author`. */
  type: string;
  rules: string[];
  meaning: string;
  /** The words screens show, when the name alone would not say it (an abbreviation, a renamed column); else ''. */
  label: string;
  kind: ValueKind;
  /** For a reference: the referenced table and the column its values name a row by. */
  references: { table: string; column: string } | null;
}

export interface EntityPlan {
  table: string;
  entity: string;
  fields: FieldPlan[];
  /** What could not be translated, for the spec's prose and the terminal. */
  notes: string[];
  /** Prose under the heading besides the notes (a join table says what it joins). */
  about: string[];
  /** Columns unique together (a composite key, a unique constraint over several), as point 5's limits. */
  limits: UniqueLimit[];
}

/** `at most 1 Entity per a, b` with its own error code: what a unique constraint over several columns says. */
export interface UniqueLimit {
  rule: string;
  fields: string[];
  code: string;
}

export interface SpecPlan {
  entities: EntityPlan[];
  text: string;
}

/** Words that name a record, so a text column of that name becomes a `long text` when unbounded. */
const PROSE_NAMES = /^(description|body|content|notes?|comments?|summary|bio|details|message|text|about)$/i;
/** Better names for the source's columns that a spec reserves (every record has its own). */
const INSTEAD: Readonly<Record<string, string>> = {
  state: 'status',
  created_at: 'created_on',
  updated_at: 'updated_on',
  created_by: 'creator',
};
/** The longest values `text` and `long text` hold without a length rule (spec-format.md, Field rules). */
const TEXT_MAX = 1000;
const LONG_TEXT_MAX = 100_000;
const CHOICE_VALUE = /^[A-Za-z0-9][A-Za-z0-9 _.-]*$/;

/**
 * Writes a spec from a database's tables: one entity per table (named in the singular,
 * capitalised), a field per column with the type, `required`, `unique`, range, length, default
 * and choices its constraints say, and a reference per single-column foreign key. What has no
 * translation (a composite key, a check that is not a list of values or a simple bound, a type
 * Ninepoint has no field for) is a note under the entity's heading and in `notes`.
 *
 * A table's generated key (`id`) is kept only when a foreign key refers to it, as an optional unique
 * field (`source_id`): new records get Ninepoint's own ids, and the copied rows' references are
 * matched by it.
 */
export function specFromSchema(schema: SourceSchema, title: string): SpecPlan {
  const entityNames = nameEntities(schema.tables);
  const referenced = new Set<string>();
  for (const table of schema.tables) {
    for (const key of table.foreignKeys) {
      if (key.columns.length === 1) referenced.add(`${key.table}.${key.refColumns[0]}`);
    }
  }
  const entities = schema.tables.map((table) => planEntity(table, entityNames, referenced));
  return { entities, text: specText(schema, title, entities) };
}

function nameEntities(tables: readonly SourceTable[]): Map<string, string> {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const table of tables) {
    let name = entityName(table.name);
    if (name === USER_ENTITY || RESERVED_COLLECTIONS.has(collectionName(name))) name = `${name}Record`;
    let unique = name;
    for (let n = 2; taken.has(unique.toLowerCase()) || RESERVED_COLLECTIONS.has(collectionName(unique)); n++) {
      unique = `${name}${n}`;
    }
    taken.add(unique.toLowerCase());
    names.set(table.name, unique);
  }
  return names;
}

/** `order_items` → `OrderItem`, `people` → `Person`, `queue` → `Queue`. */
export function entityName(table: string): string {
  const words = table
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== '');
  if (words.length === 0) return 'Table';
  const last = words.length - 1;
  words[last] = pluralize.singular(words[last] ?? '');
  const name = words.map((w) => w.charAt(0).toUpperCase() + w.slice(1).toLowerCase()).join('');
  return ENTITY_NAME.test(name) ? name : `T${name}`;
}

function planEntity(table: SourceTable, entityNames: Map<string, string>, referenced: Set<string>): EntityPlan {
  const notes: string[] = [];
  const about: string[] = [`From the table \`${table.name}\`.`];
  const fields: FieldPlan[] = [];
  const taken = new Set<string>();
  // A renamed field must not take a name another column has as its own (`state` → `status` beside a `status`).
  const own = new Set(table.columns.map((c) => c.name.toLowerCase()));
  const singleKeys = new Map(table.foreignKeys.filter((k) => k.columns.length === 1).map((k) => [k.columns[0], k]));
  for (const key of table.foreignKeys) {
    if (key.columns.length > 1) {
      notes.push(
        `The foreign key (${key.columns.join(', ')}) → ${key.table} (${key.refColumns.join(', ')}) spans several columns: ` +
          'its columns are kept as plain fields.',
      );
    }
  }
  const joins = table.foreignKeys.filter(
    (k) => k.columns.length === 1 && table.primaryKey.includes(k.columns[0] ?? ''),
  );
  if (table.primaryKey.length >= 2 && joins.length === 2 && joins.length === table.primaryKey.length) {
    const ordered = [...joins].sort(
      (x, y) => table.primaryKey.indexOf(x.columns[0] ?? '') - table.primaryKey.indexOf(y.columns[0] ?? ''),
    );
    const [a, b] = ordered.map((k) => entityNames.get(k.table) ?? k.table);
    about.push(`A join table: it links ${a} and ${b}, many to many; each record is one pair.`);
  }
  const checks = table.checks.map((sql) => ({ sql, used: false }));
  for (const column of table.columns) {
    const key = singleKeys.get(column.name);
    const isPrimary = table.primaryKey.length === 1 && table.primaryKey[0] === column.name;
    const isReferenced = referenced.has(`${table.name}.${column.name}`);
    if (isPrimary && RESERVED_FIELD_NAMES.has(column.name.toLowerCase()) && !isReferenced && !key) continue;
    const plan = planField(column, {
      table,
      key: key ? { table: key.table, column: key.refColumns[0] ?? '', entity: entityNames.get(key.table) } : null,
      isPrimary,
      isUnique: table.uniques.some((u) => u.length === 1 && u[0] === column.name),
      checks,
      notes,
    });
    if (!plan) continue;
    plan.name = freeName(plan.name, column.name, taken, own);
    if (plan.name !== column.name && !plan.meaning.includes(`\`${column.name}\``)) {
      plan.meaning = [`\`${column.name}\` in the source`, plan.meaning].filter((m) => m !== '').join('; ');
    }
    fields.push(plan);
  }
  const labels = new Set<string>();
  for (const field of fields) {
    const label = labelOf(field);
    if (label && !labels.has(label.toLowerCase())) {
      labels.add(label.toLowerCase());
      field.label = label;
    }
  }
  const limits: UniqueLimit[] = [];
  const entity = entityNames.get(table.name) ?? table.name;
  const together = [
    ...(table.primaryKey.length > 1 ? [table.primaryKey] : []),
    ...table.uniques.filter((u) => u.length > 1),
  ];
  for (const columns of together) {
    const names = columns.map((c) => fields.find((f) => f.column === c)?.name);
    const what = table.primaryKey === columns ? 'The primary key' : 'The unique constraint';
    if (names.some((n) => n === undefined)) {
      notes.push(`${what} (${columns.join(', ')}) is not translated: not all its columns are fields.`);
      continue;
    }
    const kept = names as string[];
    if (limits.some((l) => l.fields.join() === kept.join())) continue;
    const n = limits.length + 1;
    limits.push({
      rule: `one ${entity} per ${words(kept)}`,
      fields: kept,
      code: `DUPLICATE_${snake(entity)}${n > 1 ? `_${n}` : ''}`,
    });
  }
  for (const check of checks.filter((c) => !c.used)) notes.push(`The check \`${check.sql}\` is not translated.`);
  if (fields.length === 0) {
    notes.push('No column could be translated; the entity has one text field, `note`, to be valid.');
    fields.push({
      column: '',
      name: 'note',
      type: 'text',
      rules: [],
      meaning: '',
      label: '',
      kind: 'text',
      references: null,
    });
  }
  return { table: table.name, entity, fields, notes, about, limits };
}

interface FieldContext {
  table: SourceTable;
  key: { table: string; column: string; entity: string | undefined } | null;
  isPrimary: boolean;
  isUnique: boolean;
  checks: { sql: string; used: boolean }[];
  notes: string[];
}

function planField(column: SourceColumn, ctx: FieldContext): FieldPlan | null {
  const rules: string[] = [];
  const meanings: string[] = [];
  const note = (text: string) => ctx.notes.push(`\`${column.name}\`: ${text}`);
  const reserved = RESERVED_FIELD_NAMES.has(column.name.toLowerCase());
  // A generated key's value is the source's, not one a person types: kept to match references by.
  const surrogate = ctx.isPrimary && (reserved || column.generated);
  if (ctx.key?.entity) {
    const suffix = new RegExp(`(_id|Id|_fk|_key|_${escapeRegExp(ctx.key.column)})$`);
    const stripped = column.name.replace(suffix, '');
    const free = (n: string) => n !== '' && !RESERVED_FIELD_NAMES.has(n.toLowerCase());
    const name = free(stripped)
      ? stripped
      : free(column.name)
        ? column.name
        : (INSTEAD[column.name.toLowerCase()] ?? `source_${column.name}`);
    if (column.notNull) rules.push('required');
    if (ctx.isUnique || ctx.isPrimary) rules.push('unique');
    return {
      column: column.name,
      name: fieldName(name),
      type: ctx.key.entity,
      rules,
      meaning: meanings.join('; '),
      label: '',
      kind: 'reference',
      references: { table: ctx.key.table, column: ctx.key.column },
    };
  }
  let type: string;
  let kind: ValueKind;
  const listed = column.enumValues ?? choiceCheck(column.name, ctx.checks);
  const choices = listed ? [...new Set(listed)] : null;
  const t = column.type;
  if (choices) {
    // A spec's list trims its values: one with a space at its end would not be the value stored.
    const bad = choices.filter((v) => !CHOICE_VALUE.test(v) || v !== v.trim());
    if (bad.length === 0 && choices.length > 0) {
      type = `choice of ${choices.join(', ')}`;
      kind = 'choice';
    } else {
      type = 'text';
      kind = 'text';
      note(`its values (${choices.map((v) => `"${v}"`).join(', ')}) cannot all be choice values; kept as text.`);
    }
  } else if (/^(big|small|tiny|medium)?int(eger|\d)?$|^(big|small)?serial\d?$|^unsigned big int$/.test(t)) {
    type = 'integer';
    kind = 'integer';
  } else if (/^(numeric|decimal)$/.test(t)) {
    if (column.scale === 0) {
      type = 'integer';
      kind = 'integer';
    } else {
      type = column.scale === null ? 'decimal' : `decimal(${column.scale})`;
      kind = 'decimal';
    }
  } else if (/^(real|double( precision)?|float\d?|money)$/.test(t)) {
    type = 'decimal';
    kind = 'decimal';
    if (t === 'money') note('money is kept as a decimal.');
  } else if (/^bool(ean)?$/.test(t)) {
    type = 'boolean';
    kind = 'boolean';
  } else if (t === 'date') {
    type = 'date';
    kind = 'date';
  } else if (/^(timestamp|datetime)/.test(t)) {
    type = 'datetime';
    kind = 'datetime';
    if (t === 'timestamp without time zone' || t === 'timestamp' || t === 'datetime') {
      meanings.push('read as UTC (the source keeps no time zone)');
    }
  } else if (/^(json|jsonb)$/.test(t)) {
    type = 'long text';
    kind = 'text';
    if ((column.stats?.longest ?? 0) > LONG_TEXT_MAX) rules.push(`at most ${column.stats?.longest} characters`);
    note(`${t} is kept as its JSON text in a long text field.`);
  } else if (/(blob|bytea|binary)/.test(t)) {
    note(`${t} (binary) has no field type: the column is left out.`);
    return null;
  } else if (/\[\]$/.test(t)) {
    type = 'long text';
    kind = 'text';
    if ((column.stats?.longest ?? 0) > LONG_TEXT_MAX) rules.push(`at most ${column.stats?.longest} characters`);
    note(`${t} (a list) is kept as its text, e.g. {1,2}.`);
  } else if (/char|text|clob|string|^uuid$|^citext$|^$/.test(t)) {
    const length = t === 'uuid' ? 36 : column.maxLength;
    if (/^e?mail$|_email$/i.test(column.name)) type = 'email';
    else if ((length !== null && length > 1000) || (length === null && PROSE_NAMES.test(column.name)))
      type = 'long text';
    else type = 'text';
    kind = 'text';
    const longest = column.stats?.longest ?? 0;
    // The data decides where the declaration does not: a field must hold every value copied into it.
    if (type === 'text' && length === null && longest > TEXT_MAX) type = 'long text';
    if (length !== null && !(type === 'email' && length > 254)) rules.push(`at most ${length} characters`);
    else if (type === 'long text' && length === null && longest > LONG_TEXT_MAX)
      rules.push(`at most ${longest} characters`);
    if (t === '') meanings.push('no declared type in the source');
  } else {
    type = 'text';
    kind = 'text';
    note(`${t} has no field type of its own: kept as its text.`);
  }
  // A value the database makes itself (a sequence, a random uuid) is no one's to type in a form.
  const blanks = kind === 'text' || kind === 'choice' ? (column.stats?.blanks ?? 0) : 0;
  if (column.notNull && !surrogate && !column.generated) {
    if (blanks === 0) rules.unshift('required');
    else
      note(
        `NOT NULL is not translated as required: ${blanks === 1 ? 'a row holds' : `${blanks} rows hold`} a blank text, which required refuses.`,
      );
  }
  if (column.generated && !surrogate && column.default !== null) {
    meanings.push(`made by the source database (\`${column.default}\`)`);
  }
  if (ctx.isUnique || ctx.isPrimary) rules.push('unique');
  if (kind === 'integer' || kind === 'decimal') {
    const range = rangeCheck(column.name, kind, ctx.checks);
    if (range) rules.push(range);
  }
  if (column.default !== null && !column.generated && !surrogate) {
    const value = defaultValue(column.default, kind, choices);
    if (value !== null) rules.push(`default ${value}`);
    // An empty text is what an optional field holds anyway: nothing is lost by leaving it out.
    else if (!/^nextval\(|^\(*''(::[\w ."]+)?\)*$/.test(column.default))
      note(`the default \`${column.default}\` is not translated.`);
  }
  if (surrogate) meanings.push(`the row's \`${column.name}\` in the source: copied references are matched by it`);
  let name = column.name;
  if (reserved) name = INSTEAD[column.name.toLowerCase()] ?? (ctx.isPrimary ? 'source_id' : `source_${column.name}`);
  return {
    column: column.name,
    name: fieldName(name),
    type,
    rules,
    meaning: meanings.join('; '),
    label: '',
    kind,
    references: null,
  };
}

/** Abbreviations column names are full of, and the words a hand-written spec's label would use. */
const ABBREVIATIONS: Readonly<Record<string, string>> = {
  dob: 'date of birth',
  qty: 'quantity',
  amt: 'amount',
  desc: 'description',
  descr: 'description',
  addr: 'address',
  tel: 'telephone',
  no: 'number',
  num: 'number',
  nbr: 'number',
  dept: 'department',
  mgr: 'manager',
  pct: 'percent',
  msg: 'message',
  ts: 'time',
  dt: 'date',
  cnt: 'count',
  img: 'image',
  ref: 'reference',
  org: 'organisation',
};

/**
 * A label where the name alone would not say it: a renamed column keeps its own words ("State"
 * for `status` from `state`, not for `source_id`), and abbreviations are written out (`order_qty`
 * → "Order quantity").
 */
function labelOf(field: FieldPlan): string | null {
  if (field.column === '' || field.kind === 'reference' || field.meaning.startsWith("the row's")) return null;
  const words = field.column
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
  const renamed = field.name.toLowerCase() !== field.column.toLowerCase();
  const expanded = words.map((w) => ABBREVIATIONS[w] ?? w);
  if (!renamed && expanded.every((w, i) => w === words[i])) return null;
  const text = expanded.join(' ');
  // A label that only says the name again (`version` from `_version`) is no label.
  if (text === field.name.toLowerCase().replaceAll('_', ' ')) return null;
  const label = text.charAt(0).toUpperCase() + text.slice(1);
  return label.length > 0 && label.length <= 40 ? label : null;
}

/** A column name as a field name: `^[a-z][A-Za-z0-9_]*$`, and not a reserved word. */
function fieldName(column: string): string {
  let name = column.replace(/[^A-Za-z0-9_]+/g, '_').replace(/^[^A-Za-z]+/, '');
  name = name.charAt(0).toLowerCase() + name.slice(1);
  if (name === '') name = 'field';
  return RESERVED_FIELD_NAMES.has(name.toLowerCase()) ? `source_${name}` : name;
}

function freeName(name: string, column: string, taken: Set<string>, own: Set<string>): string {
  const candidates = [name, `source_${column.replace(/[^A-Za-z0-9_]+/g, '_')}`];
  for (const candidate of candidates) {
    const n = fieldName(candidate);
    const another = n.toLowerCase() !== column.toLowerCase() && own.has(n.toLowerCase());
    if (!taken.has(n.toLowerCase()) && !another) {
      taken.add(n.toLowerCase());
      return n;
    }
  }
  for (let i = 2; ; i++) {
    const n = `${fieldName(name)}_${i}`;
    if (!taken.has(n.toLowerCase())) {
      taken.add(n.toLowerCase());
      return n;
    }
  }
}

const LITERAL = /'((?:[^']|'')*)'/g;

/** The values of `CHECK (col IN ('a','b'))`, or PostgreSQL's `(col = ANY (ARRAY['a'::text, …]))`, on this column. */
export function choiceCheck(column: string, checks: { sql: string; used: boolean }[]): string[] | null {
  for (const check of checks) {
    if (check.used) continue;
    const bare = check.sql.replace(LITERAL, "''");
    const ident = `\\(*\\s*["\`\\[]?${escapeRegExp(column)}["\`\\]]?\\s*\\)?(?:::[a-z ]+)?\\s*`;
    const shape = new RegExp(`^${ident}(?:in\\s*\\(|=\\s*any\\s*\\()[^]*$`, 'i');
    if (!shape.test(bare) || /\b(and|or|not)\b/i.test(bare)) continue;
    if (/\b\d/.test(bare.replace(/::[a-z ]+(\[\])?/gi, ''))) continue;
    const values = [...check.sql.matchAll(LITERAL)].map((m) => (m[1] ?? '').replaceAll("''", "'"));
    if (values.length === 0) continue;
    check.used = true;
    return values;
  }
  return null;
}

/** `col >= 0`, `col <= 10`, `col BETWEEN 1 AND 5` (PostgreSQL writes the last as two comparisons) as a range rule. */
export function rangeCheck(
  column: string,
  kind: 'integer' | 'decimal',
  checks: { sql: string; used: boolean }[],
): string | null {
  const ident = `\\(*\\s*["\`\\[]?${escapeRegExp(column)}["\`\\]]?\\s*\\)?(?:::[a-z ]+)?\\s*`;
  const number = '\\(?\\s*(-?\\d+(?:\\.\\d+)?)\\s*\\)?(?:::[a-z ]+)?';
  const comparison = new RegExp(`^${ident}(>=|<=|>|<)\\s*${number}$`, 'i');
  const between = new RegExp(`^${ident}between\\s+${number}\\s+and\\s+${number}$`, 'i');
  let low: number | null = null;
  let high: number | null = null;
  for (const check of checks) {
    if (check.used) continue;
    const parts = stripParens(check.sql)
      .split(/\s+and\s+/i)
      .map((p) => stripParens(p));
    const found: { low?: number; high?: number }[] = [];
    const whole = between.exec(stripParens(check.sql));
    if (whole) found.push({ low: Number(whole[1]), high: Number(whole[2]) });
    else {
      for (const part of parts) {
        const m = comparison.exec(part);
        if (!m) break;
        const n = Number(m[2]);
        if (m[1] === '>=') found.push({ low: n });
        else if (m[1] === '<=') found.push({ high: n });
        else if (kind === 'integer' && Number.isInteger(n)) found.push(m[1] === '>' ? { low: n + 1 } : { high: n - 1 });
        else break;
      }
      if (found.length !== parts.length) continue;
    }
    check.used = true;
    for (const f of found) {
      if (f.low !== undefined) low = low === null ? f.low : Math.max(low, f.low);
      if (f.high !== undefined) high = high === null ? f.high : Math.min(high, f.high);
    }
  }
  if (low !== null && high !== null) return `${low}..${high}`;
  if (low !== null) return `at least ${low}`;
  if (high !== null) return `at most ${high}`;
  return null;
}

function stripParens(sql: string): string {
  let s = sql.trim();
  while (s.startsWith('(') && s.endsWith(')') && balanced(s.slice(1, -1))) s = s.slice(1, -1).trim();
  return s;
}

function balanced(s: string): boolean {
  let depth = 0;
  for (const ch of s) {
    if (ch === '(') depth++;
    else if (ch === ')' && --depth < 0) return false;
  }
  return depth === 0;
}

/** A column default as a spec's `default` value, or null when it has none. */
function defaultValue(sql: string, kind: ValueKind, choices: string[] | null): string | null {
  const s = stripParens(sql).replace(/::[\w ."]+(\[\])?$/, '');
  const literal = /^'((?:[^']|'')*)'$/.exec(s);
  const text = literal ? (literal[1] ?? '').replaceAll("''", "'") : null;
  switch (kind) {
    case 'integer':
      return /^-?\d+$/.test(s) ? s : text !== null && /^-?\d+$/.test(text) ? text : null;
    case 'decimal':
      return /^-?\d+(\.\d+)?$/.test(s) ? s : null;
    case 'boolean': {
      const b = (text ?? s).toLowerCase();
      return b === 'true' || b === '1' ? 'true' : b === 'false' || b === '0' ? 'false' : null;
    }
    case 'date':
      if (/^(current_date|now\(\)|current_timestamp)$/i.test(s)) return 'today';
      return text !== null && /^\d{4}-\d{2}-\d{2}$/.test(text) ? text : null;
    case 'datetime':
      return /^(now\(\)|current_timestamp|localtimestamp|(clock|statement|transaction)_timestamp\(\))$/i.test(s)
        ? 'now'
        : null;
    case 'choice':
      return text !== null && choices?.includes(text) ? text : null;
    case 'text':
      // A comma would split the rules cell; a default of nothing is no default.
      return text !== null && text !== '' && !/[,|\r\n]/.test(text) ? text : null;
    default:
      return null;
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function specText(schema: SourceSchema, title: string, entities: readonly EntityPlan[]): string {
  const notes = entities.reduce((n, e) => n + e.notes.length, 0);
  const lines = [
    `# Specification: ${title}`,
    '',
    '## 1. What the product does and for whom',
    '',
    `Keeps the records of ${schema.description}, read by \`ninepoint init --from\`: ` +
      `${entities.length === 1 ? 'one table' : `${entities.length} tables`}, one entity each.` +
      (notes > 0
        ? ` ${notes === 1 ? 'One thing was' : `${notes} things were`} not translated; each is noted under its entity.`
        : ''),
    '',
    'Say here what the product does and for whom.',
    '',
    '## 2. Screens and routes',
    'Not shown.',
    '',
    '## 3. Entities and their fields',
    '',
  ];
  for (const entity of entities) {
    lines.push(`### ${entity.entity}`, '', ...entity.about.flatMap((a) => [a, '']));
    if (entity.notes.length > 0) {
      lines.push('Not translated:', '', ...entity.notes.map((n) => `- ${n}`), '');
    }
    const withLabel = entity.fields.some((f) => f.label !== '');
    const withMeaning = entity.fields.some((f) => f.meaning !== '');
    const header = ['field', 'type', 'rules', ...(withLabel ? ['label'] : []), ...(withMeaning ? ['meaning'] : [])];
    const rows = entity.fields.map((f) => [
      f.name,
      f.type,
      f.rules.join(', '),
      ...(withLabel ? [f.label] : []),
      ...(withMeaning ? [f.meaning] : []),
    ]);
    lines.push(...markdownTable(header, rows), '');
  }
  const limits = entities.flatMap((e) => e.limits.map((l) => ({ entity: e.entity, ...l })));
  lines.push('## 4. States and transitions', 'Not shown.', '', '## 5. Validation rules', '');
  if (limits.length === 0) lines.push('Not shown.', '');
  else {
    lines.push(
      'The columns the source keeps unique together, as limits.',
      '',
      ...markdownTable(
        ['rule', 'applies to', 'condition', 'error'],
        limits.map((l) => [l.rule, l.entity, `at most 1 ${l.entity} per ${l.fields.join(', ')}`, l.code]),
      ),
      '',
    );
  }
  lines.push('## 6. Roles and permissions', 'Not shown.', '', '## 7. The calls it makes', 'Not shown.', '');
  lines.push('## 8. The error catalogue', '');
  if (limits.length === 0) lines.push('Not shown.', '');
  else {
    lines.push(
      ...markdownTable(
        ['code', 'status', 'message'],
        limits.map((l) => [l.code, '409', `Another ${l.entity} has the same ${words(l.fields)}.`]),
      ),
      '',
    );
  }
  lines.push('## 9. Business constants and limits', 'Not shown.', '');
  return `${lines.join('\n').trimEnd()}\n`;
}

/** `a`, `a and b`, `a, b and c`. */
function words(list: readonly string[]): string {
  return list.length <= 1 ? (list[0] ?? '') : `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}`;
}

/** `BookGenre` → `BOOK_GENRE`. */
function snake(entity: string): string {
  return entity.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
}

function markdownTable(header: string[], rows: string[][]): string[] {
  const cell = (s: string) => s.replaceAll('|', '\\|');
  const all = [header, ...rows].map((r) => r.map(cell));
  const widths = header.map((_, i) => Math.max(3, ...all.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(all[0] ?? []), line(widths.map((w) => '-'.repeat(w))), ...all.slice(1).map(line)];
}
