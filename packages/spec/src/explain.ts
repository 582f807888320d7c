import { dashboardText } from './derive-screens.ts';
import { explainOutgoing } from './explain-outgoing.ts';
import { explainedType, kindFacts } from './field-kinds.ts';
import { limitGroupWords } from './limit-words.ts';
import type {
  Access,
  Bound,
  Call,
  Constant,
  DefaultValue,
  Entity,
  ErrorCode,
  Field,
  Model,
  Permission,
  PointKey,
  Role,
  Rule,
  Screen,
  ScreenFilter,
  StateMachine,
  Transition,
} from './model.ts';
import { ANYONE } from './model.ts';
import { wordList } from './word-list.ts';

/** What the runtime does in place of a point that is not shown, so a reader of a sparse spec is not left guessing. */
const WHEN_NOT_SHOWN: Record<PointKey, string> = {
  product: 'the product has no description.',
  screens: 'a home screen, and a list, detail and form screen per entity, are derived.',
  entities: 'nothing is stored.',
  states: 'records have no states.',
  rules: 'records are checked only against their fields’ own rules.',
  roles: 'there are no roles, so every signed-in user may do everything.',
  calls: 'the conventional calls per entity are derived.',
  errors: 'only the built-in error codes are used.',
  constants: 'runtime settings keep their defaults.',
};

const INDENT = '  ';

/**
 * The checked model as plain text, for `ninepoint explain`: the way to confirm that the checker
 * read the spec the way its author meant it, with every table turned back into sentences.
 * Pure, so the Studio can show the same text in the browser.
 */
export function explainModel(model: Model): string {
  const shown = model.points.filter((p) => p.shown).length;
  const lines: string[] = [model.product.name, '='.repeat(Math.max(model.product.name.length, 1))];
  lines.push(
    shown === 0
      ? 'All nine points are not shown: a product with no visible behaviour yet.'
      : `${shown} of ${model.points.length} points shown.`,
  );
  let previousShown = true;
  for (const point of model.points) {
    if (point.shown || previousShown) lines.push('');
    previousShown = point.shown;
    if (!point.shown) {
      lines.push(`${point.number}. ${point.title}: not shown; ${WHEN_NOT_SHOWN[point.key]}`);
      continue;
    }
    lines.push(`${point.number}. ${point.title}`);
    const body = explainPoint(model, point.key);
    lines.push(...(body.length > 0 ? body : ['(shown, but it lists nothing)']).map((l) => indent(l)));
  }
  return `${lines.join('\n')}\n`;
}

function explainPoint(model: Model, key: PointKey): string[] {
  switch (key) {
    case 'product':
      return explainProduct(model);
    case 'screens':
      return model.screens.flatMap(explainScreen);
    case 'entities':
      return [
        ...model.entities.flatMap(explainEntity),
        'Every record also has id, created_at, updated_at, created_by, and state when it has a state machine.',
      ];
    case 'states':
      return model.machines.flatMap(explainMachine);
    case 'rules':
      return model.rules.flatMap(explainRule);
    case 'roles':
      return model.roles.flatMap((role) => explainRole(role, model));
    case 'calls':
      return [...model.calls.flatMap(explainCall), ...explainOutgoing(model)];
    case 'errors':
      return model.errors.map(explainError);
    case 'constants':
      return model.constants.map(explainConstant);
  }
}

function explainProduct(model: Model): string[] {
  const { summary, audience } = model.product;
  const lines = summary === '' ? [] : summary.split('\n');
  if (audience !== '') lines.push(...`For whom: ${audience}`.split('\n'));
  return lines;
}

function explainScreen(screen: Screen): string[] {
  const what = screen.tiles
    ? `dashboard of ${dashboardText(screen.tiles)}`
    : screen.kind === 'home' || screen.entity === null
      ? 'home'
      : `${screen.kind} of ${screen.entity}${screen.filters.map(explainFilter).join('')}`;
  return withDoc(`${screen.route}: ${what}, ${explainAudience(screen.who)}`, screen.doc);
}

function explainFilter(filter: ScreenFilter, index: number): string {
  const value = 'me' in filter.value ? 'me (the signed-in user)' : literal(filter.value.literal);
  return `${index === 0 ? ' where' : ' and'} ${filter.field} = ${value}`;
}

function explainAudience(who: string[]): string {
  if (who.includes(ANYONE)) return 'open to anyone, signed in or not';
  return who.length === 0 ? 'open to every signed-in user' : `open to ${wordList(who, 'and')}`;
}

function explainEntity(entity: Entity): string[] {
  return [
    ...withDoc(entity.name, entity.doc),
    ...entity.fields.flatMap((field) => withDoc(explainField(field), field.doc).map((l) => indent(l))),
  ];
}

/** E.g. "copies: integer, required, from 0 to MAX_COPIES (50), default 1". */
function explainField(field: Field): string {
  const parts = [explainedType(field.type), field.required ? 'required' : 'optional'];
  if (field.unique) parts.push('unique');
  const range = explainLimits(field.min, field.max, '');
  if (range !== null) parts.push(range);
  const length = explainLimits(field.minLength, field.maxLength, ' characters');
  if (length !== null && field.maxLength !== null) parts.push(length);
  else {
    // No length of its own: the runtime's default bounds it, and the author should know the figure.
    const most = kindFacts(field.type).maxLength;
    if (length !== null) parts.push(length);
    if (most !== null) parts.push(`at most ${Math.max(most, field.minLength?.value ?? 0)} characters (the default)`);
  }
  if (field.pattern !== null) parts.push(`matching the pattern ${field.pattern}`);
  if (field.default !== null) parts.push(`default ${explainDefault(field.default)}`);
  return `${field.name}: ${parts.join(', ')}`;
}

function explainLimits(min: Bound | null, max: Bound | null, unit: string): string | null {
  if (min !== null && max !== null) return `from ${bound(min)} to ${bound(max)}${unit}`;
  if (min !== null) return `at least ${bound(min)}${unit}`;
  if (max !== null) return `at most ${bound(max)}${unit}`;
  return null;
}

function bound(b: Bound): string {
  return b.constant === null ? String(b.value) : `${b.constant} (${b.value})`;
}

function explainDefault(value: DefaultValue): string {
  if ('literal' in value) return literal(value.literal);
  return value.dynamic === 'me' ? 'the acting user' : value.dynamic;
}

function explainMachine(machine: StateMachine): string[] {
  const states = machine.states.map((s) => s.name);
  const head = `${machine.entity}: starts in ${machine.initial}; states ${wordList(states, 'and')}`;
  return [
    ...withDoc(head, machine.doc),
    ...machine.states.filter((s) => s.doc !== '').map((s) => indent(`${s.name}: ${s.doc}`)),
    ...machine.transitions.flatMap((t) => withDoc(explainTransition(t, machine.entity), t.doc).map((l) => indent(l))),
  ];
}

/** E.g. "lend: (new) → out, by staff, when book.copies > 0" (and "; otherwise NO_COPIES" for its own error). */
function explainTransition(transition: Transition, entity: string): string {
  const from = transition.creates ? '(new)' : transition.from.join(', ');
  const who = transition.who.includes(ANYONE)
    ? 'by anyone, signed in or not'
    : transition.who.length === 0
      ? `by any role that may update ${entity}`
      : `by ${wordList(transition.who, 'or')}`;
  const guard = transition.guard === null ? '' : `, when ${transition.guard}`;
  const error = transition.guard !== null && transition.error !== null ? `; otherwise ${transition.error}` : '';
  const assignments = (transition.sets ?? []).map((a) => `${a.field} = ${a.source}`);
  const sets = assignments.length > 0 ? `; sets ${assignments.join(', ')}` : '';
  const timing = transition.automatic;
  if (timing) {
    const by =
      transition.who.length === 0 ? 'by the app itself' : `by the app itself (or by ${wordList(transition.who, 'or')})`;
    const when =
      timing.kind === 'after'
        ? `, after ${timing.constant ?? `${timing.seconds} s`} in ${timing.state ?? 'its state'}`
        : guard;
    return `${transition.name}: ${from} → ${transition.to}, ${by}${when}${error}${sets}`;
  }
  return `${transition.name}: ${from} → ${transition.to}, ${who}${guard}${error}${sets}`;
}

function explainRule(rule: Rule): string[] {
  const { entity, field, transition } = rule.appliesTo;
  const target = `${field === null ? entity : `${entity}.${field}`}${transition === null ? '' : `, when taking ${transition}`}`;
  const condition =
    rule.condition.kind === 'expression'
      ? rule.condition.source
      : `at most ${bound(rule.condition.max)} ${rule.condition.entity}${
          rule.condition.states.length === 0 ? '' : ` in state ${wordList(rule.condition.states, 'or')}`
        } ${limitGroupWords(rule.condition)}`;
  return withDoc(`${rule.name} (${target}): ${condition}; otherwise ${rule.error}`, rule.doc);
}

function explainRole(role: Role, model: Model): string[] {
  const grants = model.permissions
    .filter((p) => p.role === role.name)
    .map((p) => explainPermission(p, model))
    .filter((g) => g !== '');
  const name = role.name === ANYONE ? `${ANYONE} (signed-out visitors included)` : role.name;
  const people = explainPeople(role);
  const may =
    grants.length === 0 && people.length > 0 ? [] : [`may ${grants.length === 0 ? 'do nothing' : grants.join('; ')}`];
  return withDoc(`${name} ${[...may, ...people].join('; ')}`, role.doc);
}

/** E.g. "people may sign up to it (emails at clinic.example)", "may invite people as member". */
function explainPeople(role: Role): string[] {
  const said: string[] = [];
  if (role.joins.kind === 'sign-up') {
    const { domains } = role.joins;
    said.push(`people may sign up to it${domains.length === 0 ? '' : ` (emails at ${wordList(domains, 'or')} only)`}`);
  }
  if (role.people.manage) said.push("manages people's accounts and roles");
  else if (role.people.invite === 'any') said.push('may invite people into any role');
  else if (role.people.invite.length > 0) said.push(`may invite people as ${wordList(role.people.invite, 'or')}`);
  if (role.twoFactor) said.push('must sign in with two-factor (nothing else until it is set up)');
  return said;
}

/**
 * E.g. "create, read and update own Loan", "create (setting only title) Ticket", "read (all
 * but speaker) Talk"; "" when the role may do nothing with the entity.
 */
function explainPermission(permission: Permission, model: Model): string {
  const only = (fields: string[] | null) => (fields === null ? '' : ` (setting only ${wordList(fields, 'and')})`);
  const access = (verb: string, a: Access, fields: string[] | null = null, said = only) =>
    a === 'none' ? [] : [`${a === 'own' ? `${verb} own` : verb}${said(fields)}`];
  const anonymous = permission.hidesAuthor === true ? ', not who made or changed them' : '';
  const seen = (fields: string[] | null) => {
    if (fields === null) return anonymous === '' ? '' : ` (all fields${anonymous})`;
    const all = model.entities.find((e) => e.name === permission.entity)?.fields.map((f) => f.name) ?? [];
    const hidden = all.filter((name) => !fields.includes(name));
    if (hidden.length === 0) return anonymous === '' ? '' : ` (all fields${anonymous})`;
    if (fields.length === 0) return ` (no fields but the system ones${anonymous})`;
    return hidden.length < fields.length
      ? ` (all but ${wordList(hidden, 'and')}${anonymous})`
      : ` (only ${wordList(fields, 'and')}${anonymous})`;
  };
  const verbs = [
    ...(permission.create ? [`create${only(permission.createFields)}`] : []),
    ...access('read', permission.read, permission.readFields, seen),
    ...access('update', permission.update, permission.updateFields),
    ...access('delete', permission.delete),
  ];
  return verbs.length === 0 ? '' : `${wordList(verbs, 'and')} ${permission.entity}`;
}

function explainCall(call: Call): string[] {
  const action = call.action;
  const does =
    action.kind === 'transition'
      ? `take "${action.transition}" on a ${action.entity}`
      : action.kind === 'code'
        ? `run ${action.code.export === 'default' ? '' : `${action.code.export} from `}${action.code.file} on a ${action.entity}${call.answer ? `, answering ${call.answer.entity}${call.answer.fields ? ` (${call.answer.fields.join(', ')})` : ''}` : ''}`
        : `${action.kind} ${action.entity}`;
  const payload =
    call.payload === null
      ? ''
      : `, payload ${call.payload.entity}${call.payload.fields === null ? '' : ` (${call.payload.fields.join(', ')})`}`;
  return withDoc(`${call.method} ${call.path}: ${does}${payload}`, call.doc);
}

function explainError(error: ErrorCode): string {
  return `${error.code} (${error.status}${error.builtin ? ', built in' : ''}): ${error.message}`;
}

function explainConstant(constant: Constant): string {
  const head = `${constant.name} = ${constant.raw} (${constant.type})`;
  return constant.meaning === '' ? head : `${head}: ${constant.meaning}`;
}

function withDoc(line: string, doc: string): string[] {
  const text = doc.trim();
  return text === '' ? [line] : [line, ...text.split('\n').map((l) => indent(l))];
}

function indent(line: string): string {
  return line === '' ? '' : `${INDENT}${line}`;
}

function literal(value: string | number | boolean): string {
  return typeof value === 'string' && /\s/.test(value) ? JSON.stringify(value) : String(value);
}
