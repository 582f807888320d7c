import type { Access, Entity, Permission, RecordOperation, Role } from './model.ts';
import { ANYONE } from './model.ts';
import { plain, ROLE_NAME, USER_ENTITY } from './names.ts';
import type { Section } from './parse-sections.ts';
import { type Cell, cellPart, DOC_COLUMNS, splitList } from './parse-tables.ts';
import { allTables, NameSet, validName } from './read-helpers.ts';
import {
  BY_INVITATION,
  JOINS_HEADERS,
  NO_PEOPLE_GRANT,
  PEOPLE_HEADERS,
  readJoins,
  readPeople,
  readSignIn,
  SIGN_IN_HEADERS,
} from './read-people.ts';
import { readReferencePath } from './reference-paths.ts';
import { endsAtUser, type Scope } from './scope.ts';
import { suggest } from './suggest.ts';

const ROLE_HEADERS = ['role', 'roles', 'who'];
/** The system field a read list may name, to hide who made a record: `read except (created_by)`. */
const AUTHOR_FIELD = 'created_by';
const OPERATIONS = [
  'create',
  'read',
  'update',
  'delete',
  'all',
  'none',
  'read own',
  'update own',
  'delete own',
  'read except',
  'read own except',
];

/**
 * Point 6: each row a role, each further column an entity, each cell the operations the role may
 * do: `create, read, update own`. Create and update may name the fields the role sets:
 * `create (title, notes), update own (notes)`; read the fields it sees, or with `except` the ones
 * it does not: `read (title)`, `read own except (speaker)`. A row named `anyone` is for signed-out
 * visitors.
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
      if (!scope.entities.has(name) && JOINS_HEADERS.includes(name.toLowerCase())) return 'joins';
      if (!scope.entities.has(name) && PEOPLE_HEADERS.includes(name.toLowerCase())) return 'people';
      if (!scope.entities.has(name) && SIGN_IN_HEADERS.includes(name.toLowerCase())) return 'sign in';
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
        roles.push({
          name: cell.text,
          doc,
          span: cell.span,
          joins: BY_INVITATION,
          people: NO_PEOPLE_GRANT,
          twoFactor: false,
        });
        scope.roles.add(cell.text);
      }
      rows.push({ role: cell.text, cells: row.cells, columns, span: row.span });
    }
  }
  for (const row of rows) {
    row.columns.forEach((entity, i) => {
      if (!entity || entity === 'doc') return;
      const cell = row.cells[i];
      if (entity === 'joins' || entity === 'people') {
        if (cell) readPeopleCell(entity, cell, row.role, roles, scope);
        return;
      }
      if (entity === 'sign in') {
        const role = roles.find((r) => r.name === row.role);
        // A role described in two tables requires two-factor when either says so.
        if (cell && readSignIn(cell, row.role, scope) === true && role) role.twoFactor = true;
        return;
      }
      const permission = cell ? readPermission(cell, row.role, entity, scope) : null;
      if (permission) permissions.push({ ...permission, span: cell?.span ?? row.span });
      // A table whose only row is `anyone`, granting nothing, still declares point 6: without
      // this row nothing would, and every signed-in user could do everything.
      else if (row.role === ANYONE)
        permissions.push({ ...noPermission(row.role, entity), span: cell?.span ?? row.span });
    });
  }
  return { roles, permissions };
}

/**
 * A `joins` or `people` cell, merged into its role: a role described in two tables joins by
 * sign-up when either says so, and may invite into the roles either names.
 */
function readPeopleCell(column: 'joins' | 'people', cell: Cell, name: string, roles: Role[], scope: Scope): void {
  const role = roles.find((r) => r.name === name);
  if (column === 'joins') {
    const joins = readJoins(cell, name, scope);
    if (!role || joins?.kind !== 'sign-up') return;
    if (role.joins.kind !== 'sign-up') role.joins = joins;
    // Any domain on either side means any domain.
    else if (role.joins.domains.length === 0 || joins.domains.length === 0)
      role.joins = { kind: 'sign-up', domains: [] };
    else role.joins = { kind: 'sign-up', domains: [...new Set([...role.joins.domains, ...joins.domains])] };
    return;
  }
  const people = readPeople(cell, name, scope);
  if (!role || !people) return;
  const invite =
    role.people.invite === 'any' || people.invite === 'any'
      ? 'any'
      : [...new Set([...role.people.invite, ...people.invite])];
  role.people = { invite, manage: role.people.manage || people.manage };
}

/** A role's grant of nothing on an entity. */
function noPermission(role: string, entity: string): Omit<Permission, 'span'> {
  return {
    role,
    entity,
    create: false,
    read: 'none',
    update: 'none',
    delete: 'none',
    createFields: null,
    updateFields: null,
    readFields: null,
    via: { read: null, update: null, delete: null },
    inStates: { read: null, update: null, delete: null },
  };
}

function readPermission(cell: Cell, role: string, entity: string, scope: Scope): Omit<Permission, 'span'> | null {
  const permission = noPermission(role, entity);
  const text = plain(cell.text);
  if (text === '' || /^(-|—|–|none|no)$/i.test(text)) return null;
  /** The read items seen so far, and whether one named fields: two reads with fields are ambiguous. */
  let reads = 0;
  let readListed = false;
  /** The operations an earlier item of the cell granted. */
  const granted = new Set<RecordOperation>();
  for (const written of splitList(cell, ',', { parentheses: true })) {
    const conditions = itemConditions(written, entity, scope);
    if (!conditions) continue;
    const cellItem = conditions.bare;
    const item = permissionItem(cellItem, entity, scope);
    if (!item) continue;
    const { op, own } = item;
    // `created_by` is the app's to set; a role may only be kept from seeing it (blind review).
    let fields = item.fields;
    if (fields?.includes(AUTHOR_FIELD)) {
      if (op !== 'read') {
        scope.bag.report(
          'invalid-permission',
          cellItem.span,
          `"${cellItem.text}" names created_by, which the app sets: no role sets it.`,
          { hint: 'Leave created_by out; to keep authors anonymous to a role, write "read except (created_by)".' },
        );
        continue;
      }
      if (item.except) permission.hidesAuthor = true;
      fields = fields.filter((name) => name !== AUTHOR_FIELD);
      item.fields = fields;
    }
    const operations: RecordOperation[] =
      op === 'all' || op === 'crud' ? ['read', 'update', 'delete'] : op === 'create' ? [] : [op];
    if (conditions.via !== null && !own) {
      scope.bag.report(
        'invalid-permission',
        written.span,
        `"${written.text}" says whose records are the role's own (via), but grants every record.`,
        { hint: `Write "${op} own via …": via names the fields that lead from a record to its owner.` },
      );
      continue;
    }
    if ((conditions.via !== null || conditions.states !== null) && operations.length === 0) {
      scope.bag.report(
        'invalid-permission',
        written.span,
        `"${written.text}" puts a condition on create, which has no record yet to test it on.`,
        { hint: 'Only read, update and delete take "via" and "while"; a rule in point 5 checks new records.' },
      );
      continue;
    }
    // One grant per operation: a second item for it with other conditions would silently
    // replace or widen the first (`read own via a, read own via b`).
    const clash = operations.find(
      (operation) =>
        granted.has(operation) &&
        (JSON.stringify(permission.via[operation]) !== JSON.stringify(conditions.via) ||
          JSON.stringify(permission.inStates[operation]) !== JSON.stringify(conditions.states)),
    );
    if (clash) {
      scope.bag.report(
        'invalid-permission',
        written.span,
        `"${written.text}" grants ${clash} again, with other conditions than an earlier item of the cell.`,
        {
          hint: `Give ${clash} once per cell: join chains with "or" (own via a or b) and states with "or" (while x or y).`,
        },
      );
      continue;
    }
    for (const operation of operations) {
      granted.add(operation);
      permission.via[operation] = conditions.via;
      permission.inStates[operation] = conditions.states;
    }
    const access: Access = own ? 'own' : 'all';
    if (own && (op === 'create' || role === ANYONE)) {
      scope.bag.report(
        'invalid-permission',
        cellItem.span,
        op === 'create'
          ? '"create own" means nothing: a new record is always the creator\'s own.'
          : 'Signed-out visitors (anyone) own no records, so "own" cannot apply to them.',
        {
          hint:
            op === 'create' ? createOwnHint(scope.entities.get(entity)) : 'Grant it to a role instead, or drop "own".',
        },
      );
      continue;
    }
    if (fields !== null && op === 'delete') {
      scope.bag.report(
        'invalid-permission',
        cellItem.span,
        `"${cellItem.text}" names fields, but delete is of whole records.`,
        {
          hint: `Write "delete${own ? ' own' : ''}"; read, create and update may name fields.`,
        },
      );
      continue;
    }
    if (item.except && op !== 'read') {
      scope.bag.report(
        'invalid-permission',
        cellItem.span,
        `"${cellItem.text}": only read may name the fields it leaves out.`,
        {
          hint: `Name the fields ${op === 'all' || op === 'crud' ? 'create and update set' : `${op} sets`} instead, e.g. "${op}${own ? ' own' : ''} (${fields?.[0] ?? 'title'})".`,
        },
      );
      continue;
    }
    if (op === 'read') {
      if (reads > 0 && (readListed || fields !== null)) {
        scope.bag.report(
          'invalid-permission',
          cellItem.span,
          `"${cellItem.text}": the cell already says what ${role} reads.`,
          {
            hint: 'Give read once in a cell when it names fields, e.g. "read own (title, notes)".',
          },
        );
        continue;
      }
      reads++;
      readListed = fields !== null;
      permission.readFields = readFieldsOf(item, entity, scope);
      permission.read = access;
      continue;
    }
    const writable = fields;
    const merge = (known: string[] | null, first: boolean) =>
      first || known === null || writable === null ? writable : [...new Set([...known, ...writable])];
    if (op === 'all' || op === 'crud' || op === 'create') {
      permission.createFields = merge(permission.createFields, !permission.create);
      permission.create = true;
    }
    if (op === 'all' || op === 'crud' || op === 'update') {
      permission.updateFields = merge(permission.updateFields, permission.update === 'none');
    }
    if (op === 'all' || op === 'crud') permission.read = permission.update = permission.delete = access;
    else if (op !== 'create') permission[op as 'update' | 'delete'] = access;
  }
  return permission;
}

/**
 * Takes an item's conditions off it: `via doctor.account or patient.account` (the chains that
 * lead to the owner of a record) and a trailing `while draft or submitted` (the states the
 * record must be in). What is left keeps its length (the conditions become spaces), so the spans
 * of the fields in parentheses stay right. Reports a wrong chain or state and returns null.
 */
function itemConditions(
  item: Cell,
  entityName: string,
  scope: Scope,
): { bare: Cell; via: string[][] | null; states: string[] | null } | null {
  let text = item.text;
  const entity = scope.entities.get(entityName);
  const what = `The permission "${item.text}"`;
  let states: string[] | null = null;
  const during = /\s+while\s+(.*)$/i.exec(text);
  if (during) {
    const list = during[1] ?? '';
    const listAt = text.length - list.length;
    states = [];
    let offset = listAt;
    for (const piece of list.split(/\s+or\s+/i)) {
      const at = text.indexOf(piece, offset);
      offset = at + piece.length;
      const name = piece.trim();
      const state = cellPart(item, at + piece.indexOf(name), name.length);
      // Point 4 is read after point 6: the states are checked once the machines are known.
      scope.afterMachines.push(() => scope.state(scope.machines.get(entityName), entityName, state, what));
      states.push(name);
    }
    text = text.slice(0, during.index);
  }
  let via: string[][] | null = null;
  // The chains end at the field list: `(notes)`, or `except (notes)`.
  const through = /\s+via\s+([^()]*?)\s*(?=\bexcept\s*\(|\(|$)/i.exec(text);
  if (through && entity) {
    const list = through[1] ?? '';
    const listAt = (through.index ?? 0) + through[0].indexOf(list, 4);
    via = [];
    let offset = listAt;
    for (const piece of list.split(/\s+or\s+/i)) {
      const at = text.indexOf(piece, offset);
      offset = at + piece.length;
      const chain = cellPart(item, at, piece.length);
      const path = readReferencePath(chain, entity, scope, what);
      if (!path) return null;
      // Whether it names an owner is validate/roles.ts's to say; a chain that does not is no grant.
      scope.ownChains.push({ chain, what, end: path.type });
      if (!endsAtUser(path.type)) return null;
      via.push(path.fields);
    }
    text = `${text.slice(0, through.index)}${' '.repeat(through[0].length)}${text.slice((through.index ?? 0) + through[0].length)}`;
  }
  return { bare: { text: text.trimEnd(), span: item.span }, via, states };
}

/**
 * One item of a permission cell as written: `update own (title, notes)`, `read except (speaker)`.
 * `op` is the operation word, `fields` the parenthesised fields (checked against the entity; null
 * without a list), `except` whether they are the ones left out. Null, reported, when the words are
 * not a permission.
 */
interface PermissionItem {
  op: 'create' | 'read' | 'update' | 'delete' | 'all' | 'crud';
  own: boolean;
  fields: string[] | null;
  except: boolean;
}

const OPERATION_WORDS: readonly PermissionItem['op'][] = ['create', 'read', 'update', 'delete', 'all', 'crud'];

function permissionItem(item: Cell, entity: string, scope: Scope): PermissionItem | null {
  const { head, fields } = fieldList(item, entity, scope);
  const words = head
    .toLowerCase()
    .replace(/[()`*]/g, ' ')
    .trim()
    .split(/\s+/);
  const except = words.at(-1) === 'except';
  if (except) words.pop();
  const own = words.length === 2 && words[1] === 'own';
  const op = OPERATION_WORDS.find((o) => o === words[0]);
  if (op && (words.length === 1 || own) && except && fields === undefined) {
    scope.bag.report('invalid-permission', item.span, `"${item.text}" leaves out no fields.`, {
      hint: `Name the fields it leaves out in parentheses, e.g. "${head.trim()} (notes)", or write "${words.join(' ')}".`,
    });
    return null;
  }
  if (!op || !(words.length === 1 || own)) {
    scope.bag.report('invalid-permission', item.span, `"${item.text}" is not a permission.`, {
      expected: suggest(head.toLowerCase(), OPERATIONS),
      hint: 'Write create, read, update, delete (each of the last three optionally followed by own), all, or -; read may name the fields it shows, read except the ones it hides, and create and update the fields they set, e.g. read except (notes), update own (title, notes).',
    });
    return null;
  }
  return { op, own, fields: fields ?? null, except };
}

/**
 * An item's words and, when it ends in a parenthesised list other than `(own)`, the fields the
 * list names (each checked against the entity, each once): `update own (title, notes)`.
 */
function fieldList(item: Cell, entity: string, scope: Scope): { head: string; fields?: string[] } {
  const open = item.text.indexOf('(');
  if (open < 0 || !item.text.endsWith(')')) return { head: item.text };
  const inner = cellPart(item, open + 1, item.text.length - open - 2);
  if (/^\s*own\s*$/i.test(inner.text)) return { head: item.text };
  const known = scope.entities.get(entity);
  const fields: string[] = [];
  for (const name of splitList(inner)) {
    const field = { text: plain(name.text), span: name.span };
    const what = `The permission "${item.text}"`;
    if ((!known || scope.field(known, field, what, [AUTHOR_FIELD])) && !fields.includes(field.text)) {
      fields.push(field.text);
    }
  }
  return { head: item.text.slice(0, open), fields };
}

/** The fields a read item shows, in the entity's order for `except`: null for all of them. */
function readFieldsOf(item: PermissionItem, entity: string, scope: Scope): string[] | null {
  const { fields } = item;
  if (fields === null) return null;
  if (!item.except) return fields;
  const all = scope.entities.get(entity)?.fields.map((f) => f.name) ?? [];
  return all.filter((name) => !fields.includes(name));
}

/**
 * What to write instead of `create own`. Plain `create` would let the role name anyone in a field
 * referring to User (a patient booking for another patient): when the entity has such fields,
 * the hint gives them `default me` and lists the fields create sets without them.
 */
function createOwnHint(entity: Entity | undefined): string {
  const users = (entity?.fields ?? []).filter((f) => f.type.kind === 'reference' && f.type.entity === USER_ENTITY);
  if (!entity || users.length === 0) return 'Write "create".';
  const names = users.map((f) => f.name);
  const others = entity.fields.filter((f) => !names.includes(f.name)).map((f) => f.name);
  const which = names.length === 1 ? names[0] : names.join(' and ');
  return (
    `Give ${which} "default me" in point 3 and write "create (${others.join(', ')})": ` +
    `a new ${entity.name} then names its creator, who cannot set ${which} to someone else.`
  );
}
