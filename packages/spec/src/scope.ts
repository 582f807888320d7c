import { BUILTIN_ERRORS } from './builtin-errors.ts';
import type { DiagnosticBag } from './diagnostics.ts';
import type { Bound, Entity, FieldType, Model, Span, StateMachine, Transition } from './model.ts';
import { ANYONE } from './model.ts';
import { transitionSlug, USER_ENTITY } from './names.ts';
import type { Cell } from './parse-tables.ts';
import { suggest } from './suggest.ts';

/** One `own via` chain of point 6: its cell, the permission as written, and the type it ends at. */
export interface OwnChain {
  chain: Cell;
  what: string;
  end: FieldType | null;
}

/** Whether a chain's last field refers to a user: then it says whose records are the role's own. */
export function endsAtUser(type: FieldType | null): boolean {
  return type?.kind === 'reference' && type.entity === USER_ENTITY;
}

/**
 * What later points may refer to, built as the points are read (constants and errors first,
 * then entities, roles, machines). Resolving a name reports `unknown-…` with did-you-mean.
 */
export class Scope {
  readonly entities = new Map<string, Entity>();
  readonly machines = new Map<string, StateMachine>();
  readonly roles = new Set<string>();
  readonly constants = new Map<string, Model['constants'][number]>();
  readonly codes = new Set<string>(Object.keys(BUILTIN_ERRORS));
  /** Names used anywhere, for the unused-code and unused-constant warnings. */
  readonly usedCodes = new Set<string>();
  readonly usedConstants = new Set<string>();
  /** Where each catalogued message is written, for placeholder diagnostics. */
  readonly messageSpans = new Map<string, Span>();
  /** True when point 6 is shown: only then are role names checked. */
  rolesShown = false;
  /**
   * Checks of names that point 4 defines but an earlier point uses (the states of point 6's
   * `while`): run once the machines are read.
   */
  readonly afterMachines: (() => void)[] = [];
  /**
   * Point 6's `own via` chains as linked (`read-roles.ts`): where each is written, in whose
   * permission, and the type of its last field, for `validate/roles.ts` to judge whether it ends at
   * a user.
   */
  readonly ownChains: OwnChain[] = [];

  readonly bag: DiagnosticBag;

  constructor(bag: DiagnosticBag) {
    this.bag = bag;
  }

  entity(cell: Cell, what: string, allowUser = false): Entity | null | undefined {
    const name = cell.text;
    if (allowUser && name === USER_ENTITY) return null;
    const entity = this.entities.get(name);
    if (entity) return entity;
    const names = [...this.entities.keys(), ...(allowUser ? [USER_ENTITY] : [])];
    this.bag.report('unknown-entity', cell.span, `${what} names entity "${name}", which point 3 does not define.`, {
      expected: suggest(name, names),
    });
    return undefined;
  }

  field(entity: Entity, cell: Cell, what: string, extra: readonly string[] = []): boolean {
    const name = cell.text;
    if (entity.fields.some((f) => f.name === name) || extra.includes(name)) return true;
    // Its type was reported where it is declared; the use is no second mistake.
    if (entity.untyped?.includes(name)) return false;
    if (this.bag.reserved(entity.name, name)) return false;
    this.bag.report('unknown-field', cell.span, `${what} names field "${name}", which ${entity.name} does not have.`, {
      expected: suggest(name, [...entity.fields.map((f) => f.name), ...extra]),
      hint: entity.fields.length === 0 ? `${entity.name} has no fields.` : undefined,
    });
    return false;
  }

  role(cell: Cell, what: string): boolean {
    const name = cell.text;
    if (name === ANYONE || this.roles.has(name)) return true;
    this.bag.report('unknown-role', cell.span, `${what} names role "${name}", which point 6 does not define.`, {
      expected: suggest(name, [...this.roles, ANYONE]),
      hint: this.rolesShown
        ? undefined
        : 'Point 6 is not shown, so the spec has no roles: add a roles table, or leave "who" empty for every signed-in user.',
    });
    return false;
  }

  state(machine: StateMachine | undefined, entity: string, cell: Cell, what: string): boolean {
    const name = cell.text;
    if (!machine) {
      this.bag.report(
        'unknown-state',
        cell.span,
        `${what} names state "${name}", but ${entity} has no states in point 4.`,
      );
      return false;
    }
    if (machine.states.some((s) => s.name === name)) return true;
    this.bag.report('unknown-state', cell.span, `${what} names state "${name}", which is not a state of ${entity}.`, {
      expected: suggest(
        name,
        machine.states.map((s) => s.name),
      ),
      hint: `${entity}'s states are ${machine.states.map((s) => s.name).join(', ')}.`,
    });
    return false;
  }

  /**
   * The transition of `entity` that `cell` names (by its slug, so `mark overdue` and
   * `mark-overdue` are one), reported as `${said} transition "…", which … does not have.`
   * otherwise. `creating: false` leaves out the transition from (new): a call runs it through
   * the create call.
   */
  transition(entity: Entity, cell: Cell, said: string, { creating = true } = {}): Transition | undefined {
    const name = cell.text;
    const machine = this.machines.get(entity.name);
    const candidates = machine?.transitions.filter((t) => creating || !t.creates) ?? [];
    const found = candidates.find((t) => t.slug === transitionSlug(name));
    if (found) return found;
    this.bag.report(
      'unknown-transition',
      cell.span,
      `${said} transition "${name}", which ${entity.name} does not have.`,
      {
        expected: suggest(
          name,
          candidates.map((t) => t.name),
        ),
        hint: !machine
          ? `${entity.name} has no state machine in point 4.`
          : machine.transitions.some((t) => t.creates && t.slug === transitionSlug(name))
            ? `"${name}" creates the record: it runs through the create call, not a call of its own.`
            : undefined,
      },
    );
    return undefined;
  }

  code(cell: Cell, what: string): boolean {
    const code = cell.text;
    this.usedCodes.add(code);
    if (this.codes.has(code)) return true;
    this.bag.report(
      'unknown-error-code',
      cell.span,
      `${what} uses error code ${code}, which point 8 does not catalogue.`,
      {
        expected: suggest(code, this.codes),
        hint: `Add a row "| ${code} | 422 | … |" to the error catalogue.`,
      },
    );
    return false;
  }

  /**
   * The seconds of the duration constant `name`, written in `cell` (`after SLA_RESPONSE`); reports
   * (`${said} NAME, which …`) and returns null when point 9 has no such constant or it is no duration.
   */
  duration(name: string, cell: Cell, said: string): number | null {
    const found = this.constants.get(name);
    if (!found) {
      this.bag.report('unknown-constant', cell.span, `${said} ${name}, which point 9 does not define.`, {
        expected: suggest(name, this.constants.keys()),
        hint: `Add a row "| ${name} | 4 hours | … |" to point 9, or write the time, e.g. "after 4 hours".`,
      });
      return null;
    }
    this.usedConstants.add(name);
    if (found.type !== 'duration') {
      this.bag.report('invalid-duration', cell.span, `${said} ${name}, which is a ${found.type}, not a duration.`, {
        hint: `Give ${name} a duration in point 9, e.g. "4 hours", "30 minutes" or "2 days".`,
      });
      return null;
    }
    return Number(found.value);
  }

  /** A number or a numeric constant's name. Reports and returns null when it is neither. */
  bound(cell: Cell, what: string): Bound | null {
    const text = cell.text;
    if (/^-?\d+(\.\d+)?$/.test(text)) return { value: Number(text), constant: null };
    const constant = this.constants.get(text);
    if (constant) {
      this.usedConstants.add(text);
      if (typeof constant.value === 'number' && constant.type !== 'duration') {
        return { value: constant.value, constant: text };
      }
      this.bag.report(
        'invalid-field-rule',
        cell.span,
        `${what} uses constant ${text}, which is a ${constant.type}, not a number.`,
      );
      return null;
    }
    if (/^[A-Z][A-Z0-9_]*$/.test(text)) {
      this.bag.report('unknown-constant', cell.span, `${what} uses constant ${text}, which point 9 does not define.`, {
        expected: suggest(text, this.constants.keys()),
        hint: `Add a row "| ${text} | 10 | … |" to point 9, or write a number.`,
      });
    } else {
      this.bag.report('invalid-field-rule', cell.span, `${what}: "${text}" is neither a number nor a constant name.`);
    }
    return null;
  }
}
