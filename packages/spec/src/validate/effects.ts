import { CEL_TIMESTAMP, celTypeName } from '../cel-types.ts';
import { effectiveCalls } from '../derive-calls.ts';
import type { DiagnosticBag } from '../diagnostics.ts';
import { type ExpressionItem, typeName } from '../expressions.ts';
import { describeType, kindFacts } from '../field-kinds.ts';
import { type Entity, type Field, type Model, SYSTEM_FIELDS, type Transition } from '../model.ts';
import { USER_ENTITY } from '../names.ts';
import { suggest } from '../suggest.ts';

/**
 * Checks what each transition sets (point 4's `sets`): the creating transition sets nothing (a
 * default does that), each assignment names a declared field once, never a system field, and a
 * call's payload that carries a field the transition sets is warned about (the effect wins).
 * Returns the assignments' expressions to type-check with the guards and rules, each judged
 * against its field's type once it type-checks.
 */
export function effectExpressions(model: Model, bag: DiagnosticBag): ExpressionItem[] {
  const items: ExpressionItem[] = [];
  const calls = effectiveCalls(model);
  for (const machine of model.machines) {
    const entity = model.entities.find((e) => e.name === machine.entity);
    if (!entity) continue;
    for (const t of machine.transitions) {
      const sets = t.sets ?? [];
      if (sets.length === 0) continue;
      if (t.creates) {
        const first = sets[0];
        if (first) {
          bag.report(
            'invalid-assignment',
            first.span,
            `"${t.name}" creates the ${entity.name}, so it cannot set fields as it is taken.`,
            {
              hint: 'Give the field a default in point 3 ("default today", "default now", "default me"), or set it in a later transition.',
            },
          );
        }
        continue;
      }
      const payload = calls.find(
        (c) => c.action.kind === 'transition' && c.action.entity === entity.name && c.action.transition === t.name,
      )?.payload;
      const seen = new Set<string>();
      for (const a of sets) {
        if ((SYSTEM_FIELDS as readonly string[]).includes(a.field)) {
          bag.report(
            'system-field-assignment',
            a.fieldSpan,
            `Transition "${t.name}" sets ${a.field}, which Ninepoint keeps itself.`,
            {
              hint:
                a.field === 'state'
                  ? 'The state changes through the transition\'s "to" column.'
                  : `${a.field} is a system field; set a field of ${entity.name} declared in point 3 instead.`,
            },
          );
          continue;
        }
        const field = entity.fields.find((f) => f.name === a.field);
        // A field whose type was reported where it is declared: nothing to check its value against.
        if (!field && entity.untyped?.includes(a.field)) continue;
        if (!field) {
          bag.report(
            'unknown-field',
            a.fieldSpan,
            `Transition "${t.name}" sets ${a.field}, which ${entity.name} does not have.`,
            {
              expected: suggest(
                a.field,
                entity.fields.map((f) => f.name),
              ),
            },
          );
          continue;
        }
        if (seen.has(a.field)) {
          bag.report('invalid-assignment', a.span, `Transition "${t.name}" sets ${a.field} twice.`, {
            hint: 'Keep one assignment per field.',
          });
          continue;
        }
        seen.add(a.field);
        if (payload && (payload.fields === null || payload.fields.includes(a.field))) {
          bag.report(
            'set-field-in-payload',
            a.fieldSpan,
            `The call of "${t.name}" carries ${a.field} in its payload, but the transition sets it: the value sent is replaced.`,
            { hint: `Leave ${a.field} out of the call's payload in point 7, or out of "${t.name}"'s sets.` },
          );
        }
        items.push({
          source: a.source,
          span: a.sourceSpan,
          entity: entity.name,
          field: null,
          what: `"${a.field} = …" of "${t.name}"`,
          typed: (type) => judge(bag, t, field, a.source, refined(entity, a.source, type), a.sourceSpan),
        });
      }
    }
  }
  return items;
}

/**
 * A bare reference field (`book`) is typed dyn when no chain reaches into its entity (the checker
 * registers only the entity types an expression reaches): its type is then the field's entity.
 */
function refined(entity: Entity, source: string, type: string): string {
  if (type !== 'dyn') return type;
  const name = source.trim();
  if (name === 'created_by' || name === 'user') return celTypeName(USER_ENTITY);
  const field = entity.fields.find((f) => f.name === name);
  return field?.type.kind === 'reference' ? celTypeName(field.type.entity) : type;
}

/** Reports an assignment whose value's CEL type does not fit its field. */
function judge(
  bag: DiagnosticBag,
  t: Transition,
  field: Field,
  source: string,
  type: string,
  span: ExpressionItem['span'],
): void {
  const wrong = (hint: string) =>
    bag.report(
      'assignment-type',
      span,
      `Transition "${t.name}" sets ${field.name} (${describeType(field.type)}) to "${source}", which is ${typeName(type)}.`,
      { hint },
    );
  if (type === 'dyn') return;
  if (type === 'null') {
    if (field.required) wrong(`${field.name} is required, so it cannot be emptied.`);
    return;
  }
  const cel = kindFacts(field.type).cel;
  switch (cel) {
    case 'int':
      if (type !== 'int')
        wrong(
          'An integer takes a whole number: a literal, an integer field or constant, or arithmetic on them (renewals + 1).',
        );
      return;
    case 'double':
      if (type !== 'double' && type !== 'int')
        wrong('A decimal takes a number: a literal, a number field or constant, or arithmetic on them.');
      return;
    case 'bool':
      if (type !== 'bool') wrong('A boolean takes true, false, or a condition.');
      return;
    case 'timestamp':
      if (type !== CEL_TIMESTAMP) {
        wrong(
          'A date or date-time takes today, now, another date field, or a date plus a duration constant (due + LOAN_PERIOD).',
        );
      }
      return;
    case 'string': {
      if (type !== 'string') {
        wrong('Text takes text: a quoted literal, a text field, or user.name.');
        return;
      }
      const literal = /^\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')\s*$/.exec(source);
      const text = literal ? (literal[1] ?? literal[2] ?? '') : null;
      if (field.type.kind === 'choice' && text !== null && !field.type.values.includes(text)) {
        bag.report(
          'assignment-type',
          span,
          `Transition "${t.name}" sets ${field.name} to "${text}", which is not one of its choices.`,
          {
            hint: `${field.name} is one of ${field.type.values.join(', ')}.`,
            expected: suggest(text, field.type.values),
          },
        );
      }
      return;
    }
    case 'reference': {
      const target = field.type.kind === 'reference' ? field.type.entity : '';
      if (type !== celTypeName(target)) {
        wrong(
          target === USER_ENTITY
            ? `${field.name} refers to a User: set it to user (who takes the transition), created_by, or another User field.`
            : `${field.name} refers to a ${target}: set it to another field referring to ${target}.`,
        );
      }
      return;
    }
  }
}
