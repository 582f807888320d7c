import type { Model } from '../model.ts';
import { RUNTIME_CONSTANTS } from '../runtime-constants.ts';
import type { Scope } from '../scope.ts';

/**
 * Point 9's checks, once every point is read (and after `validateErrors`, whose messages may name
 * constants): the page size fits under its maximum, and every constant is used somewhere.
 */
export function validateConstants(model: Model, scope: Scope): void {
  const { bag } = scope;
  const page = model.constants.find((c) => c.name === 'PAGE_SIZE');
  const maxPage =
    model.constants.find((c) => c.name === 'MAX_PAGE_SIZE')?.value ?? RUNTIME_CONSTANTS.MAX_PAGE_SIZE.default;
  if (page && typeof page.value === 'number' && page.value > (maxPage as number)) {
    bag.report('invalid-constant', page.span, `PAGE_SIZE (${page.value}) is larger than MAX_PAGE_SIZE (${maxPage}).`, {
      hint: 'Lower PAGE_SIZE or raise MAX_PAGE_SIZE.',
    });
  }
  for (const source of expressionSources(model)) {
    for (const name of source.match(/\b[A-Z][A-Z0-9_]*\b/g) ?? []) scope.usedConstants.add(name);
  }
  for (const constant of model.constants) {
    if (scope.usedConstants.has(constant.name)) continue;
    bag.report('unused-constant', constant.span, `Constant ${constant.name} is defined but never used.`, {
      hint: "Use it in a field range, rule, guard, transition's sets or message, or remove it.",
    });
  }
}

/** Guards, transitions' sets and rule conditions with their quoted texts blanked: the names left may be constants. */
function expressionSources(model: Model): string[] {
  const guards = model.machines.flatMap((m) =>
    m.transitions.flatMap((t) => [t.guard ?? '', ...(t.sets ?? []).map((a) => a.source)]),
  );
  const conditions = model.rules.map((r) => (r.condition.kind === 'expression' ? r.condition.source : ''));
  return [...guards, ...conditions].map((s) => s.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, ''));
}
