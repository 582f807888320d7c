import type { Access, Permission, Role } from './model.ts';
import { ANYONE } from './model.ts';
import { plain, ROLE_NAME } from './names.ts';
import type { Section } from './parse-sections.ts';
import { type Cell, DOC_COLUMNS, splitList } from './parse-tables.ts';
import { allTables, NameSet, validName } from './read-helpers.ts';
import type { Scope } from './scope.ts';
import { suggest } from './suggest.ts';

const ROLE_HEADERS = ['role', 'roles', 'who'];
const OPERATIONS = ['create', 'read', 'update', 'delete', 'all', 'none', 'read own', 'update own', 'delete own'];

/**
 * Point 6: each row a role, each further column an entity, each cell the operations the role may
 * do: `create, read, update own`. A row named `anyone` is for signed-out visitors.
 */
export function readRoles(section: Section, scope: Scope): { roles: Role[]; permissions: Permission[] } {
  const { bag } = scope;
  const roles: Role[] = [];
  const permissions: Permission[] = [];
  const tables = allTables(section);
  // Roles first, so a role may be documented in one table and granted in another.
  const rows: { role: string; cells: Cell[]; columns: (string | null)[]; span: Role['span'] }[] = [];
  for (const table of tables) {
    const header = table.header.map((c) => plain(c.text));
    if (!ROLE_HEADERS.includes(header[0]?.toLowerCase() ?? '')) {
      bag.report(
        'missing-column',
        table.header[0]?.span ?? table.span,
        'The roles table must start with a "role" column.',
        {
          hint: 'Write "| role | Book | Loan |": one row per role, one column per entity.',
        },
      );
      continue;
    }
    // One row per role per table; the same role may be documented in one table and granted in another.
    const names = new NameSet(bag, 'role');
    const columns = table.header.map((cell, i) => {
      if (i === 0) return null;
      const name = plain(cell.text);
      if (DOC_COLUMNS.includes(name.toLowerCase())) return 'doc';
      const entity = scope.entity({ text: name, span: cell.span }, 'The permission column');
      return entity ? entity.name : null;
    });
    for (const row of table.rows) {
      const first = row.cells[0];
      if (!first) continue;
      const cell = { text: plain(first.text), span: first.span };
      if (cell.text === '') {
        bag.report('empty-cell', first.span, 'A row of the roles table has no role name.');
        continue;
      }
      if (!validName(cell, ROLE_NAME, bag, 'role', 'Role names are lowercase words joined by _ or -, e.g. staff'))
        continue;
      const docAt = columns.indexOf('doc');
      const doc = docAt >= 0 ? (row.cells[docAt]?.text ?? '') : '';
      if (!names.add(cell)) continue;
      const known = roles.find((r) => r.name === cell.text);
      if (known) known.doc ||= doc;
      else if (cell.text !== ANYONE) {
        roles.push({ name: cell.text, doc, span: cell.span });
        scope.roles.add(cell.text);
      }
      rows.push({ role: cell.text, cells: row.cells, columns, span: row.span });
    }
  }
  for (const row of rows) {
    row.columns.forEach((entity, i) => {
      if (!entity || entity === 'doc') return;
      const cell = row.cells[i];
      const permission = cell ? readPermission(cell, row.role, entity, scope) : null;
      if (permission) permissions.push({ ...permission, span: cell?.span ?? row.span });
    });
  }
  for (const entity of scope.entities.values()) {
    if (
      permissions.some(
        (p) =>
          p.entity === entity.name && (p.create || p.read !== 'none' || p.update !== 'none' || p.delete !== 'none'),
      )
    )
      continue;
    bag.report('entity-without-permissions', section.span, `No role may do anything with ${entity.name}.`, {
      hint: `Add a "${entity.name}" column to the roles table, e.g. "read" for the roles that see it.`,
    });
  }
  return { roles, permissions };
}

function readPermission(cell: Cell, role: string, entity: string, scope: Scope): Omit<Permission, 'span'> | null {
  const permission: Omit<Permission, 'span'> = {
    role,
    entity,
    create: false,
    read: 'none',
    update: 'none',
    delete: 'none',
  };
  const text = plain(cell.text);
  if (text === '' || /^(-|—|–|none|no)$/i.test(text)) return null;
  for (const item of splitList(cell)) {
    const words = item.text
      .toLowerCase()
      .replace(/[()`*]/g, ' ')
      .trim()
      .split(/\s+/);
    const own = words.length === 2 && words[1] === 'own';
    const op = words[0] ?? '';
    const access: Access = own ? 'own' : 'all';
    const valid = (words.length === 1 || own) && ['create', 'read', 'update', 'delete', 'all', 'crud'].includes(op);
    if (!valid) {
      scope.bag.report('invalid-permission', item.span, `"${item.text}" is not a permission.`, {
        expected: suggest(item.text.toLowerCase(), OPERATIONS),
        hint: 'Write create, read, update, delete (each of the last three optionally followed by own), all, or -.',
      });
      continue;
    }
    if (own && (op === 'create' || role === ANYONE)) {
      scope.bag.report(
        'invalid-permission',
        item.span,
        op === 'create'
          ? '"create own" means nothing: a new record is always the creator\'s own.'
          : 'Signed-out visitors (anyone) own no records, so "own" cannot apply to them.',
        {
          hint: op === 'create' ? 'Write "create".' : 'Grant it to a role instead, or drop "own".',
        },
      );
      continue;
    }
    if (op === 'all' || op === 'crud') {
      permission.create = true;
      permission.read = permission.update = permission.delete = access;
    } else if (op === 'create') permission.create = true;
    else permission[op as 'read' | 'update' | 'delete'] = access;
  }
  return permission;
}
