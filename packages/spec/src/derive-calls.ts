import type { Call, Model } from './model.ts';
import { collectionName } from './names.ts';

/**
 * The conventional REST set for a model whose point 7 is not shown: list, create, get, update,
 * delete and history per entity, and one POST per transition that does not create (nor is the
 * system's alone).
 */
export function deriveCalls(model: Pick<Model, 'entities' | 'machines'>): Call[] {
  const calls: Call[] = [];
  for (const entity of model.entities) {
    const base = `/api/${collectionName(entity.name)}`;
    const one = `${base}/:id`;
    const payload = { entity: entity.name, fields: null };
    const call = (method: Call['method'], path: string, action: Call['action'], doc: string, body = false): Call => ({
      method,
      path,
      params: path.includes(':id') ? ['id'] : [],
      action,
      payload: body ? payload : null,
      doc,
      derived: true,
      span: null,
    });
    calls.push(
      call('GET', base, { kind: 'list', entity: entity.name }, `List ${entity.name} records`),
      call('POST', base, { kind: 'create', entity: entity.name }, `Create a ${entity.name}`, true),
      call('GET', one, { kind: 'get', entity: entity.name }, `Get one ${entity.name}`),
      call('PATCH', one, { kind: 'update', entity: entity.name }, `Update a ${entity.name}`, true),
      call('DELETE', one, { kind: 'delete', entity: entity.name }, `Delete a ${entity.name}`),
      call('GET', `${one}/history`, { kind: 'history', entity: entity.name }, `History of a ${entity.name}`),
    );
    const machine = model.machines.find((m) => m.entity === entity.name);
    for (const t of machine?.transitions ?? []) {
      // A transition the system alone takes has no call: no person may take it.
      if (t.creates || (t.automatic && t.who.length === 0)) continue;
      calls.push(
        call(
          'POST',
          `${one}/${t.slug}`,
          { kind: 'transition', entity: entity.name, transition: t.name },
          `${t.name}: ${t.from.join(', ')} → ${t.to}`,
        ),
      );
    }
  }
  return calls;
}

/**
 * The calls the runtime serves: point 7 as declared, or the derived set when it is not shown or
 * lists no API call (only notifications or calls to other systems).
 */
export function effectiveCalls(model: Model): Call[] {
  return callsDeclared(model) ? model.calls : deriveCalls(model);
}

/** True when point 7 lists the API's calls; false when they are derived. */
export function callsDeclared(model: Pick<Model, 'points' | 'calls'>): boolean {
  const shown = model.points.find((p) => p.key === 'calls')?.shown ?? false;
  return shown && model.calls.length > 0;
}

/** A point-7 table for `calls`, ready to paste into a spec (with an answer column when a custom call has one). */
export function formatCallsTable(calls: readonly Call[]): string {
  const shape = (s: { entity: string; fields: string[] | null } | null | undefined) =>
    s ? (s.fields ? `${s.entity} (${s.fields.join(', ')})` : s.entity) : '';
  const answers = calls.some((c) => c.action.kind === 'code');
  const rows = calls.map((c) => {
    const { action } = c;
    const does =
      action.kind === 'transition'
        ? `${action.entity}: ${action.transition}`
        : action.kind === 'code'
          ? `code ${action.code.export === 'default' ? '' : `${action.code.export} from `}${action.code.file}`
          : `${action.kind} ${action.entity}`;
    const answer = answers ? ` ${shape(c.answer)} |` : '';
    return `| ${c.method} | ${c.path} | ${shape(c.payload)} | ${does} |${answer} ${c.doc} |`;
  });
  const head = answers
    ? ['| method | path | payload | does | answer | meaning |', '|---|---|---|---|---|---|']
    : ['| method | path | payload | does | meaning |', '|---|---|---|---|---|'];
  return [...head, ...rows].join('\n');
}
