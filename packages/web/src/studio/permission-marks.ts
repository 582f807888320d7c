import type { PermissionCell, Role } from '@ninepoint/spec';

export type MarkLevel = 'all' | 'own' | 'none';

/** One operation of a permission cell as the Studio's grid draws it: a letter, filled for every record. */
export interface PermissionMark {
  letter: 'C' | 'R' | 'U' | 'D';
  operation: 'create' | 'read' | 'update' | 'delete';
  level: MarkLevel;
  /** What narrows the grant, in the spec's words: `(due)`, `via doctor.account`, `while out`, `except (notes)`. */
  conditions: string[];
}

/** A cell of the permission matrix as four marks, create, read, update and delete, in that order. */
export function permissionMarks(cell: PermissionCell): PermissionMark[] {
  const fields = (list: string[] | null) => (list === null ? [] : [`(${list.join(', ')})`]);
  const when = (operation: 'read' | 'update' | 'delete') => {
    const via = cell.via?.[operation];
    const states = cell.inStates?.[operation];
    return [
      ...(via ? [`via ${via.map((chain) => chain.join('.')).join(' or ')}`] : []),
      ...(states ? [`while ${states.join(' or ')}`] : []),
    ];
  };
  const seen =
    cell.readFields === null || cell.hiddenFields.length === 0
      ? []
      : cell.readFields.length > 0 && cell.hiddenFields.length >= cell.readFields.length
        ? fields(cell.readFields)
        : [`except (${cell.hiddenFields.join(', ')})`];
  const mark = (
    letter: PermissionMark['letter'],
    operation: PermissionMark['operation'],
    level: MarkLevel,
    conditions: string[],
  ): PermissionMark => ({ letter, operation, level, conditions: level === 'none' ? [] : conditions });
  return [
    mark('C', 'create', cell.create ? 'all' : 'none', fields(cell.createFields)),
    mark('R', 'read', cell.read, [...when('read'), ...seen]),
    mark('U', 'update', cell.update, [...fields(cell.updateFields), ...when('update')]),
    mark('D', 'delete', cell.delete, when('delete')),
  ];
}

/** A role's joining and people grants in words, or null when it has neither (invitation only, nothing). */
export function peopleWords(role: Pick<Role, 'joins' | 'people'>): { joins: string; people: string } | null {
  const joins =
    role.joins.kind === 'invitation'
      ? 'by invitation'
      : role.joins.domains.length === 0
        ? 'sign up'
        : `sign up (${role.joins.domains.join(', ')})`;
  const { invite, manage } = role.people;
  const people = manage
    ? 'manage'
    : invite === 'any'
      ? 'invite (any role)'
      : invite.length > 0
        ? `invite (${invite.join(', ')})`
        : '-';
  return role.joins.kind === 'invitation' && people === '-' ? null : { joins, people };
}
