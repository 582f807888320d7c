import { BUILTIN_ERRORS, BUILTIN_PLACEHOLDERS } from '../builtin-errors.ts';
import type { Model } from '../model.ts';
import type { Scope } from '../scope.ts';
import { subSpan } from '../spans.ts';
import { suggest } from '../suggest.ts';

/**
 * Point 8's checks, once every point is read: each message's placeholders name a constant or a
 * field it can be filled from, and every catalogued code is used by a rule or a guard. A constant
 * a message names counts as used (before `validateConstants` looks for unused ones).
 */
export function validateErrors(model: Model, scope: Scope): void {
  const { bag } = scope;
  for (const error of model.errors) {
    const span = scope.messageSpans.get(error.code);
    if (!span) continue;
    const fields = fieldsFor(model, error.code);
    for (const match of error.message.matchAll(/\{([^{}]*)\}/g)) {
      const name = (match[1] ?? '').trim();
      const at = subSpan(span, match.index ?? 0, match[0].length);
      if (/^[A-Z][A-Z0-9_]*$/.test(name)) {
        scope.usedConstants.add(name);
        if (!scope.constants.has(name)) {
          bag.report(
            'unknown-constant',
            at,
            `The message of ${error.code} uses {${name}}, which point 9 does not define.`,
            {
              expected: suggest(name, scope.constants.keys()),
            },
          );
        }
      } else if (!BUILTIN_PLACEHOLDERS.has(name) && !fields.has(name)) {
        bag.report(
          'unknown-placeholder',
          at,
          `The message of ${error.code} uses {${name}}, which names no constant or field it could be filled from.`,
          {
            expected: suggest(name, [...fields, ...BUILTIN_PLACEHOLDERS]),
            hint: 'Placeholders name a constant ({MAX_LOANS}), a field of the record the rule checks ({due}), or one of field, entity, id, state, transition, min, max, values, value, limit.',
          },
        );
      }
    }
  }
  // A module beside the spec (point 7's code) may refuse with any code, which the checker cannot see.
  const modules = model.hooks.length > 0 || model.calls.some((c) => c.action.kind === 'code');
  for (const error of model.errors) {
    if (modules || scope.usedCodes.has(error.code) || error.code in BUILTIN_ERRORS || !error.span) continue;
    bag.report(
      'unused-error-code',
      error.span,
      `Error code ${error.code} is catalogued but no rule or guard uses it.`,
      {
        hint: 'Use it in a rule of point 5 or as a guard’s error in point 4, or remove it.',
      },
    );
  }
}

/** Fields of the entities whose rules or guards report `code`: what its message may name. */
function fieldsFor(model: Model, code: string): Set<string> {
  const entities = new Set(model.rules.filter((r) => r.error === code).map((r) => r.appliesTo.entity));
  for (const machine of model.machines) {
    if (machine.transitions.some((t) => t.error === code)) entities.add(machine.entity);
  }
  if (entities.size === 0) for (const e of model.entities) entities.add(e.name);
  const fields = new Set<string>();
  for (const entity of model.entities) {
    if (entities.has(entity.name)) for (const f of entity.fields) fields.add(f.name);
  }
  return fields;
}
