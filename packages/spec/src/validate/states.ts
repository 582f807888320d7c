import { effectiveCalls } from '../derive-calls.ts';
import type { DiagnosticBag } from '../diagnostics.ts';
import { chainsOf } from '../evaluate.ts';
import type { ExpressionItem } from '../expressions.ts';
import { findCounts } from '../filled-terms.ts';
import type { Call, Entity, Model, StateMachine } from '../model.ts';

/**
 * Point 4's checks on the machines read: each has one transition from (new), every state is
 * reachable from the initial one, and no guard needs a field nothing ever sets.
 */
export function validateStates(model: Model, bag: DiagnosticBag): void {
  for (const machine of model.machines) {
    const creating = machine.transitions.filter((t) => t.creates);
    if (creating.length === 0) {
      bag.report(
        'no-initial-state',
        machine.span,
        `${machine.entity}'s state machine has no transition from (new), so new records have no state.`,
        {
          hint: `Add a row such as "| create | (new) | ${machine.states[0]?.name ?? 'draft'} | | |" to say which state a new ${machine.entity} starts in.`,
        },
      );
    }
    for (const extra of creating.slice(1)) {
      bag.report('duplicate-initial-state', extra.span, `${machine.entity} has more than one transition from (new).`, {
        hint: `Keep one creating transition (the first is "${creating[0]?.name}").`,
      });
    }
    if (creating.length > 0) reportUnreachable(machine, bag);
  }
  checkGuardFields(model, bag);
}

/** The guards of point 4, for the expression type-check (see `validate/expressions.ts`). */
export function guardExpressions(model: Model): ExpressionItem[] {
  const items: ExpressionItem[] = [];
  for (const machine of model.machines) {
    for (const t of machine.transitions) {
      if (t.guard !== null && t.guardSpan) {
        items.push({
          source: t.guard,
          span: t.guardSpan,
          entity: machine.entity,
          field: null,
          what: `The guard of "${t.name}"`,
        });
      }
    }
  }
  return items;
}

function reportUnreachable(machine: StateMachine, bag: DiagnosticBag): void {
  const leaving = new Map<string, string[]>();
  for (const t of machine.transitions) {
    for (const from of t.from) {
      const targets = leaving.get(from);
      if (targets) targets.push(t.to);
      else leaving.set(from, [t.to]);
    }
  }
  const reached = new Set([machine.initial]);
  const queue = [machine.initial];
  for (let state = queue.pop(); state !== undefined; state = queue.pop()) {
    for (const to of leaving.get(state) ?? []) {
      if (!reached.has(to)) {
        reached.add(to);
        queue.push(to);
      }
    }
  }
  for (const state of machine.states) {
    if (reached.has(state.name)) continue;
    bag.report(
      'unreachable-state',
      state.span,
      `State "${state.name}" of ${machine.entity} cannot be reached from "${machine.initial}".`,
      {
        hint: `Add a transition into "${state.name}" from a reachable state, or remove it.`,
      },
    );
  }
}

/**
 * Guards that can never hold: a guard that mentions an empty field fails, so a guard naming a
 * field nothing ever sets refuses its transition every time. A field is set when it has a
 * default, or when some call carries it in its payload and may set it: a create or update a role
 * may make with that field (point 6; every signed-in user sets every field when it is not shown),
 * or a transition (whose payload point 6's field lists do not limit), or a transition sets it
 * (point 4's `sets`). When point 7 is not shown the derived create and update calls carry every
 * field.
 */
function checkGuardFields(model: Model, bag: DiagnosticBag): void {
  const rolesShown = model.points.find((p) => p.key === 'roles')?.shown ?? false;
  const calls = effectiveCalls(model);
  for (const machine of model.machines) {
    const entity = model.entities.find((e) => e.name === machine.entity);
    // Records nobody can create have nothing to guard (the guards never run): that is another
    // diagnostic's to say (entity-without-permissions), or a product under construction.
    const created =
      calls.some((c) => c.action.kind === 'create' && c.action.entity === machine.entity) &&
      (!rolesShown || model.permissions.some((p) => p.entity === machine.entity && p.create));
    if (!entity || !created) continue;
    const heads = new Set(entity.fields.map((f) => f.name));
    const never = new Map<string, string | null>();
    const hintFor = (field: string) => {
      if (!never.has(field)) never.set(field, neverSetHint(model, entity, field, calls, rolesShown));
      return never.get(field) ?? null;
    };
    for (const t of machine.transitions) {
      if (t.guard === null || !t.guardSpan) continue;
      for (const [field] of chainsOf(findCounts(t.guard).rewritten, heads)) {
        const hint = field === undefined ? null : hintFor(field);
        if (hint === null) continue;
        bag.report(
          'guard-field-never-set',
          t.guardSpan,
          `The guard of "${t.name}" needs ${entity.name}.${field}, which nothing ever sets, so it can never hold.`,
          { hint },
        );
      }
    }
  }
}

/** What would let `field` be set, or null when something already may set it. */
function neverSetHint(
  model: Model,
  entity: Entity,
  field: string,
  calls: readonly Call[],
  rolesShown: boolean,
): string | null {
  if (entity.fields.find((f) => f.name === field)?.default != null) return null;
  const machine = model.machines.find((m) => m.entity === entity.name);
  if (machine?.transitions.some((t) => t.sets?.some((a) => a.field === field))) return null;
  const carries = (kind: 'create' | 'update' | 'transition') =>
    calls.some(
      (c) =>
        c.action.kind === kind &&
        c.action.entity === entity.name &&
        c.payload !== null &&
        (c.payload.fields === null || c.payload.fields.includes(field)),
    );
  const permissions = model.permissions.filter((p) => p.entity === entity.name);
  const mayCreate =
    !rolesShown || permissions.some((p) => p.create && (p.createFields === null || p.createFields.includes(field)));
  const mayUpdate =
    !rolesShown ||
    permissions.some((p) => p.update !== 'none' && (p.updateFields === null || p.updateFields.includes(field)));
  if ((mayCreate && carries('create')) || (mayUpdate && carries('update')) || carries('transition')) return null;
  const ways = [`give ${field} a default in point 3`];
  if (!mayCreate && !mayUpdate) {
    ways.push(`let a role set it in point 6 ("create (…, ${field})" or "update (…, ${field})")`);
  }
  const missing = (['create', 'update'] as const).filter((kind) => !carries(kind));
  if (missing.length > 0) {
    ways.push(
      `add it to a ${missing.join(' or ')} call's payload, or a transition's, in point 7 ("${entity.name} (…, ${field})")`,
    );
  }
  const said = ways.length === 1 ? (ways[0] ?? '') : `${ways.slice(0, -1).join(', ')}, or ${ways.at(-1)}`;
  return `${capitalise(said)}.`;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
