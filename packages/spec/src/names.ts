import pluralize from 'pluralize';

export const ENTITY_NAME = /^[A-Z][A-Za-z0-9]*$/;
export const FIELD_NAME = /^[a-z][A-Za-z0-9_]*$/;
export const ROLE_NAME = /^[a-z][a-z0-9_-]*$/;
export const STATE_NAME = /^[a-z][a-z0-9_-]*$/;
export const TRANSITION_NAME = /^[a-z][a-z0-9_-]*( [a-z0-9_-]+)*$/;
export const CONSTANT_NAME = /^[A-Z][A-Z0-9_]*$/;
export const ERROR_CODE = /^[A-Z][A-Z0-9_]*$/;

/** The built-in entity of signed-in users; fields may reference it. */
export const USER_ENTITY = 'User';

/** API collections the runtime serves itself (`/api/health`, …): no entity may take them. */
export const RESERVED_COLLECTIONS = new Set(['health', 'spec', 'openapi.json', 'docs', 'auth', 'users']);

/** Words that cannot name a field: system fields, names in every expression's scope, CEL keywords. */
export const RESERVED_FIELD_NAMES = new Set([
  'id',
  'created_at',
  'updated_at',
  'created_by',
  'state',
  'user',
  'now',
  'today',
  'me',
  'value',
  // Names CEL itself declares (types and packages): a field cannot shadow them in expressions.
  'int',
  'uint',
  'double',
  'bool',
  'string',
  'bytes',
  'list',
  'map',
  'type',
  'null_type',
  'dyn',
  'optional',
  'google',
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

/** `ExpenseReport` → `expense-reports`: the URL collection of an entity's records. */
export function collectionName(entity: string): string {
  const words = entity
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(' ');
  const last = words.pop() ?? '';
  return [...words, pluralize(last)].join('-');
}

/** `mark overdue` → `mark-overdue`: the URL form of a transition's name. */
export function transitionSlug(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, '-');
}

/** Strips Markdown emphasis and backticks around a name: `` `title` `` or `**title**` → `title`. */
export function plain(text: string): string {
  // Only matched pairs, so a name may end in _ (count_); a loop, since a regex over a long run
  // of these characters is quadratic.
  let start = 0;
  let end = text.length;
  while (end - start >= 2 && isMark(text.charCodeAt(start)) && text.charCodeAt(start) === text.charCodeAt(end - 1)) {
    start++;
    end--;
  }
  return text.slice(start, end).trim();
}

function isMark(code: number): boolean {
  return code === 96 || code === 42 || code === 95;
}
