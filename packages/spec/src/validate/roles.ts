import type { DiagnosticBag } from '../diagnostics.ts';
import type { Entity, Model, Permission, RecordOperation } from '../model.ts';
import { USER_ENTITY } from '../names.ts';
import { endsAtUser, type Scope } from '../scope.ts';

/**
 * Point 6's checks on the permissions read: every entity is granted to some role, and a role that
 * may create records can set every field a record needs. Only when point 6 is shown: otherwise
 * every signed-in user may do everything.
 */
export function validateRoles(model: Model, bag: DiagnosticBag): void {
  const point = model.points.find((p) => p.key === 'roles');
  if (!point?.shown || !point.span) return;
  for (const entity of model.entities) {
    if (
      model.permissions.some(
        (p) =>
          p.entity === entity.name && (p.create || p.read !== 'none' || p.update !== 'none' || p.delete !== 'none'),
      )
    )
      continue;
    bag.report('entity-without-permissions', point.span, `No role may do anything with ${entity.name}.`, {
      hint: `Add a "${entity.name}" column to the roles table, e.g. "read" for the roles that see it.`,
    });
  }
  checkSettable(model, bag);
  checkAuthorShown(model, bag);
  checkOwnReachable(model, bag);
}

/**
 * Every `own via` chain must end at a field referring to a user (or `created_by`): the chain says
 * whose records are the role's own, so its last step is that person. The reader links the chain
 * (its names and steps through references, `reference-paths.ts`) and leaves a grant whose chain
 * ends elsewhere out of the model; this says why.
 */
export function validateOwnChains(scope: Scope): void {
  for (const { chain, what, end } of scope.ownChains) {
    if (endsAtUser(end)) continue;
    scope.bag.report(
      'invalid-reference-path',
      chain.span,
      `${what}: "${chain.text}" does not end at a user, so it cannot say whose records are the role's own.`,
      { hint: 'End the chain at a field referring to User (or created_by), e.g. doctor.account.' },
    );
  }
}

/**
 * A role that does not see a `User` field (`read except (speaker)`) but sees `created_by` learns
 * the person anyway when that person made the record: when some role that reads only its own
 * records of the entity (or none) creates them, those who create are those the field names (a
 * speaker submits their own talk). Staff entering records for others (a role reading every
 * record) give nothing away, so that is not warned of.
 */
function checkAuthorShown(model: Model, bag: DiagnosticBag): void {
  for (const entity of model.entities) {
    const userFields = entity.fields.filter((f) => f.type.kind === 'reference' && f.type.entity === USER_ENTITY);
    if (userFields.length === 0) continue;
    const rows = model.permissions.filter((p) => p.entity === entity.name);
    const selfCreators = rows.filter((p) => p.create && (p.read !== 'all' || p.inStates.read !== null));
    if (selfCreators.length === 0) continue;
    for (const row of rows) {
      if (row.read === 'none' || row.readFields === null || row.hidesAuthor === true) continue;
      const readFields = row.readFields;
      const hidden = userFields.filter((f) => !readFields.includes(f.name)).map((f) => f.name);
      if (hidden.length === 0) continue;
      const creator = (selfCreators.find((p) => p.role !== row.role) ?? selfCreators[0])?.role ?? '';
      bag.report(
        'author-reveals-hidden-field',
        row.span,
        `${row.role} does not see ${entity.name}.${hidden.join(`, ${entity.name}.`)}, but sees created_by, which names the same person when ${creator} creates their own ${entity.name}.`,
        {
          hint: `Write "read except (${[...hidden, 'created_by'].join(', ')})" for ${row.role}, so who made or changed a ${entity.name} is hidden too.`,
        },
      );
    }
  }
}

/**
 * A role that may create records but not set a required field without a default could never
 * create one: the field would always be missing. Without a list of its own, create sets the
 * fields the role reads (`read except (speaker)`: not speaker).
 */
function checkSettable(model: Model, bag: DiagnosticBag): void {
  const entities = new Map(model.entities.map((e) => [e.name, e]));
  for (const permission of model.permissions) {
    const settable = permission.createFields ?? permission.readFields;
    if (!permission.create || settable === null) continue;
    const entity = entities.get(permission.entity);
    const missing = (entity?.fields ?? []).filter(
      (f) => f.required && f.default === null && !settable.includes(f.name),
    );
    if (missing.length === 0) continue;
    const names = missing.map((f) => f.name);
    const one = names.length === 1;
    const hidden = permission.createFields === null;
    bag.report(
      'unsettable-field',
      permission.span,
      `${permission.role} may create ${permission.entity} but not set ${names.join(', ')}, which ${one ? 'is' : 'are'} required and ${one ? 'has' : 'have'} no default${hidden ? ` (a role sets only the fields it reads, unless create names ${one ? 'it' : 'them'})` : ''}: every create would be refused.`,
      {
        hint: `Add ${names.join(', ')} to the fields of "create", or give ${one ? 'it' : 'them'} a default in point 3.`,
      },
    );
  }
}

const OWN_OPERATIONS: readonly RecordOperation[] = ['read', 'update', 'delete'];

/**
 * `read own` without `via` means the records the user created or that name them in a field
 * referring to User. On an entity with no such field, a role that does not create its records
 * owns none of them: the grant gives it nothing, which is never what was meant. The hint names
 * the chain the role's own screen filters by (`Appointment where doctor.account = me`), else the
 * first chain of references from the entity to a User field.
 */
function checkOwnReachable(model: Model, bag: DiagnosticBag): void {
  const entities = new Map(model.entities.map((e) => [e.name, e]));
  for (const permission of model.permissions) {
    const entity = entities.get(permission.entity);
    if (!entity || permission.create || entity.fields.some(refersToUser)) continue;
    // A field left out for its reserved name (`user`) is reported already, and may be the owner.
    if ([...bag.reservedFields].some((name) => name.startsWith(`${entity.name}.`))) continue;
    const operations = OWN_OPERATIONS.filter((op) => permission[op] === 'own' && permission.via[op] === null);
    if (operations.length === 0) continue;
    const chain = screenChain(model, permission) ?? userChain(entity, entities);
    const grants = operations.map((op) => `${op} own`).join(', ');
    bag.report(
      'own-without-owner',
      permission.span,
      `${permission.role} may ${grants} ${entity.name}, but no ${entity.name} is ever theirs: it has no field referring to User, and ${permission.role} does not create them (created_by).`,
      {
        hint: chain
          ? `Say whose records they are: ${operations.map((op) => `${op} own via ${chain}`).join(', ')}.`
          : `Add a field referring to User to ${entity.name} (or a chain of references to one) and write "own via" it, or grant "${operations[0]}" without own.`,
      },
    );
  }
}

function refersToUser(field: Entity['fields'][number]): boolean {
  return field.type.kind === 'reference' && field.type.entity === USER_ENTITY;
}

/** The chain a screen of the role filters the entity by, `where doctor.account = me`. */
function screenChain(model: Model, permission: Permission): string | null {
  for (const screen of model.screens) {
    if (screen.entity !== permission.entity || !screen.who.includes(permission.role)) continue;
    const mine = screen.filters.find((f) => 'me' in f.value && f.field.includes('.'));
    if (mine) return mine.field;
  }
  return null;
}

/** The first chain of one reference to an entity with a User field (`doctor.account`). */
function userChain(entity: Entity, entities: ReadonlyMap<string, Entity>): string | null {
  for (const field of entity.fields) {
    if (field.type.kind !== 'reference' || field.type.entity === USER_ENTITY) continue;
    const user = entities.get(field.type.entity)?.fields.find(refersToUser);
    if (user) return `${field.name}.${user.name}`;
  }
  return null;
}
