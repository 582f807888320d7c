import {
  type CompiledModelExpressions,
  chainsOf,
  compileExpressions,
  describeType,
  type Entity,
  type Field,
  type FieldType,
  findCounts,
  type LimitPeriod,
  limitGroupWords,
  type Model,
  type Rule,
} from '@ninepoint/spec';
import type { ValidateFunction } from 'ajv';
import { createAjv } from './ajv.ts';
import { SERVER_FIELD_KINDS } from './field-kinds.ts';
import { fieldSchema } from './json-schemas.ts';
import { periodBounds } from './limit-period.ts';
import {
  ALLOW_DESTRUCTIVE_FLAG,
  type MigrationPlan,
  type MigrationProbe,
  type MigrationStep,
  type MigrationStepKind,
  type PlanInput,
  type ProbedRow,
  type SchemaChange,
  type StepSafety,
} from './migration-contract.ts';
import { plural } from './migration-report.ts';
import type { ApiRecord, Value } from './record-types.ts';
import type { SqlColumn, SqlIndex, SqlTable } from './sql-schema.ts';

/**
 * Diffs the spec against what the database was last migrated to, reading the rows each step
 * concerns through the probe. It changes nothing.
 *
 * @example
 * const plan = await planMigration({ previous, model, schema: compileSqlSchema(model), probe });
 * console.log(formatMigrationPlan(plan, { allowDestructive: false, mode: 'plan' }));
 */
export async function planMigration(input: PlanInput): Promise<MigrationPlan> {
  const context = new PlanContext(input);
  const steps: MigrationStep[] = [];
  const tables: SqlTable[] = [];
  for (const table of input.schema.tables) {
    const planned = await planLiveTable(context, table);
    steps.push(...planned.steps);
    tables.push(planned.layout);
  }
  const live = new Set(input.schema.tables.map((t) => t.name));
  for (const previous of input.previous?.tables ?? []) {
    if (live.has(previous.name)) continue;
    const planned = await planKeptTable(context, previous);
    if (!planned) continue;
    steps.push(...planned.steps);
    tables.push(planned.layout);
  }
  return { steps, tables };
}

class PlanContext {
  readonly model: Model;
  readonly previousModel: Model | null;
  readonly previousTables: ReadonlyMap<string, SqlTable>;
  readonly probe: MigrationProbe;
  readonly now: Date;
  #expressions: CompiledModelExpressions | undefined;
  #ajv: ReturnType<typeof createAjv> | undefined;

  constructor(input: PlanInput) {
    this.model = input.model;
    this.previousModel = input.previous?.model ?? null;
    this.previousTables = new Map((input.previous?.tables ?? []).map((t) => [t.name, t]));
    this.probe = input.probe;
    this.now = input.now ?? new Date();
  }

  /** Compiled only when a rule must be checked against rows. */
  get expressions(): CompiledModelExpressions {
    this.#expressions ??= compileExpressions(this.model);
    return this.#expressions;
  }

  /** The check the API makes of a field's value, so stored values are judged as a request's would be. */
  validator(field: Field): ValidateFunction {
    this.#ajv ??= createAjv();
    return this.#ajv.compile(fieldSchema(field, true));
  }
}

/** Counts over one pass of a table's rows: every check of a table shares the scan. */
class Scan {
  readonly #visitors: ((row: ProbedRow, record: () => ApiRecord) => void)[] = [];

  /** A counter of the rows for which `test` holds, filled in by `run`. */
  count(test: (row: ProbedRow, record: () => ApiRecord) => boolean): { n: number } {
    const counter = { n: 0 };
    this.#visitors.push((row, record) => {
      if (test(row, record)) counter.n++;
    });
    return counter;
  }

  visit(visitor: (row: ProbedRow, record: () => ApiRecord) => void): void {
    this.#visitors.push(visitor);
  }

  async run(
    probe: MigrationProbe,
    table: string,
    columns: readonly SqlColumn[],
    toRecord: (row: ProbedRow) => ApiRecord,
  ): Promise<void> {
    if (this.#visitors.length === 0) return;
    for await (const row of probe.rows(table, columns)) {
      let record: ApiRecord | undefined;
      const lazyRecord = () => {
        record ??= toRecord(row);
        return record;
      };
      for (const visit of this.#visitors) visit(row, lazyRecord);
    }
  }
}

interface PlannedTable {
  steps: MigrationStep[];
  layout: SqlTable;
}

async function planLiveTable(context: PlanContext, table: SqlTable): Promise<PlannedTable> {
  const entity = context.model.entities.find((e) => e.name === table.entity);
  if (!entity) throw new Error(`The schema's table ${table.name} belongs to ${table.entity}, which the model lacks.`);
  const actual = await context.probe.columns(table.name);
  const at = { entity: entity.name, table: table.name };
  if (actual === null) {
    const step = makeStep(
      at,
      'create-table',
      'safe',
      0,
      `Create table ${table.name} for the new entity ${entity.name}.`,
    );
    step.changes.push({ kind: 'create-table', table });
    return { steps: [step], layout: table };
  }

  const previous = context.previousTables.get(table.name) ?? null;
  const previousModel = context.previousModel;
  const previousEntity = previous && previousModel ? findEntity(previousModel, previous.entity) : null;
  // The entity was removed earlier and its table kept: now it is back.
  const restored = previous !== null && previousModel !== null && previousEntity === null;
  const rows = await context.probe.rowCount(table.name);
  const machine = context.model.machines.find((m) => m.entity === entity.name);
  const have = new Map(actual.map((c) => [c.name, c]));
  const scan = new Scan();
  /** Steps whose outcome depends on the scan, in order; run once it is done. */
  const later: (() => MigrationStep | null)[] = [];
  const layout: SqlColumn[] = table.columns.map((c) => ({ ...c }));
  /** What an empty cell of a column reads as once the plan is applied: its fill, for checking rules. */
  const fills = new Map<string, Value>();
  const handledIndexes = new Set<string>();
  /** The columns as they are stored now, to read them with their stored types. */
  const stored: SqlColumn[] = [];

  if (restored) {
    later.push(() =>
      makeStep(
        at,
        'restore-table',
        'safe',
        rows,
        `Entity ${entity.name} is back: the ${plural(rows, 'row')} kept in table ${table.name} since it was removed ${verb(rows, 'is', 'are')} served again.`,
      ),
    );
  }

  for (const [i, column] of table.columns.entries()) {
    const field = column.field === null ? null : (entity.fields.find((f) => f.name === column.field) ?? null);
    const where = { ...at, field: column.field, column: column.name };
    const fill = fillOf(context, column, field, machine?.initial ?? null);
    const unique = isUnique(table, column.name);
    const existing = have.get(column.name);
    if (!existing) {
      if (fill !== null) fills.set(column.name, fill);
      later.push(() => {
        const empty = emptyColumn(column, fill, rows, unique);
        layout[i] = empty.column;
        const what = field ? `the new field ${entity.name}.${field.name}` : `the system column ${column.name}`;
        const kind = empty.safety === 'needs-flag' ? 'add-required-column' : 'add-column';
        const step = makeStep(
          where,
          kind,
          empty.safety,
          empty.rows,
          `Add column ${table.name}.${column.name} for ${what}.`,
        );
        step.summary += empty.note;
        step.advice = empty.advice;
        step.changes.push({ kind: 'add-column', table: table.name, column: empty.column, fill: empty.fill });
        return step;
      });
      continue;
    }

    const before = previous?.columns.find((c) => c.name === column.name) ?? null;
    stored.push(before ?? column);
    const beforeField =
      before?.field && previousEntity ? (previousEntity.fields.find((f) => f.name === before.field) ?? null) : null;
    // A column kept when its field was removed, and the field is back.
    const kept =
      before !== null && previousModel !== null && !restored && !liveIn(previousModel, previous?.entity ?? '', before);
    if (before && !before.references?.table && column.references?.table) {
      // A kept column lost its foreign key; the runtime checks references on every write, so it is not re-added.
      layout[i] = { ...(layout[i] as SqlColumn), references: null };
    }

    if (before && typeChanged(before, column, beforeField, field)) {
      const values = scan.count((row) => row[column.name] != null);
      if (fill !== null) fills.set(column.name, fill);
      later.push(() => {
        const change = `${field ? `${entity.name}.${field.name}` : `Column ${table.name}.${column.name}`} changes type from ${typeLabel(before, beforeField)} to ${typeLabel(column, field)}`;
        if (values.n > 0) {
          const step = makeStep(
            where,
            'change-type',
            'refused',
            values.n,
            `${change}; ${plural(values.n, 'row')} ${verb(values.n, 'holds', 'hold')} a value.`,
          );
          step.advice =
            `A type change is refused even with ${ALLOW_DESTRUCTIVE_FLAG}, as the values could not all be kept. To change it ` +
            'safely: add a new field of the new type, copy the values into it (through the API), then remove the old field.';
          layout[i] = { ...before, references: null };
          return step;
        }
        const empty = emptyColumn(column, fill, rows, unique);
        layout[i] = { ...empty.column, references: (layout[i] as SqlColumn).references };
        const step = makeStep(
          where,
          'change-type',
          empty.safety,
          empty.rows,
          `${change}; no row holds a value, so the column is recreated.`,
        );
        step.summary += empty.note;
        step.advice = empty.advice;
        step.changes.push({
          kind: 'recreate-column',
          table: table.name,
          column: layout[i] as SqlColumn,
          fill: empty.fill,
        });
        return step;
      });
      continue;
    }

    if (kept) {
      const values = scan.count((row) => row[column.name] != null);
      const check = field ? context.validator(field) : null;
      const invalid = scan.count((row) => {
        const value = row[column.name];
        return check !== null && value != null && !check(value);
      });
      later.push(() => {
        const name = field ? `Field ${entity.name}.${field.name}` : `Column ${table.name}.${column.name}`;
        const back = `${name} is back: the ${plural(values.n, 'value')} kept in ${table.name}.${column.name} since it was removed ${verb(values.n, 'is', 'are')} served again`;
        if (invalid.n === 0) return makeStep(where, 'restore-column', 'safe', values.n, `${back}.`);
        const step = makeStep(
          where,
          'restore-column',
          'needs-flag',
          invalid.n,
          `${back}, but ${invalid.n} of them ${verb(invalid.n, 'breaks', 'break')} the field's rules.`,
        );
        step.advice = brokenRowsAdvice();
        return step;
      });
    }

    if (column.notNull && !existing.notNull) {
      const nulls = scan.count((row) => row[column.name] == null);
      if (fill !== null) fills.set(column.name, fill);
      // Required already, and left accepting empty values by an earlier migration with the flag: the
      // rows it allowed to stay empty are not asked about again; once none is left, NOT NULL is added.
      const allowedEarlier = before !== null && !before.notNull && beforeField?.required === true && !kept;
      later.push(() => {
        if (allowedEarlier && nulls.n > 0 && fill === null) {
          layout[i] = { ...(layout[i] as SqlColumn), notNull: false };
          return null;
        }
        const name = field ? `${entity.name}.${field.name}` : `Column ${table.name}.${column.name}`;
        const becomes = field ? `${name} is now required` : `${name} is now always set`;
        if (nulls.n === 0) {
          const said = allowedEarlier
            ? `Every row has a value for ${name} now, so column ${table.name}.${column.name} refuses empty values again.`
            : `${becomes}; every row has a value.`;
          const step = makeStep(where, 'require-column', 'safe', 0, said);
          step.changes.push({ kind: 'set-not-null', table: table.name, column: column.name });
          return step;
        }
        if (fill !== null) {
          const step = makeStep(
            where,
            'require-column',
            'safe',
            nulls.n,
            `${becomes}; the ${plural(nulls.n, 'row')} without a value ${verb(nulls.n, 'gets', 'get')} ${showValue(fill)}.`,
          );
          step.changes.push(
            { kind: 'fill-nulls', table: table.name, column: column.name, value: fill },
            { kind: 'set-not-null', table: table.name, column: column.name },
          );
          return step;
        }
        layout[i] = { ...(layout[i] as SqlColumn), notNull: false };
        const step = makeStep(
          where,
          'require-column',
          'needs-flag',
          nulls.n,
          `${becomes}, but ${plural(nulls.n, 'row')} ${verb(nulls.n, 'has', 'have')} no value for it.`,
        );
        step.advice =
          `With ${ALLOW_DESTRUCTIVE_FLAG} those rows stay empty (the column keeps accepting empty values) until they are ` +
          'edited, when a value is required. Or give the field a default, which fills them.';
        return step;
      });
    } else if (!column.notNull && existing.notNull) {
      const step = makeStep(
        where,
        'relax-column',
        'safe',
        0,
        field
          ? `${entity.name}.${field.name} is now optional: column ${table.name}.${column.name} accepts empty values.`
          : `Column ${table.name}.${column.name} accepts empty values.`,
      );
      step.changes.push({ kind: 'drop-not-null', table: table.name, column: column.name });
      later.push(() => step);
    }

    if (field && beforeField && rows > 0) {
      const narrowed = narrowings(beforeField, field);
      if (narrowed.length > 0) {
        const check = context.validator(field);
        const broken = scan.count((row) => {
          const value = row[column.name];
          return value != null && !check(value);
        });
        later.push(() => {
          const what = `${entity.name}.${field.name} must now be ${narrowed.join(', ')}`;
          if (broken.n === 0) return makeStep(where, 'tighten-field', 'safe', 0, `${what}; every row satisfies it.`);
          const step = makeStep(
            where,
            'tighten-field',
            'needs-flag',
            broken.n,
            `${what}, but ${plural(broken.n, 'row')} ${verb(broken.n, 'breaks', 'break')} it.`,
          );
          step.advice = brokenRowsAdvice();
          return step;
        });
      }
    }

    const uniqueBefore = previous ? isUnique(previous, column.name) : unique;
    if (unique && !uniqueBefore && rows > 0) {
      const index = uniqueIndex(table, column.name);
      if (index) handledIndexes.add(index.name);
      const seen = new Map<string, number>();
      scan.visit((row) => {
        const value = row[column.name];
        if (value == null) return;
        const key = `${typeof value}:${String(value)}`;
        seen.set(key, (seen.get(key) ?? 0) + 1);
      });
      later.push(() => {
        let shared = 0;
        for (const n of seen.values()) if (n > 1) shared += n;
        const name = field ? `${entity.name}.${field.name}` : `Column ${table.name}.${column.name}`;
        if (shared === 0) {
          const step = makeStep(where, 'make-unique', 'safe', 0, `${name} is now unique; no two rows share a value.`);
          if (index) step.changes.push({ kind: 'add-index', table: table.name, index });
          return step;
        }
        const step = makeStep(
          where,
          'make-unique',
          'refused',
          shared,
          `${name} is now unique, but ${shared} rows share values with other rows.`,
        );
        step.advice = `Uniqueness cannot be enforced over duplicates, even with ${ALLOW_DESTRUCTIVE_FLAG}: make those values distinct first (with the current spec), then apply this one.`;
        return step;
      });
    }
  }

  // Columns the database has and the spec does not: removed fields (kept, never dropped), or kept earlier.
  const keptColumns: SqlColumn[] = [];
  for (const existing of actual) {
    if (table.columns.some((c) => c.name === existing.name)) continue;
    const before = previous?.columns.find((c) => c.name === existing.name) ?? null;
    const column: SqlColumn = before
      ? {
          ...before,
          primaryKey: false,
          notNull: false,
          references: before.references?.table ? null : before.references,
        }
      : unknownColumn(existing.name);
    keptColumns.push(column);
    stored.push(before ?? column);
    const changes: SchemaChange[] = [];
    if (existing.notNull) changes.push({ kind: 'drop-not-null', table: table.name, column: existing.name });
    if (before?.references?.table) changes.push({ kind: 'drop-reference', table: table.name, column: existing.name });
    const keptEarlier =
      before !== null && previousModel !== null && !liveIn(previousModel, previous?.entity ?? '', before);
    const where = { ...at, field: before?.field ?? null, column: existing.name };
    if (keptEarlier) {
      if (changes.length > 0) {
        const step = makeStep(
          where,
          'keep-column',
          'safe',
          0,
          `Kept column ${table.name}.${existing.name} no longer blocks new rows.`,
        );
        step.changes.push(...changes);
        later.push(() => step);
      }
      continue;
    }
    const values = scan.count((row) => row[existing.name] != null);
    later.push(() => {
      const what = keptColumnLabel(before, entity.name, table.name, existing.name, machine !== undefined);
      const step = makeStep(
        where,
        'keep-column',
        values.n > 0 ? 'needs-flag' : 'safe',
        values.n,
        values.n > 0
          ? `${what}; ${plural(values.n, 'row')} ${verb(values.n, 'holds', 'hold')} a value in ${table.name}.${existing.name}.`
          : `${what}; no row holds a value. Column ${table.name}.${existing.name} is kept, no longer served.`,
      );
      step.changes.push(...changes);
      if (values.n > 0) {
        step.advice =
          `With ${ALLOW_DESTRUCTIVE_FLAG} the column and its values are kept in the database (never dropped) but no ` +
          'longer served; putting the field back in the spec serves them again.';
      }
      return step;
    });
  }

  if (previous) {
    const before = new Set(previous.indexes.map((i) => i.name));
    for (const index of table.indexes) {
      if (before.has(index.name) || handledIndexes.has(index.name)) continue;
      const step = makeStep(
        at,
        'add-index',
        'safe',
        0,
        `Add ${index.unique ? 'unique ' : ''}index ${index.name} on ${table.name} (${index.columns.join(', ')}).`,
      );
      step.changes.push({ kind: 'add-index', table: table.name, index });
      later.push(() => step);
    }
    const after = new Set(table.indexes.map((i) => i.name));
    for (const index of previous.indexes) {
      if (after.has(index.name)) continue;
      const step = makeStep(
        at,
        'drop-index',
        'safe',
        0,
        `Drop index ${index.name}: the spec no longer needs it (an index holds no data).`,
      );
      step.changes.push({ kind: 'drop-index', table: table.name, index: index.name });
      later.push(() => step);
    }
  }

  if (previousModel && rows > 0) planRules(context, entity, table, scan, later, previousModel);

  if (rows > 0) {
    const toRecord = (row: ProbedRow): ApiRecord => {
      const record: ApiRecord = {};
      for (const column of table.columns) record[column.name] = row[column.name] ?? fills.get(column.name) ?? null;
      return record;
    };
    await scan.run(context.probe, table.name, stored, toRecord);
  }
  const steps = later.map((make) => make()).filter((s): s is MigrationStep => s !== null);
  return { steps, layout: { ...table, columns: [...layout, ...keptColumns] } };
}

/** Steps for the new and changed rules of an entity whose table has rows. */
function planRules(
  context: PlanContext,
  entity: Entity,
  table: SqlTable,
  scan: Scan,
  later: (() => MigrationStep | null)[],
  previousModel: Model,
): void {
  const machine = context.model.machines.find((m) => m.entity === entity.name);
  for (const rule of context.model.rules) {
    // A rule of a transition applies only when it is taken: existing rows are not held to it.
    if (rule.appliesTo.entity !== entity.name || rule.appliesTo.transition !== null) continue;
    const before = previousModel.rules.find((r) => r.name === rule.name) ?? null;
    if (before && sameRule(before, rule, previousModel, context.model)) continue;
    const where = { entity: entity.name, table: table.name, field: rule.appliesTo.field, column: null };
    const named = `Rule "${rule.name}" (${before ? 'changed' : 'new'}) on ${entity.name}${rule.appliesTo.field ? `.${rule.appliesTo.field}` : ''}`;
    const { condition } = rule;
    if (condition.kind === 'limit') {
      // Only limits over the rule's own entity are enforced (compile/entity-logic.ts).
      if (condition.entity !== entity.name) continue;
      const states = machine && condition.states.length > 0 ? new Set(condition.states) : null;
      const { period } = condition;
      const periodType =
        entity.fields.find((f) => f.name === period?.field)?.type.kind === 'date' ? 'date' : 'datetime';
      const groups = new Map<string, number>();
      scan.visit((_row, record) => {
        const r = record();
        if (states && !states.has(String(r.state))) return;
        // A row with an empty field of its group is not counted, as at run time.
        const key: unknown[] = [];
        for (const column of condition.per) {
          const value = r[column];
          if (value == null) return;
          key.push(value);
        }
        if (period) {
          const value = r[period.field];
          const bounds = value == null ? null : periodBounds(period.unit, String(value), periodType);
          if (bounds === null) return;
          key.push(bounds.from);
        }
        const text = JSON.stringify(key);
        groups.set(text, (groups.get(text) ?? 0) + 1);
      });
      later.push(() => {
        let over = 0;
        let overRows = 0;
        for (const n of groups.values()) {
          if (n > condition.max.value) {
            over++;
            overRows += n;
          }
        }
        const limit = `at most ${condition.max.value} ${condition.entity}${states ? ` in state ${[...states].join(', ')}` : ''} ${limitGroupWords(condition)}`;
        if (over === 0) return makeStep(where, 'check-rule', 'safe', 0, `${named}: ${limit}; every row satisfies it.`);
        const step = makeStep(
          where,
          'check-rule',
          'needs-flag',
          overRows,
          `${named}: ${limit}, but ${groupCount(over, condition)} already ${verb(over, 'exceeds', 'exceed')} it (${plural(overRows, 'row')}).`,
        );
        step.advice = `With ${ALLOW_DESTRUCTIVE_FLAG} those rows stay as they are, and no new ${condition.entity} is accepted for those ${condition.per.length === 1 && !period ? 'values' : 'groups'} until they are back under the limit.`;
        return step;
      });
      continue;
    }
    const unchecked = uncheckedReason(condition.source, entity, rule);
    if (unchecked) {
      later.push(() =>
        makeStep(where, 'check-rule', 'safe', 0, `${named} is not checked against existing rows: ${unchecked}.`),
      );
      continue;
    }
    const compiled = context.expressions.rules.get(rule.name);
    const evaluator = context.expressions.entities.get(entity.name);
    if (!compiled || !evaluator) continue;
    // References are never loaded: a rule reaching through one was set aside above.
    const broken = scan.count(
      (_row, record) => evaluator.evaluate(compiled, record(), () => undefined, 'rule') === 'fails',
    );
    later.push(() => {
      if (broken.n === 0) return makeStep(where, 'check-rule', 'safe', 0, `${named}: every row satisfies it.`);
      const step = makeStep(
        where,
        'check-rule',
        'needs-flag',
        broken.n,
        `${named}: ${plural(broken.n, 'row')} ${verb(broken.n, 'breaks', 'break')} it.`,
      );
      step.advice = brokenRowsAdvice();
      return step;
    });
  }
}

/** `n` counted groups of a limit: "2 borrower values" (one field), "1 group with the same doctor and day of starts_at". */
function groupCount(n: number, limit: { per: readonly string[]; period: LimitPeriod | null }): string {
  if (limit.per.length === 1 && !limit.period) return plural(n, `${limit.per[0]} value`);
  const parts = [...limit.per, ...(limit.period ? [`${limit.period.unit} of ${limit.period.field}`] : [])];
  const words = parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
  return `${plural(n, 'group')} with the same ${words}`;
}

/** Why a rule cannot be judged on stored rows, or null when it can. */
function uncheckedReason(source: string, entity: Entity, rule: Rule): string | null {
  const counts = findCounts(source);
  if (counts.terms.length > 0) {
    return 'it counts related records; it is checked when a row is next written';
  }
  const chains = chainsOf(source, new Set(['now', 'today', 'user', 'value', ...entity.fields.map((f) => f.name)]));
  const fieldNames = new Set(entity.fields.map((f) => f.name));
  if (chains.some((c) => (c[0] === 'now' || c[0] === 'today') && !fieldNames.has(c[0]))) {
    return 'it depends on the current time, and rows are held to a rule when they are written, not as time passes';
  }
  if (chains.some((c) => c[0] === 'user' && !fieldNames.has('user'))) {
    return 'it depends on the signed-in user';
  }
  const through = chains.find((c) => {
    const head = c[0] === 'value' ? rule.appliesTo.field : c[0];
    const field = entity.fields.find((f) => f.name === head);
    return c.length > 1 && field?.type.kind === 'reference';
  });
  if (through) return `it reaches through a reference (${through.join('.')}); it is checked when a row is next written`;
  return null;
}

/** A table the spec no longer has: kept with its rows, and its foreign keys dropped so it blocks no delete. */
async function planKeptTable(context: PlanContext, previous: SqlTable): Promise<PlannedTable | null> {
  const actual = await context.probe.columns(previous.name);
  if (actual === null) return null;
  const wasLive = context.previousModel ? findEntity(context.previousModel, previous.entity) !== null : true;
  const dropped = previous.columns.filter((c) => c.references?.table && actual.some((a) => a.name === c.name));
  const layout: SqlTable = {
    ...previous,
    columns: previous.columns.map((c) => (c.references?.table ? { ...c, references: null } : c)),
  };
  if (!wasLive && dropped.length === 0) return { steps: [], layout };
  const rows = await context.probe.rowCount(previous.name);
  const at = { entity: previous.entity, table: previous.name };
  const flagged = wasLive && rows > 0;
  const step = makeStep(
    at,
    'keep-table',
    flagged ? 'needs-flag' : 'safe',
    rows,
    wasLive
      ? `Entity ${previous.entity} was removed; its table ${previous.name} holds ${plural(rows, 'row')}, kept and no longer served.`
      : `Kept table ${previous.name} no longer blocks deleting the records it referred to.`,
  );
  for (const column of dropped)
    step.changes.push({ kind: 'drop-reference', table: previous.name, column: column.name });
  if (flagged) {
    step.advice =
      `With ${ALLOW_DESTRUCTIVE_FLAG} the table and its rows are kept in the database (never dropped) but no longer ` +
      'served; putting the entity back in the spec serves them again.';
  }
  return { steps: [step], layout };
}

/** How a column that is empty in every existing row (new, or recreated) can be laid out. */
function emptyColumn(
  column: SqlColumn,
  fill: Value,
  rows: number,
  unique: boolean,
): { column: SqlColumn; fill: Value; safety: StepSafety; rows: number; note: string; advice: string | null } {
  if (rows === 0) return { column, fill: null, safety: 'safe', rows: 0, note: '', advice: null };
  if (fill !== null) {
    if (unique && rows > 1) {
      return {
        column,
        fill,
        safety: 'refused',
        rows,
        note: ` It is unique, and its default ${showValue(fill)} would give the ${plural(rows, 'existing row')} the same value.`,
        advice:
          'Add it as optional without a default first, give the rows distinct values, then make it required or give it a default.',
      };
    }
    return {
      column,
      fill,
      safety: 'safe',
      rows,
      note: ` The ${plural(rows, 'existing row')} ${verb(rows, 'gets', 'get')} ${showValue(fill)}.`,
      advice: null,
    };
  }
  if (!column.notNull) return { column, fill: null, safety: 'safe', rows: 0, note: '', advice: null };
  return {
    column: { ...column, notNull: false },
    fill: null,
    safety: 'needs-flag',
    rows,
    note: ` It is required and has no default, so the ${plural(rows, 'existing row')} would have no value.`,
    advice:
      `With ${ALLOW_DESTRUCTIVE_FLAG} it is added accepting empty values, and those rows stay empty until they are ` +
      'edited, when a value is required. Or give the field a default, or add it as optional first.',
  };
}

/** What existing rows get in a column they have no value in: a default, or the state machine's initial state. */
function fillOf(context: PlanContext, column: SqlColumn, field: Field | null, initialState: string | null): Value {
  if (field === null) {
    if (column.name === 'state' && initialState !== null) return initialState;
    return column.default;
  }
  const value = field.default;
  if (value === null) return null;
  if ('literal' in value) return value.literal;
  switch (value.dynamic) {
    case 'now':
      return context.now.toISOString();
    case 'today':
      return context.now.toISOString().slice(0, 10);
    case 'me':
      return null;
  }
}

/** True when the stored values could not be read as the new type: another storage type, or another referenced entity. */
function typeChanged(
  before: SqlColumn,
  after: SqlColumn,
  beforeField: Field | null,
  afterField: Field | null,
): boolean {
  if (before.type !== after.type) return true;
  if (!beforeField || !afterField) return false;
  const target = (t: FieldType) => (t.kind === 'reference' ? t.entity : null);
  return target(beforeField.type) !== target(afterField.type);
}

/** How a field's value rules narrowed, in words (`at most 100 characters (was 200)`); empty when none did. */
export function narrowings(before: Field, after: Field): string[] {
  const out: string[] = [];
  const was = (text: string | null) => (text === null ? '' : ` (was ${text})`);
  const b = before.type;
  const a = after.type;
  if (a.kind === 'choice') {
    if (b.kind !== 'choice') out.push(`one of ${a.values.join(', ')}${was(kindLabel(b))}`);
    else {
      const removed = b.values.filter((v) => !a.values.includes(v));
      if (removed.length > 0) out.push(`one of ${a.values.join(', ')} (${removed.join(', ')} removed)`);
    }
  } else if (a.kind !== b.kind) {
    const demands = SERVER_FIELD_KINDS[a.kind].demands;
    if (demands !== null) out.push(`${demands}${was(kindLabel(b))}`);
  }
  if (a.kind === 'decimal' && a.scale !== null && (b.kind !== 'decimal' || b.scale === null || a.scale < b.scale)) {
    const before = b.kind === 'decimal' && b.scale !== null ? `${b.scale}` : 'any';
    out.push(`at most ${plural(a.scale, 'decimal place')} (was ${before})`);
  }
  const bound = (
    next: Field['min'],
    prev: Field['min'],
    tighter: (x: number, y: number) => boolean,
    say: (n: number) => string,
  ) => {
    if (next === null) return;
    if (prev === null) out.push(say(next.value));
    else if (tighter(next.value, prev.value)) out.push(`${say(next.value)}${was(String(prev.value))}`);
  };
  bound(
    after.min,
    before.min,
    (x, y) => x > y,
    (n) => `at least ${n}`,
  );
  bound(
    after.max,
    before.max,
    (x, y) => x < y,
    (n) => `at most ${n}`,
  );
  bound(
    after.minLength,
    before.minLength,
    (x, y) => x > y,
    (n) => `at least ${plural(n, 'character')}`,
  );
  bound(
    after.maxLength,
    before.maxLength,
    (x, y) => x < y,
    (n) => `at most ${plural(n, 'character')}`,
  );
  if (after.pattern !== null && after.pattern !== before.pattern) {
    out.push(`matching ${after.pattern}${was(before.pattern)}`);
  }
  return out;
}

/** Two rules hold the same rows to the same thing: same target, same condition, same constants' values. */
function sameRule(before: Rule, after: Rule, previousModel: Model, model: Model): boolean {
  const target = (r: Rule) => `${r.appliesTo.entity}|${r.appliesTo.field ?? ''}|${r.appliesTo.transition ?? ''}`;
  if (target(before) !== target(after)) return false;
  const b = before.condition;
  const a = after.condition;
  if (a.kind === 'limit' || b.kind === 'limit') {
    return (
      a.kind === 'limit' &&
      b.kind === 'limit' &&
      a.max.value === b.max.value &&
      a.entity === b.entity &&
      a.per.join('|') === b.per.join('|') &&
      a.period?.unit === b.period?.unit &&
      a.period?.field === b.period?.field &&
      a.states.join('|') === b.states.join('|')
    );
  }
  if (a.source !== b.source) return false;
  const constants = new Set(model.constants.map((c) => c.name));
  const valueIn = (m: Model, name: string) => JSON.stringify(m.constants.find((c) => c.name === name)?.value ?? null);
  return chainsOf(a.source, constants).every(([name = '']) => valueIn(model, name) === valueIn(previousModel, name));
}

/** True when the column held one of the entity's live fields (or its state) in that model. */
function liveIn(model: Model, entity: string, column: SqlColumn): boolean {
  const found = findEntity(model, entity);
  if (!found) return false;
  if (column.field !== null) return found.fields.some((f) => f.name === column.field);
  if (column.name === 'state') return model.machines.some((m) => m.entity === entity);
  return true;
}

function findEntity(model: Model, name: string): Entity | null {
  return model.entities.find((e) => e.name === name) ?? null;
}

function isUnique(table: SqlTable, column: string): boolean {
  return uniqueIndex(table, column) !== undefined;
}

function uniqueIndex(table: SqlTable, column: string): SqlIndex | undefined {
  return table.indexes.find((i) => i.unique && i.columns.length === 1 && i.columns[0] === column);
}

/** A column the database has that no recorded layout describes (a database laid out by an older version). */
function unknownColumn(name: string): SqlColumn {
  return { name, field: null, type: 'text', primaryKey: false, notNull: false, default: null, references: null };
}

function keptColumnLabel(
  before: SqlColumn | null,
  entity: string,
  table: string,
  column: string,
  hasMachine: boolean,
): string {
  if (before?.field) return `Field ${entity}.${before.field} was removed`;
  if (column === 'state' && !hasMachine) return `${entity} no longer has states`;
  return `Column ${table}.${column} is not in the spec`;
}

function typeLabel(column: SqlColumn, field: Field | null): string {
  return field ? kindLabel(field.type) : column.type;
}

function kindLabel(type: FieldType): string {
  return type.kind === 'reference' ? `reference to ${type.entity}` : describeType(type);
}

function brokenRowsAdvice(): string {
  return (
    `Correct those rows first (with the current spec), or pass ${ALLOW_DESTRUCTIVE_FLAG} to keep them as they are: ` +
    'they stay readable, and values written from now on must satisfy it.'
  );
}

function makeStep(
  where: { entity: string; table: string; field?: string | null; column?: string | null },
  kind: MigrationStepKind,
  safety: StepSafety,
  rows: number,
  summary: string,
): MigrationStep {
  return {
    kind,
    safety,
    entity: where.entity,
    table: where.table,
    field: where.field ?? null,
    column: where.column ?? null,
    rows,
    summary,
    advice: null,
    changes: [],
  };
}

function showValue(value: Value): string {
  return typeof value === 'string' ? `"${value}"` : String(value);
}

function verb(n: number, singular: string, pluralForm: string): string {
  return n === 1 ? singular : pluralForm;
}
