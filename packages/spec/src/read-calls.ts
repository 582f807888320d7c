import type { Call, CallAction, Entity, HttpMethod } from './model.ts';
import { collectionName, transitionSlug } from './names.ts';
import type { Section } from './parse-sections.ts';
import { type Cell, cellPart, splitList } from './parse-tables.ts';
import { readCodeRef } from './read-code.ts';
import { allTables, cellOf, docOf, NameSet, pathParams, requiredCell, rowsOf } from './read-helpers.ts';
import { isOutgoingSubsection } from './read-outgoing.ts';
import type { Scope } from './scope.ts';
import { suggest } from './suggest.ts';

const COLUMNS = [
  { key: 'method', names: ['method', 'verb'], required: true },
  { key: 'path', names: ['path', 'route', 'url'], required: true },
  { key: 'payload', names: ['payload', 'body', 'input'] },
  { key: 'does', names: ['does', 'action', 'what'], required: true },
  { key: 'answer', names: ['answer', 'answers', 'returns', 'response'] },
];
const METHODS: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const ACTIONS = ['list', 'get', 'create', 'update', 'delete', 'history'] as const;
const SEGMENT = '[a-z0-9][a-z0-9-]*';
const PARAM = ':[A-Za-z_][A-Za-z0-9_]*';
const PATH = new RegExp(`^/api/(${SEGMENT})(?:/(${PARAM})(?:/(${SEGMENT}))?)?$`);

/** Which methods and path shapes fit each action (the collection and slug are checked separately). */
const SHAPES: Record<CallAction['kind'], { methods: HttpMethod[]; depth: 1 | 2 | 3; example: string }> = {
  list: { methods: ['GET'], depth: 1, example: 'GET /api/books' },
  create: { methods: ['POST'], depth: 1, example: 'POST /api/books' },
  get: { methods: ['GET'], depth: 2, example: 'GET /api/books/:id' },
  update: { methods: ['PUT', 'PATCH'], depth: 2, example: 'PATCH /api/books/:id' },
  delete: { methods: ['DELETE'], depth: 2, example: 'DELETE /api/books/:id' },
  history: { methods: ['GET'], depth: 3, example: 'GET /api/books/:id/history' },
  transition: { methods: ['POST'], depth: 3, example: 'POST /api/loans/:id/return' },
  code: { methods: [...METHODS], depth: 3, example: 'POST /api/quotes/:id/price' },
};

/** Point 7: the HTTP calls exactly as listed, each tied to an action on an entity. */
export function readCalls(section: Section, scope: Scope): Call[] {
  const { bag } = scope;
  const seen = new NameSet(bag, 'call', 'duplicate-call');
  const collections = new Map<string, { segment: string; line: number }>();
  const calls: Call[] = [];
  // Notifications and calls to other systems have sub-sections of their own (`read-outgoing.ts`).
  const api = { ...section, subsections: section.subsections.filter((s) => !isOutgoingSubsection(s)) };
  for (const row of rowsOf(allTables(api), COLUMNS, bag, 'calls')) {
    const methodCell = requiredCell(row, 'method', bag, 'A call');
    const path = requiredCell(row, 'path', bag, 'A call');
    const does = requiredCell(row, 'does', bag, `Call ${path?.text ?? ''}`.trim());
    if (!methodCell || !path || !does) continue;
    const method = methodCell.text.toUpperCase() as HttpMethod;
    if (!METHODS.includes(method)) {
      bag.report('invalid-call', methodCell.span, `"${methodCell.text}" is not an HTTP method a call can use.`, {
        expected: suggest(method, METHODS),
        hint: `Methods are ${METHODS.join(', ')}.`,
      });
      continue;
    }
    const shape = PATH.exec(path.text);
    if (!shape) {
      bag.report('invalid-call', path.span, `Path "${path.text}" is not a call path.`, {
        hint: 'Paths look like /api/books, /api/books/:id, /api/books/:id/history or /api/loans/:id/return.',
      });
      continue;
    }
    const what = `Call ${method} ${path.text}`;
    const depth = shape[3] ? 3 : shape[2] ? 2 : 1;
    const action = /^code\s+/i.test(does.text)
      ? readCodeAction(does, shape[1] as string, depth, collections, scope, what, path)
      : readAction(does, scope);
    if (!action) continue;
    const fit = SHAPES[action.kind];
    if (action.kind === 'code') {
      // A custom call takes any method, on its collection or on one record: its own tail is its name.
    } else if (!fit.methods.includes(method) || depth !== fit.depth) {
      bag.report(
        'call-mismatch',
        fit.methods.includes(method) ? path.span : methodCell.span,
        `${what} does not fit "${does.text}".`,
        {
          hint: `A ${action.kind} call looks like ${fit.example}.`,
        },
      );
      continue;
    }
    const expectedTail = action.kind === 'transition' ? transitionSlug(action.transition) : 'history';
    if (depth === 3 && action.kind !== 'code' && shape[3] !== expectedTail) {
      bag.report(
        'call-mismatch',
        path.span,
        `${what} ends in "${shape[3]}" but "${does.text}" needs "${expectedTail}".`,
        {
          expected: [path.text.replace(/[^/]+$/, expectedTail)],
        },
      );
      continue;
    }
    const segment = shape[1] as string;
    const known = collections.get(action.entity);
    if (known && known.segment !== segment) {
      bag.report(
        'call-mismatch',
        path.span,
        `${what} puts ${action.entity} under /api/${segment}, but line ${known.line} uses /api/${known.segment}.`,
        {
          expected: [path.text.replace(`/api/${segment}`, `/api/${known.segment}`)],
        },
      );
      continue;
    }
    if (!known) collections.set(action.entity, { segment, line: path.span.line });
    if (
      !seen.add({ text: `${method} ${path.text}`, span: path.span }, `${method} ${path.text.replace(/:[^/]+/g, ':')}`)
    )
      continue;
    const payload = readPayload(cellOf(row, 'payload'), method, action, scope, what);
    if (payload === undefined) continue;
    const answerCell = cellOf(row, 'answer');
    let answer: Call['answer'];
    if (action.kind === 'code') {
      answer = readShape(answerCell, action, scope, what, 'answer');
      if (answer === undefined) continue;
    } else if (answerCell.text !== '' && !/^(-|—|–)$/.test(answerCell.text)) {
      scope.bag.report(
        'call-mismatch',
        answerCell.span,
        `${what} answers what its action gives; only a code call declares its answer.`,
        {
          hint: 'Leave the answer cell empty, or make the call a code call ("code pricing.ts").',
        },
      );
      continue;
    }
    calls.push({
      method,
      path: path.text,
      params: pathParams(path.text),
      action,
      payload,
      ...(action.kind === 'code' ? { answer: answer ?? null } : {}),
      doc: docOf(row),
      derived: false,
      span: row.span,
    });
  }
  return calls;
}

function readAction(cell: Cell, scope: Scope): CallAction | null {
  const transition = /^([A-Za-z][A-Za-z0-9]*)\s*:\s*(.+)$/.exec(cell.text);
  if (transition) {
    const [, entityName, name] = transition as unknown as [string, string, string];
    const entity = scope.entity(cellPart(cell, 0, entityName.length), `Call "${cell.text}"`);
    if (!entity) return null;
    const part = cellPart(cell, cell.text.lastIndexOf(name), name.length);
    const found = scope.transition(entity, part, `Call "${cell.text}" names`, { creating: false });
    if (!found) return null;
    return { kind: 'transition', entity: entity.name, transition: found.name };
  }
  const m = /^([a-z]+)\s+([A-Za-z][A-Za-z0-9]*)$/i.exec(cell.text);
  const verb = m?.[1]?.toLowerCase() as (typeof ACTIONS)[number] | undefined;
  if (!m || !verb || !ACTIONS.includes(verb)) {
    scope.bag.report('invalid-call', cell.span, `"${cell.text}" is not an action a call can do.`, {
      expected: m ? suggest(m[1] ?? '', ACTIONS) : [],
      hint: 'Write list, get, create, update, delete or history and an entity ("list Book"), or "Entity: transition".',
    });
    return null;
  }
  const name = m[2] as string;
  const entity = scope.entity(cellPart(cell, cell.text.length - name.length, name.length), `Call "${cell.text}"`);
  return entity ? { kind: verb, entity: entity.name } : null;
}

/** The payload shape, null for none, or undefined after reporting a problem. */
function readPayload(
  cell: Cell,
  method: HttpMethod,
  action: CallAction,
  scope: Scope,
  what: string,
): Call['payload'] | undefined {
  if (cell.text === '' || /^(-|—|–|none)$/i.test(cell.text)) return null;
  if (method === 'GET' || method === 'DELETE') {
    scope.bag.report('call-mismatch', cell.span, `${what} is a ${method}, which takes no payload.`, {
      hint: 'Leave the payload cell empty.',
    });
    return undefined;
  }
  const m = /^([A-Za-z][A-Za-z0-9]*)\s*(?:\((.*)\)|:\s*(.+))?$/.exec(cell.text);
  if (!m) {
    scope.bag.report('invalid-call', cell.span, `Payload "${cell.text}" is not understood.`, {
      hint: 'Write an entity (Book) or some of its fields (Book (title, copies)).',
    });
    return undefined;
  }
  const entity = scope.entity(cellPart(cell, 0, (m[1] as string).length), what);
  if (!entity) return undefined;
  if (entity.name !== action.entity && action.kind !== 'code') {
    scope.bag.report('call-mismatch', cell.span, `${what} acts on ${action.entity} but its payload is ${entity.name}.`);
    return undefined;
  }
  const list = m[2] ?? m[3];
  if (list === undefined) return { entity: entity.name, fields: null };
  const listCell = cellPart(cell, cell.text.indexOf(list, (m[1] as string).length), list.length);
  const fields: string[] = [];
  for (const item of splitList(listCell)) {
    if (!scope.field(entity, item, what)) return undefined;
    fields.push(item.text);
  }
  return { entity: entity.name, fields };
}

/**
 * `code pricing.ts` or `code price from pricing.ts`: a custom call answered by a module. Its
 * entity is the collection's (`/api/quotes/:id/price` is Quote's: the record it is called on);
 * its path is `/api/<collection>/<name>` or `/api/<collection>/:id/<name>`.
 */
function readCodeAction(
  cell: Cell,
  segment: string,
  depth: 1 | 2 | 3,
  collections: ReadonlyMap<string, { segment: string }>,
  scope: Scope,
  what: string,
  path: Cell,
): CallAction | null {
  const entity = entityOfCollection(segment, collections, scope);
  if (!entity) {
    scope.bag.report(
      'call-mismatch',
      path.span,
      `${what} is a code call under /api/${segment}, which is no entity's collection.`,
      {
        expected: suggest(
          segment,
          [...scope.entities.values()].map((e) => collectionName(e.name)),
        ),
        hint: 'A code call sits under its entity: /api/quotes/:id/price acts on one Quote.',
      },
    );
    return null;
  }
  if (depth !== 3) {
    scope.bag.report(
      'call-mismatch',
      path.span,
      `${what} is a code call, which needs a name of its own after the record.`,
      {
        hint: 'Write /api/<collection>/:id/<name>, as /api/quotes/:id/price.',
      },
    );
    return null;
  }
  const ref = cellPart(cell, cell.text.search(/\s/) + 1, cell.text.length - cell.text.search(/\s/) - 1);
  const trimmed = cellPart(ref, ref.text.length - ref.text.trimStart().length, ref.text.trim().length);
  const code = readCodeRef(trimmed, scope, what);
  return code ? { kind: 'code', entity: entity.name, code } : null;
}

function entityOfCollection(
  segment: string,
  collections: ReadonlyMap<string, { segment: string }>,
  scope: Scope,
): Entity | null {
  for (const [name, known] of collections) {
    if (known.segment === segment) return scope.entities.get(name) ?? null;
  }
  return [...scope.entities.values()].find((e) => collectionName(e.name) === segment) ?? null;
}

/** A code call's answer: an entity's record, some of its fields, or empty for any JSON value. */
function readShape(
  cell: Cell,
  action: CallAction,
  scope: Scope,
  what: string,
  column: string,
): { entity: string; fields: string[] | null } | null | undefined {
  if (cell.text === '' || /^(-|—|–|any)$/i.test(cell.text)) return null;
  const m = /^([A-Za-z][A-Za-z0-9]*)\s*(?:\((.*)\))?$/.exec(cell.text);
  if (!m) {
    scope.bag.report('invalid-call', cell.span, `The ${column} "${cell.text}" of ${what} is not understood.`, {
      hint: `Write an entity (${action.entity}: its record) or some of its fields (${action.entity} (id, total)).`,
    });
    return undefined;
  }
  const entity = scope.entity(cellPart(cell, 0, (m[1] as string).length), what);
  if (!entity) return undefined;
  const list = m[2];
  if (list === undefined) return { entity: entity.name, fields: null };
  const listCell = cellPart(cell, cell.text.indexOf(list, (m[1] as string).length), list.length);
  const fields: string[] = [];
  for (const item of splitList(listCell)) {
    if (
      !['id', 'state', 'created_at', 'updated_at', 'created_by'].includes(item.text) &&
      !scope.field(entity, item, what)
    )
      return undefined;
    fields.push(item.text);
  }
  return { entity: entity.name, fields };
}
