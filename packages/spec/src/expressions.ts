import type { Environment } from '@marcbachmann/cel-js';
import {
  CEL_DURATION,
  CEL_TIMESTAMP,
  CEL_TYPE_PREFIX,
  CEL_USER_FIELDS,
  celFieldType,
  celSystemFields,
  entityEnvironment,
} from './cel-types.ts';
import type { DiagnosticBag } from './diagnostics.ts';
import { findCounts } from './filled-terms.ts';
import type { Constant, Entity, Model, Span } from './model.ts';
import { USER_ENTITY } from './names.ts';
import { subSpan } from './spans.ts';
import { suggest } from './suggest.ts';

/** One expression to check: a guard or a rule condition, with where it is and what it is about. */
export interface ExpressionItem {
  source: string;
  span: Span;
  entity: string;
  /** The field a field rule applies to (its `value`), or null. */
  field: string | null;
  /** How messages name it, e.g. `The guard of "lend"`. */
  what: string;
  /**
   * Present for a value (a transition's `sets`), not a condition: told the value's CEL type once
   * it type-checks, to judge whether it fits.
   */
  typed?: (type: string) => void;
}

/**
 * Type-checks CEL expressions against an entity: its fields and system fields by name, `user`,
 * `now`, `today`, the constants, and `value` in a field rule.
 *
 * Each entity (and field, for field rules) gets an environment holding only the entity types its
 * expressions reach through references (`book.copies` needs Book). Registering every type in
 * every environment made checking quadratic in the number of entities.
 */
export class ExpressionChecker {
  readonly #entities: Map<string, Entity>;
  readonly #envs = new Map<string, Environment>();
  readonly #constants: Constant[];
  readonly #machines: Set<string>;
  readonly #states: Map<string, string[]>;

  constructor(model: Pick<Model, 'entities' | 'constants' | 'machines'>) {
    this.#entities = new Map(model.entities.map((e) => [e.name, e]));
    this.#constants = model.constants;
    this.#machines = new Set(model.machines.map((m) => m.entity));
    this.#states = new Map(model.machines.map((m) => [m.entity, m.states.map((s) => s.name)]));
  }

  /**
   * Checks the counts of an expression (`count(Review where talk = this)`): the entity, its
   * field that names this record or the user, and its states. Reports each mistake.
   */
  #checkCounts(
    found: ReturnType<typeof findCounts>,
    span: Span,
    entityName: string,
    bag: DiagnosticBag,
    what: string,
  ): boolean {
    let ok = true;
    const grammar =
      'Write count(Entity where field = this), where field of Entity refers to this record (or = user, a field referring to User); "in state a, b" may follow the entity.';
    for (const mistake of found.mistakes) {
      ok = false;
      bag.report(
        'invalid-count',
        subSpan(span, mistake.start, mistake.length),
        `${what} has a count that is not understood.`,
        {
          hint: grammar,
        },
      );
    }
    for (const term of found.terms) {
      const at = subSpan(span, term.start, term.length);
      const counted = this.#entities.get(term.entity);
      if (!counted) {
        ok = false;
        bag.report('unknown-entity', at, `${what} counts "${term.entity}", which point 3 does not define.`, {
          expected: suggest(term.entity, this.#entities.keys()),
        });
        continue;
      }
      // `created_by` is the User who created each record: `count(Talk where created_by = user)`.
      const field =
        term.field === 'created_by'
          ? { name: 'created_by', type: { kind: 'reference' as const, entity: USER_ENTITY } }
          : counted.fields.find((f) => f.name === term.field);
      const wanted = term.target === 'this' ? entityName : USER_ENTITY;
      if (field?.type.kind !== 'reference' || field.type.entity !== wanted) {
        ok = false;
        const fits = counted.fields.filter((f) => f.type.kind === 'reference' && f.type.entity === wanted);
        bag.report(
          'invalid-count',
          at,
          `${what} counts ${term.entity} records whose ${term.field} is ${term.target === 'this' ? `this ${entityName}` : 'the user'}, but ${field ? `${term.entity}.${term.field} does not refer to ${wanted}` : `${term.entity} has no field ${term.field}`}.`,
          {
            expected: suggest(
              term.field,
              fits.map((f) => f.name),
            ),
            hint:
              fits.length > 0
                ? `${term.entity}'s fields referring to ${wanted}: ${fits.map((f) => f.name).join(', ')}.`
                : `${term.entity} has no field referring to ${wanted}.`,
          },
        );
        continue;
      }
      const states = this.#states.get(term.entity);
      for (const state of term.states ?? []) {
        if (states?.includes(state)) continue;
        ok = false;
        bag.report(
          'unknown-state',
          at,
          `${what} counts ${term.entity} records in state "${state}", which ${term.entity} does not have.`,
          {
            expected: suggest(state, states ?? []),
            hint: states
              ? `${term.entity}'s states are ${states.join(', ')}.`
              : `${term.entity} has no states in point 4.`,
          },
        );
      }
    }
    return ok;
  }

  #systemFields(entity: string): Record<string, string> {
    return celSystemFields(this.#machines.has(entity));
  }

  /** The environment for expressions about `entity` (and its `field`), built for the given sources. */
  #env(entity: Entity, field: string | null, sources: readonly string[]): Environment {
    const key = this.#key(entity, field);
    const cached = this.#envs.get(key);
    if (cached) return cached;
    // Only the constants these expressions name: thousands of constants times thousands of
    // entities would otherwise make checking quadratic.
    const named = new Set(sources.flatMap((source) => source.match(/\b[A-Z][A-Z0-9_]*\b/g) ?? []));
    const { env, registered } = entityEnvironment(
      entity,
      orderByReferences(this.#reached(entity, field, sources)),
      this.#constants.filter((c) => named.has(c.name)),
      (name) => this.#machines.has(name),
    );
    const fieldType = entity.fields.find((f) => f.name === field)?.type;
    if (field !== null) env.registerVariable('value', fieldType ? celFieldType(fieldType, registered) : 'dyn');
    this.#envs.set(key, env);
    return env;
  }

  /**
   * Field rules share an environment per type of `value`, not per field: an entity with thousands
   * of fields and a rule on each would otherwise build thousands of environments of that size.
   */
  #key(entity: Entity, field: string | null): string {
    if (field === null) return entity.name;
    const type = entity.fields.find((f) => f.name === field)?.type;
    return `${entity.name}|${type ? (type.kind === 'reference' ? type.entity : celFieldType(type, new Set())) : 'dyn'}`;
  }

  /**
   * Checks every expression, building each environment once for all the expressions that share it.
   * Returns nothing: problems go to `bag`.
   */
  checkAll(items: readonly ExpressionItem[], bag: DiagnosticBag): void {
    const groups = new Map<string, string[]>();
    const keys = items.map((item) => {
      const entity = this.#entities.get(item.entity);
      const key = entity ? this.#key(entity, item.field) : '';
      const group = groups.get(key);
      if (group) group.push(item.source);
      else groups.set(key, [item.source]);
      return key;
    });
    items.forEach((item, i) => {
      const sources = groups.get(keys[i] ?? '') ?? [item.source];
      if (item.typed) {
        const type = this.#typeOf(item.source, item.span, item.entity, bag, item.what, item.field, sources);
        if (type !== null) item.typed(type);
      } else this.check(item.source, item.span, item.entity, bag, item.what, item.field, sources);
    });
  }

  /** Entities reached by `a.b.c` chains in the sources, starting from the entity's fields. */
  #reached(entity: Entity, field: string | null, sources: readonly string[]): Entity[] {
    const reached = new Map<string, Entity>();
    for (const source of sources) {
      const code = source.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""');
      for (const match of code.matchAll(/\b[A-Za-z_][A-Za-z0-9_]*(?:\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)+/g)) {
        const [head, ...rest] = match[0].split('.').map((p) => p.trim());
        const start = head === 'value' && field !== null ? field : head;
        let type = entity.fields.find((f) => f.name === start)?.type;
        for (const part of rest) {
          const target = type?.kind === 'reference' ? this.#entities.get(type.entity) : undefined;
          if (!target) break;
          reached.set(target.name, target);
          type = target.fields.find((f) => f.name === part)?.type;
        }
      }
    }
    return [...reached.values()];
  }

  /**
   * Checks that `source` is a condition (a bool) over `entity`. Reports at the exact place in
   * `span` (the expression's own text) and returns whether it is valid. `sources` are all the
   * expressions about the same entity and field, so their environment is built once.
   */
  check(
    source: string,
    span: Span,
    entityName: string,
    bag: DiagnosticBag,
    what: string,
    field: string | null = null,
    sources: readonly string[] = [source],
  ): boolean {
    const type = this.#typeOf(source, span, entityName, bag, what, field, sources);
    if (type === null) return false;
    if (type === 'bool') return true;
    bag.report(
      'expression-type',
      span,
      `${what} must be a condition (true or false), but "${source}" is ${typeName(type)}.`,
      {
        hint: 'Compare it with something, e.g. "copies > 0".',
      },
    );
    return false;
  }

  #typeOf(
    source: string,
    span: Span,
    entityName: string,
    bag: DiagnosticBag,
    what: string,
    field: string | null,
    sources: readonly string[],
  ): string | null {
    const entity = this.#entities.get(entityName);
    if (!entity) return null;
    const counts = findCounts(source);
    if (!this.#checkCounts(counts, span, entityName, bag, what)) return null;
    let env = this.#env(entity, field, sources);
    for (const term of counts.present) {
      const allowed = ['id', 'created_at', 'updated_at', 'created_by', ...(field !== null ? ['value'] : [])];
      const part = {
        text: term.field,
        span: subSpan(span, source.indexOf(term.field, term.start + 4), term.field.length),
      };
      if (entity.fields.some((f) => f.name === term.field) || allowed.includes(term.field)) continue;
      if (entity.untyped?.includes(term.field)) continue;
      if (bag.reserved(entityName, term.field)) return null;
      bag.report(
        'unknown-field',
        part.span,
        `${what} tests has(${term.field}), but ${entityName} has no field ${term.field}.`,
        {
          expected: suggest(
            term.field,
            entity.fields.map((f) => f.name),
          ),
        },
      );
      return null;
    }
    if (counts.terms.length > 0 || counts.present.length > 0) {
      env = env.clone();
      for (const term of counts.terms) env.registerVariable(term.variable, 'int');
      for (const term of counts.present) env.registerVariable(term.variable, 'bool');
    }
    let result: ReturnType<Environment['check']>;
    try {
      result = env.check(counts.rewritten);
    } catch (error) {
      bag.report('expression-syntax', span, `${what}: ${plainMessage(error)}.`);
      return null;
    }
    if (result.valid) return String(result.type);
    const error = result.error as { code?: string; range?: { start: number; end: number }; name?: string } & Error;
    const range = error.range ?? { start: 0, end: source.length };
    // An error at the end ("unexpected end of input") points at the last character, inside the cell.
    const start = Math.min(range.start, Math.max(0, source.length - 1));
    const at = subSpan(span, start, Math.max(1, Math.min(range.end, source.length) - start));
    const message = plainMessage(error);
    if (error.name === 'ParseError') {
      bag.report('expression-syntax', at, `${what} is not a valid expression: ${message}.`, {
        hint: 'Expressions use CEL: fields by name, == != < <= > >=, && || !, +, -, in, size(), e.g. "due > today && copies > 0".',
      });
    } else if (error.code === 'unknown_variable') {
      const name = source.slice(range.start, range.end);
      const names = this.#names(entityName, field !== null);
      const isConstant = /^[A-Z][A-Z0-9_]*$/.test(name);
      bag.report(
        isConstant ? 'unknown-constant' : 'unknown-field',
        at,
        `${what} uses "${name}", which is not ${isConstant ? 'a constant in point 9' : `a field of ${entityName}`}.`,
        {
          expected: suggest(name, names),
        },
      );
    } else if (error.code === 'no_such_key' || error.code === 'cannot_index_type') {
      const key = source.slice(range.start, range.end).replace(/^\./, '');
      const owner = this.#ownerOf(source.slice(0, range.start), entityName);
      bag.report(
        'unknown-field',
        at,
        `${what} uses "${key}", which is not a field of ${owner?.name ?? 'that value'}.`,
        {
          expected: owner
            ? suggest(key, [...owner.fields.map((f) => f.name), 'id', 'created_at', 'updated_at', 'created_by'])
            : [],
        },
      );
    } else {
      bag.report('expression-type', at, `${what} does not type-check: ${message}.`, { hint: typeHint(message) });
    }
    return null;
  }

  #names(entityName: string, withValue: boolean): string[] {
    const entity = this.#entities.get(entityName);
    return [
      ...(entity?.fields.map((f) => f.name) ?? []),
      ...Object.keys(this.#systemFields(entityName)),
      'user',
      'now',
      'today',
      ...(withValue ? ['value'] : []),
      ...this.#constants.map((c) => c.name),
    ];
  }

  /** The entity whose field follows `prefix` (e.g. "book." → Book), walking references. */
  #ownerOf(prefix: string, entityName: string): Entity | { name: string; fields: { name: string }[] } | null {
    const chain = /([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\.?\s*$/.exec(prefix)?.[1]?.split('.') ?? [];
    let current: Entity | null = this.#entities.get(entityName) ?? null;
    for (const [i, part] of chain.entries()) {
      if (part === 'user' || part === 'created_by') {
        return i === chain.length - 1
          ? { name: USER_ENTITY, fields: Object.keys(CEL_USER_FIELDS).map((name) => ({ name })) }
          : null;
      }
      const type = current?.fields.find((f) => f.name === part)?.type;
      current = type?.kind === 'reference' ? (this.#entities.get(type.entity) ?? null) : null;
      if (type?.kind === 'reference' && type.entity === USER_ENTITY && i === chain.length - 1) {
        return { name: USER_ENTITY, fields: Object.keys(CEL_USER_FIELDS).map((name) => ({ name })) };
      }
    }
    return current;
  }
}

/** Entities ordered so that each comes after the entities it references (cycles broken arbitrarily). */
function orderByReferences(entities: readonly Entity[]): Entity[] {
  const byName = new Map(entities.map((e) => [e.name, e]));
  const done = new Set<string>();
  const visiting = new Set<string>();
  const order: Entity[] = [];
  const visit = (entity: Entity) => {
    if (done.has(entity.name) || visiting.has(entity.name)) return;
    visiting.add(entity.name);
    for (const field of entity.fields) {
      const target = field.type.kind === 'reference' ? byName.get(field.type.entity) : undefined;
      if (target) visit(target);
    }
    visiting.delete(entity.name);
    done.add(entity.name);
    order.push(entity);
  };
  for (const entity of entities) visit(entity);
  return order;
}

/** A CEL type in the words of a message: `a timestamp`, `Book`, `an int`. */
export function typeName(type: string): string {
  return type
    .replace(CEL_TIMESTAMP, 'a timestamp')
    .replace(CEL_DURATION, 'a duration')
    .replaceAll(CEL_TYPE_PREFIX, '')
    .replace(/^(int|double|string|bool)$/, 'a $1');
}

function plainMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0] ?? '')
    .replaceAll(CEL_TIMESTAMP, 'timestamp')
    .replaceAll(CEL_DURATION, 'duration')
    .replaceAll(CEL_TYPE_PREFIX, '')
    .replace(/\.$/, '');
}

/**
 * The hint for a type error, from cel-js's "no such overload: A op B": a date compared with text
 * points at what a date is compared with; a record (a reference, `User`) compared with anything
 * points at its id. Otherwise what each spec type is in expressions.
 */
function typeHint(message: string): string {
  const overload = /no such overload: (\S+) (\S+) (\S+)/.exec(message);
  const types = overload ? [overload[1] ?? '', overload[3] ?? ''] : [];
  if (types.includes('timestamp') && types.includes('string')) {
    return 'A date is a timestamp, not text: compare it with a date constant from point 9 (DEADLINE), with today or now, or with timestamp("2026-01-01T00:00:00Z").';
  }
  // Entities (and User) are the capitalised types; CEL's own are lowercase.
  if (types.some((t) => /^[A-Z]/.test(t))) {
    return 'A reference is a record, not an id: compare ids, e.g. lender.id != borrower.id, or borrower.id == user.id for the signed-in user.';
  }
  return 'Dates are timestamps (compare with now or today), decimals are doubles, references are records (book.copies).';
}
