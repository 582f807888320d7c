import { isMoment } from './field-kinds.ts';
import {
  type Entity,
  type LimitPeriod,
  PERIOD_UNITS,
  type Rule,
  type RuleCondition,
  type RuleTarget,
} from './model.ts';
import type { Section } from './parse-sections.ts';
import { type Cell, cellPart, splitList } from './parse-tables.ts';
import { allTables, docOf, NameSet, requiredCell, rowsOf } from './read-helpers.ts';
import type { Scope } from './scope.ts';

const COLUMNS = [
  { key: 'rule', names: ['rule', 'name'], required: true },
  { key: 'applies', names: ['applies to', 'applies', 'on', 'target', 'entity'], required: true },
  { key: 'condition', names: ['condition', 'expression', 'check', 'must', 'must hold'], required: true },
  { key: 'error', names: ['error', 'code', 'error code'], required: true },
  { key: 'reveals', names: ['reveals', 'may reveal'], required: false },
];

/** The state list, if any, ends at the first "per"; what follows it is read by `readGrouping`. */
const LIMIT = /^at most\s+(\S+)\s+([A-Za-z][A-Za-z0-9]*)(?:\s+(?:in|with)\s+states?\s+(.+?))?\s+per\s+(.+)$/di;
const LIMIT_EXAMPLE = 'at most MAX_PER_DAY Appointment in state requested, confirmed per doctor per day of starts_at';

/** A limit's period field as written and linked, for `validate/rules.ts` to check it holds dates. */
export interface PeriodDraft {
  /** The rule's name: a rule whose period field holds no dates is left out of the model. */
  rule: string;
  entity: string;
  cell: Cell;
}

/**
 * Point 5: named rules, each a CEL condition or a cross-record limit, failing with a catalogue
 * code. The fields a limit counts per period of are judged by `validateRules`.
 */
export function readRules(section: Section, scope: Scope): { rules: Rule[]; periods: PeriodDraft[] } {
  const { bag } = scope;
  const names = new NameSet(bag, 'rule');
  const rules: Rule[] = [];
  const periods: PeriodDraft[] = [];
  for (const row of rowsOf(allTables(section), COLUMNS, bag, 'rules')) {
    const name = requiredCell(row, 'rule', bag, 'A rule');
    const what = `Rule "${name?.text ?? ''}"`;
    const applies = requiredCell(row, 'applies', bag, what);
    const condition = requiredCell(row, 'condition', bag, what);
    const error = requiredCell(row, 'error', bag, what);
    if (!name || !applies || !condition || !error) continue;
    if (!names.add(name)) continue;
    // Each cell is checked even when another is wrong, so one pass reports every problem.
    const codeOk = scope.code(error, what);
    const target = readTarget(applies, scope, what);
    const parsed = target
      ? readCondition(condition, target, scope, what, (cell, entity) => periods.push({ rule: name.text, entity, cell }))
      : null;
    if (!target || !parsed || !codeOk) continue;
    rules.push({
      name: name.text,
      appliesTo: target,
      condition: parsed,
      error: error.text,
      doc: docOf(row),
      span: row.span,
      conditionSpan: condition.span,
      reveals: readReveals(row.cells.get('reveals')),
    });
  }
  return { rules, periods };
}

/**
 * The `reveals` cell: what the rule is meant to tell those who trigger it though they may not read
 * it: `yes` (all it reads and counts), or the paths as the condition reads them (`project.budget`,
 * `salary`) and `count` for the records a limit counts. Empty, `-` or `no`: nothing.
 */
function readReveals(cell: Cell | undefined): Rule['reveals'] {
  const text = cell?.text.trim() ?? '';
  if (text === '' || /^(-|—|–|no|none)$/i.test(text)) return [];
  if (/^(yes|all)$/i.test(text)) return 'all';
  return text
    .split(',')
    .map((part) => part.replace(/`/g, '').trim())
    .filter((part) => part !== '');
}

function readTarget(cell: Cell, scope: Scope, what: string): RuleTarget | null {
  const m = /^([A-Za-z][A-Za-z0-9]*)\s*(?:(\.)\s*([A-Za-z_][A-Za-z0-9_]*)|(:)\s*(.+))?$/.exec(cell.text);
  if (!m) {
    scope.bag.report('invalid-target', cell.span, `${what} applies to "${cell.text}", which is not understood.`, {
      hint: 'Write an entity (Loan), a field (Loan.due) or a transition (Loan: return).',
    });
    return null;
  }
  const entityName = m[1] as string;
  const entity = scope.entity(cellPart(cell, 0, entityName.length), what);
  if (!entity) return null;
  if (m[2]) {
    const field = m[3] as string;
    if (!scope.field(entity, cellPart(cell, cell.text.lastIndexOf(field), field.length), what)) return null;
    return { entity: entity.name, field, transition: null };
  }
  if (m[4]) {
    const name = (m[5] as string).trim();
    const part = cellPart(cell, cell.text.lastIndexOf(name), name.length);
    const transition = scope.transition(entity, part, `${what} applies to`);
    if (!transition) return null;
    return { entity: entity.name, field: null, transition: transition.name };
  }
  return { entity: entity.name, field: null, transition: null };
}

function readCondition(
  cell: Cell,
  target: RuleTarget,
  scope: Scope,
  what: string,
  period: (field: Cell, entity: string) => void,
): RuleCondition | null {
  if (!/^at most\b/i.test(cell.text)) return { kind: 'expression', source: cell.text };
  const m = LIMIT.exec(cell.text);
  const groupsAt = m?.indices?.[4];
  if (!m || !groupsAt) {
    scope.bag.report('invalid-limit', cell.span, `${what} has a limit that does not follow the limit grammar.`, {
      hint: `Write "at most N Entity per field", with "in state s1, s2" after the entity and, to count per calendar period, "per day of a_date_field" at the end, e.g. "${LIMIT_EXAMPLE}".`,
    });
    return null;
  }
  const [, count, entityName, stateList] = m as unknown as [string, string, string, string | undefined];
  const at = (text: string, from = 0) => cellPart(cell, cell.text.indexOf(text, from), text.length);
  const max = scope.bound(at(count, 8), what);
  const entity = scope.entity(at(entityName, 8), what);
  if (!max || !entity) return null;
  if (entity.name !== target.entity) {
    scope.bag.report(
      'invalid-limit',
      at(entityName, 8).span,
      `${what} counts ${entity.name} records but applies to ${target.entity}.`,
      {
        hint: `A limit counts records of the entity it applies to: write "at most … ${target.entity} …", or apply the rule to ${entity.name}.`,
      },
    );
    return null;
  }
  const states: string[] = [];
  if (stateList) {
    const listStart = cell.text.indexOf(stateList, 8 + entityName.length);
    const machine = scope.machines.get(entity.name);
    for (const item of splitList(cellPart(cell, listStart, stateList.length))) {
      for (const piece of item.text.split(/\s+or\s+/)) {
        const stateCell = cellPart(item, item.text.indexOf(piece), piece.length);
        if (scope.state(machine, entity.name, stateCell, what)) states.push(piece);
      }
    }
    if (states.length === 0) return null;
  }
  const grouping = readGrouping(cellPart(cell, groupsAt[0], groupsAt[1] - groupsAt[0]), entity, scope, what, period);
  if (!grouping) return null;
  return { kind: 'limit', max, entity: entity.name, states, ...grouping };
}

/**
 * What follows a limit's first "per": fields the counted records share ("talk, reviewer", "talk
 * and reviewer"), a calendar period of a date field ("day of starts_at"), or fields then a period
 * ("doctor per day of starts_at"). Every mistake is reported, not only the first.
 */
function readGrouping(
  cell: Cell,
  entity: Entity,
  scope: Scope,
  what: string,
  periodField: (field: Cell, entity: string) => void,
): { per: string[]; period: LimitPeriod | null } | null {
  const segments = splitAt(cell, /\s+per\s+/gi);
  const per: string[] = [];
  let period: LimitPeriod | null = null;
  let fieldsSeen = false;
  let ok = true;
  const invalid = (part: Cell, message: string, hint: string) => {
    scope.bag.report('invalid-limit', part.span, `${what} ${message}`, { hint });
    ok = false;
  };
  for (const [i, segment] of segments.entries()) {
    const last = i === segments.length - 1;
    const periodMatch = /^([A-Za-z]+)\s+of\s+(.+)$/.exec(segment.text);
    if (periodMatch) {
      const [, unitText = '', fieldText = ''] = periodMatch;
      const unitCell = cellPart(segment, 0, unitText.length);
      const fieldCell = cellPart(segment, segment.text.length - fieldText.length, fieldText.length);
      const unit = PERIOD_UNITS.find((u) => u === unitText.toLowerCase());
      if (!last) {
        invalid(
          segment,
          `counts per ${segment.text} before its other groups.`,
          `The period comes last: "${LIMIT_EXAMPLE}".`,
        );
      } else if (!unit) {
        invalid(
          unitCell,
          `counts per "${unitText}", which is not a period.`,
          `Write "per day of …", "per week of …" (weeks start on Monday), "per month of …" or "per year of …"; periods are UTC calendar periods.`,
        );
      } else if (scope.field(entity, fieldCell, what, PERIOD_SYSTEM_FIELDS)) {
        period = { unit, field: fieldCell.text };
        periodField(fieldCell, entity.name);
        continue;
      }
      ok = false;
      continue;
    }
    const bare = PERIOD_UNITS.find((u) => u === segment.text.toLowerCase());
    if (bare && !entity.fields.some((f) => f.name === segment.text)) {
      invalid(
        segment,
        `counts per ${bare} without saying of which date.`,
        `Name a date or date-time field of ${entity.name}: "per ${bare} of ${dateFields(entity)[0] ?? 'created_at'}".`,
      );
      continue;
    }
    if (fieldsSeen) {
      invalid(
        segment,
        `names the fields it counts per in two places.`,
        `List the fields once, before any period: "per ${[...per, segment.text].join(', ')}".`,
      );
      continue;
    }
    fieldsSeen = true;
    for (const piece of splitAt(segment, /\s*,\s*|\s+and\s+/gi)) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(piece.text)) {
        invalid(
          piece.text === '' ? segment : piece,
          `counts per "${piece.text}", which is not a field name.`,
          `Name fields of ${entity.name} separated by commas or "and": "per ${entity.fields
            .slice(0, 2)
            .map((f) => f.name)
            .join(', ')}".`,
        );
      } else if (per.includes(piece.text)) {
        invalid(piece, `counts per ${piece.text} twice.`, `Name each field once.`);
      } else if (scope.field(entity, piece, what, ['created_by'])) {
        per.push(piece.text);
      } else {
        ok = false;
      }
    }
  }
  return ok ? { per, period } : null;
}

const PERIOD_SYSTEM_FIELDS = ['created_at', 'updated_at'];

/** The fields a limit may count per period of: the entity's dates and date-times, and its timestamps. */
export function dateFields(entity: Entity): string[] {
  const own = entity.fields.filter((f) => isMoment(f.type)).map((f) => f.name);
  return [...own, ...PERIOD_SYSTEM_FIELDS];
}

/** The parts of `cell` between matches of `separator` (a global regex), each with its own span. */
function splitAt(cell: Cell, separator: RegExp): Cell[] {
  const parts: Cell[] = [];
  let start = 0;
  for (const m of cell.text.matchAll(separator)) {
    parts.push(cellPart(cell, start, m.index - start));
    start = m.index + m[0].length;
  }
  parts.push(cellPart(cell, start, cell.text.length - start));
  return parts;
}
