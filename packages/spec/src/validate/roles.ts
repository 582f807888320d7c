import type { DiagnosticBag } from '../diagnostics.ts';
import type { Model } from '../model.ts';
import { USER_ENTITY } from '../names.ts';

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
