import { type Access, ANYONE, type Model, type Permission, type RecordOperation, rolesDeclared } from './model.ts';

/** What one role may do with one entity's records (point 6). */
export interface PermissionCell {
  create: boolean;
  read: Access;
  update: Access;
  delete: Access;
  /** The fields it may set on create and change on update; null for all. */
  createFields: string[] | null;
  updateFields: string[] | null;
  /** Whose records are own (`via`) and the states a grant needs (`while`), per operation; absent for none. */
  via?: Permission['via'];
  inStates?: Permission['inStates'];
  /** The fields it sees of the records it reads; null for all. */
  readFields: string[] | null;
  /** The entity's fields it does not see (empty when it sees all): `read all except (speaker)`. */
  hiddenFields: string[];
}

/** Point 6 as a table: a row per entity, a column per role. */
export interface PermissionMatrix {
  /** The columns: the spec's roles in order, or the one pseudo-role of a spec without roles. */
  roles: string[];
  /** True when point 6 is not shown: every signed-in user may do everything, visitors nothing. */
  derived: boolean;
  rows: { entity: string; cells: PermissionCell[] }[];
  /** Transitions limited to some roles, per entity: "approve: manager". */
  transitions: { entity: string; transition: string; who: string[] }[];
}

/** Stands for every signed-in user in the matrix of a spec whose point 6 is not shown. */
export const SIGNED_IN = 'any signed-in user';

const NONE: PermissionCell = {
  create: false,
  read: 'none',
  update: 'none',
  delete: 'none',
  createFields: null,
  updateFields: null,
  readFields: null,
  hiddenFields: [],
};
const ALL: PermissionCell = {
  create: true,
  read: 'all',
  update: 'all',
  delete: 'all',
  createFields: null,
  updateFields: null,
  readFields: null,
  hiddenFields: [],
};

/** The permission matrix of a model, with the runtime's defaults where point 6 is not shown. */
export function permissionMatrix(
  model: Pick<Model, 'entities' | 'roles' | 'permissions' | 'machines'>,
): PermissionMatrix {
  const derived = !rolesDeclared(model);
  const roles = derived ? [SIGNED_IN] : model.roles.map((r) => r.name);
  if (!derived && model.permissions.some((p) => p.role === ANYONE) && !roles.includes(ANYONE)) roles.push(ANYONE);
  const rows = model.entities.map((entity) => ({
    entity: entity.name,
    cells: roles.map((role): PermissionCell => {
      if (derived) return ALL;
      const row = model.permissions.find((p) => p.entity === entity.name && p.role === role);
      if (!row) return NONE;
      const { create, read, update, delete: remove, createFields, updateFields, readFields, via, inStates } = row;
      const hiddenFields =
        readFields === null ? [] : entity.fields.map((f) => f.name).filter((n) => !readFields.includes(n));
      return {
        create,
        read,
        update,
        delete: remove,
        createFields,
        updateFields,
        readFields,
        hiddenFields,
        via,
        inStates,
      };
    }),
  }));
  const transitions = model.machines.flatMap((m) =>
    m.transitions.filter((t) => t.who.length > 0).map((t) => ({ entity: m.entity, transition: t.name, who: t.who })),
  );
  return { roles, derived, rows, transitions };
}

/**
 * One cell in words: "create, read all, update own (notes)", "read all except (speaker)" (the
 * shorter of the fields seen and the fields hidden), or "none".
 */
export function describeCell(cell: PermissionCell): string {
  const only = (fields: string[] | null) => (fields === null ? '' : ` (${fields.join(', ')})`);
  const seen =
    cell.readFields === null || cell.hiddenFields.length === 0
      ? ''
      : cell.readFields.length === 0 || cell.hiddenFields.length < cell.readFields.length
        ? ` except (${cell.hiddenFields.join(', ')})`
        : only(cell.readFields);
  const when = (op: RecordOperation) => {
    const via = cell.via?.[op];
    const states = cell.inStates?.[op];
    return `${via ? ` via ${via.map((c) => c.join('.')).join(' or ')}` : ''}${states ? ` while ${states.join(' or ')}` : ''}`;
  };
  const parts = [
    cell.create ? `create${only(cell.createFields)}` : '',
    cell.read !== 'none' ? `read ${cell.read}${when('read')}${seen}` : '',
    cell.update !== 'none' ? `update ${cell.update}${only(cell.updateFields)}${when('update')}` : '',
    cell.delete !== 'none' ? `delete ${cell.delete}${when('delete')}` : '',
  ].filter((p) => p !== '');
  return parts.length > 0 ? parts.join(', ') : 'none';
}

/** The matrix as a Markdown table, for `ninepoint diagram` and docs. */
export function formatPermissionMatrix(matrix: PermissionMatrix): string {
  const lines = [
    `| entity | ${matrix.roles.join(' | ')} |`,
    `|---|${matrix.roles.map(() => '---').join('|')}|`,
    ...matrix.rows.map((row) => `| ${row.entity} | ${row.cells.map(describeCell).join(' | ')} |`),
  ];
  if (matrix.transitions.length > 0) {
    lines.push('', '| entity | transition | who |', '|---|---|---|');
    for (const t of matrix.transitions) lines.push(`| ${t.entity} | ${t.transition} | ${t.who.join(', ')} |`);
  }
  return lines.join('\n');
}
