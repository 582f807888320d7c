import type { Rule, RuleCondition, RuleTarget } from './model.ts';
import { transitionSlug } from './names.ts';
import type { Section } from './parse-sections.ts';
import { type Cell, cellPart, splitList } from './parse-tables.ts';
import { allTables, docOf, NameSet, requiredCell, rowsOf } from './read-helpers.ts';
import type { Scope } from './scope.ts';
import { suggest } from './suggest.ts';

const COLUMNS = [
  { key: 'rule', names: ['rule', 'name'], required: true },
  { key: 'applies', names: ['applies to', 'applies', 'on', 'target', 'entity'], required: true },
  { key: 'condition', names: ['condition', 'expression', 'check', 'must', 'must hold'], required: true },
  { key: 'error', names: ['error', 'code', 'error code'], required: true },
];

const LIMIT =
  /^at most\s+(\S+)\s+([A-Za-z][A-Za-z0-9]*)(?:\s+(?:in|with)\s+states?\s+(.+?))?\s+per\s+([A-Za-z_][A-Za-z0-9_]*)$/i;

/** Point 5: named rules, each a CEL condition or a cross-record limit, failing with a catalogue code. */
export function readRules(section: Section, scope: Scope): Rule[] {
  const { bag } = scope;
  const names = new NameSet(bag, 'rule');
  const rules: Rule[] = [];
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
    const parsed = target ? readCondition(condition, target, scope, what) : null;
    if (!target || !parsed || !codeOk) continue;
    rules.push({
      name: name.text,
      appliesTo: target,
      condition: parsed,
      error: error.text,
      doc: docOf(row),
      span: row.span,
      conditionSpan: condition.span,
    });
  }
  return rules;
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
    const machine = scope.machines.get(entity.name);
    const transition = machine?.transitions.find((t) => t.slug === transitionSlug(name));
    if (!transition) {
      scope.bag.report(
        'unknown-transition',
        part.span,
        `${what} applies to transition "${name}", which ${entity.name} does not have.`,
        {
          expected: suggest(name, machine?.transitions.map((t) => t.name) ?? []),
          hint: machine ? undefined : `${entity.name} has no state machine in point 4.`,
        },
      );
      return null;
    }
    return { entity: entity.name, field: null, transition: transition.name };
  }
  return { entity: entity.name, field: null, transition: null };
}

function readCondition(cell: Cell, target: RuleTarget, scope: Scope, what: string): RuleCondition | null {
  if (!/^at most\b/i.test(cell.text)) return { kind: 'expression', source: cell.text };
  const m = LIMIT.exec(cell.text);
  if (!m) {
    scope.bag.report('invalid-limit', cell.span, `${what} has a limit that does not follow the limit grammar.`, {
      hint: 'Write "at most N Entity per field" or "at most N Entity in state s1, s2 per field", e.g. "at most MAX_LOANS Loan in state out per borrower".',
    });
    return null;
  }
  const [, count, entityName, stateList, per] = m as unknown as [string, string, string, string | undefined, string];
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
  if (!scope.field(entity, at(per, cell.text.lastIndexOf(' per ')), what, ['created_by'])) return null;
  return { kind: 'limit', max, entity: entity.name, states, per };
}
