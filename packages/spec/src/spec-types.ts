import { errorCatalogue } from './builtin-errors.ts';
import type { ConstantType, Entity, FieldType, Model } from './model.ts';

/** The file `ninepoint types` writes beside a spec: `quotes.md` → `quotes.types.ts`. */
export function specTypesFile(specFile: string): string {
  return `${specFile.replace(/\.(md|markdown)$/i, '')}.types.ts`;
}

/**
 * A spec's types as a TypeScript module, for the modules beside it (point 7's custom calls,
 * hooks and jobs): each entity's record as the API answers it, its states and transitions, the
 * constants, the error codes, a `Spec` gathering them, and `defineCall`, `defineHook` and
 * `defineJob` typed with it. It imports only types (from `@ninepoint/server`), so Node runs a
 * module importing it with nothing to resolve at run time.
 */
export function specTypes(model: Model, specFile: string): string {
  const out: string[] = [
    `// Written by \`ninepoint types ${specFile}\` from the spec: do not edit. \`ninepoint dev\` writes it`,
    '// again on every save, so the modules beside the spec are checked against the spec they run under.',
    "import type { CallContext, CodeCall, CodeHook, CodeJob, HookContext, JobContext } from '@ninepoint/server';",
    '',
  ];
  out.push(...specTypeDeclarations(model));
  const transitions = model.machines.map((m) => `${m.entity}: ${m.entity}Transition`);
  out.push(
    'export interface Spec {',
    `  records: { ${model.entities.map((e) => `${e.name}: ${e.name}`).join('; ')} };`,
    `  transitions: { ${transitions.join('; ')} };`,
    '  constants: Constants;',
    '  errors: ErrorCode;',
    '}',
    '',
    "export type EntityName = keyof Spec['records'];",
    '',
    '/** A custom call (`code …` in point 7) on the entity named: its context is typed from the spec. */',
    'export function defineCall<E extends EntityName>(_entity: E, run: (context: CallContext<Spec, E>) => unknown): CodeCall<Spec, E> {',
    "  return Object.assign(run, { ninepoint: 'call' as const });",
    '}',
    '',
    "/** A hook (point 7's Code, `before …` or `after …`) on the entity named. */",
    'export function defineHook<E extends EntityName>(_entity: E, run: (context: HookContext<Spec, E>) => unknown): CodeHook<Spec, E> {',
    "  return Object.assign(run, { ninepoint: 'hook' as const });",
    '}',
    '',
    "/** A scheduled job's module (point 7's Code, `schedule …`). */",
    'export function defineJob(run: (context: JobContext<Spec>) => unknown): CodeJob<Spec> {',
    "  return Object.assign(run, { ninepoint: 'job' as const });",
    '}',
  );
  return `${out.join('\n')}\n`;
}

/**
 * The declarations `ninepoint types` and `ninepoint client` share, one per line: each entity's
 * record as the API answers it, its states and transitions, the constants' types (point 9; not for a client) and
 * `ErrorCode`, the catalogue's codes (point 8 and the built-in ones).
 */
export function specTypeDeclarations(model: Model, { constants = true }: { constants?: boolean } = {}): string[] {
  const out: string[] = [];
  for (const entity of model.entities) out.push(...recordType(model, entity), '');
  for (const machine of model.machines) {
    const names = machine.transitions.filter((t) => !t.creates).map((t) => t.name);
    out.push(`export type ${machine.entity}State = ${tsUnion(machine.states.map((s) => s.name))};`);
    out.push(`export type ${machine.entity}Transition = ${tsUnion(names)};`, '');
  }
  if (constants) {
    out.push('/** Point 9. */', 'export interface Constants {');
    for (const c of model.constants) out.push(`  readonly ${c.name}: ${constantType(c.type)};`);
    out.push('}', '');
  }
  out.push('/** Point 8 and the built-in codes: what `refuse` takes, and what a refusal answers. */');
  out.push(`export type ErrorCode = ${tsUnion(errorCatalogue(model).map((e) => e.code))};`, '');
  return out;
}

function recordType(model: Model, entity: Entity): string[] {
  const machine = model.machines.find((m) => m.entity === entity.name);
  const lines = [`/** ${entity.name}, as the API answers it. */`, `export interface ${entity.name} {`, '  id: string;'];
  if (machine) lines.push(`  state: ${entity.name}State;`);
  for (const field of entity.fields) {
    const type = tsFieldType(field.type);
    lines.push(`  ${field.name}: ${field.required ? type : `${type} | null`};`);
  }
  lines.push('  created_at: string;', '  updated_at: string;', '  created_by: string | null;', '}');
  return lines;
}

/** The TypeScript type of a field's values as the API sends and takes them. */
export function tsFieldType(type: FieldType): string {
  switch (type.kind) {
    case 'integer':
    case 'decimal':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'choice':
      return tsUnion(type.values);
    case 'reference':
      // The referred record's id (a user's for `User`).
      return 'string';
    default:
      return 'string';
  }
}

function constantType(type: ConstantType): string {
  switch (type) {
    case 'integer':
    case 'decimal':
    case 'duration':
      return 'number';
    case 'boolean':
      return 'boolean';
    default:
      return 'string';
  }
}

/** `'a' | 'b'`, or `never` for none. */
export function tsUnion(values: readonly string[]): string {
  return values.length === 0 ? 'never' : values.map((v) => JSON.stringify(v).replaceAll('"', "'")).join(' | ');
}
