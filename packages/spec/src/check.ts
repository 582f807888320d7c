import { checkGuardFields } from './check-guards.ts';
import { checkUsage } from './check-usage.ts';
import { type Diagnostic, DiagnosticBag } from './diagnostics.ts';
import { ExpressionChecker, type ExpressionItem } from './expressions.ts';
import { type Model, POINTS, type Point } from './model.ts';
import { POINT_TITLES, parseSections, type Section } from './parse-sections.ts';
import { readCalls } from './read-calls.ts';
import { readConstants } from './read-constants.ts';
import { readEntities } from './read-entities.ts';
import { readErrors } from './read-errors.ts';
import { readOutgoing } from './read-outgoing.ts';
import { readProduct } from './read-product.ts';
import { readRoles } from './read-roles.ts';
import { readRules } from './read-rules.ts';
import { readScreens } from './read-screens.ts';
import { readMachines } from './read-states.ts';
import { Scope } from './scope.ts';
import { START } from './spans.ts';

/** Specs larger than this are refused: 2 MB is ~40,000 lines, far beyond any real product. */
export const MAX_SPEC_BYTES = 2 * 1024 * 1024;

export interface CheckResult {
  /** What could be read, even when there are errors. */
  model: Model;
  /** Every problem found, sorted by position. */
  diagnostics: Diagnostic[];
  /** True when there are no errors (warnings allowed). */
  ok: boolean;
}

/**
 * Reads and checks a spec in one pass: Markdown → sections → model, then links names and
 * type-checks expressions. Never throws on user input; every problem is a diagnostic.
 */
export function checkSpec(source: string): CheckResult {
  const bag = new DiagnosticBag();
  if (source.length > MAX_SPEC_BYTES) {
    bag.report('spec-too-large', START, `The spec is ${source.length} characters; the limit is ${MAX_SPEC_BYTES}.`, {
      hint: 'Split the product, or remove generated content.',
    });
    return finish(emptyModel(), bag);
  }
  const parsed = parseSections(source, bag);
  const sections = parsed.sections;
  const scope = new Scope(bag);
  const shown = (key: (typeof POINTS)[number]): Section | undefined =>
    sections[key]?.shown ? sections[key] : undefined;
  const read = <T>(key: (typeof POINTS)[number], reader: (s: Section, scope: Scope) => T, none: T): T => {
    const section = shown(key);
    return section ? reader(section, scope) : none;
  };

  // Order matters: each point is read after the points it refers to.
  const model = emptyModel();
  model.points = POINTS.map((key, i): Point => {
    const section = sections[key];
    if (!section) {
      bag.report('missing-section', START, `Point ${i + 1} (${POINT_TITLES[key]}) has no section.`, {
        hint: `Add "## ${i + 1}. ${POINT_TITLES[key]}" with its table, or with "Not shown." to say it is absent on purpose.`,
      });
    }
    return {
      key,
      number: i + 1,
      title: POINT_TITLES[key],
      shown: section?.shown ?? false,
      span: section?.span ?? null,
      prose: section?.prose ?? '',
    };
  });
  model.product = readProduct(parsed.title, shown('product'));
  model.constants = read('constants', readConstants, []);
  model.errors = read('errors', readErrors, []);
  model.entities = read('entities', readEntities, []);
  scope.rolesShown = Boolean(shown('roles'));
  const roles = read('roles', readRoles, { roles: [], permissions: [] });
  model.roles = roles.roles;
  model.permissions = roles.permissions;
  model.machines = read('states', readMachines, []);
  for (const check of scope.afterMachines) check();
  model.rules = read('rules', readRules, []);
  model.screens = read('screens', readScreens, []);
  model.calls = read('calls', readCalls, []);
  const outgoing = read('calls', readOutgoing, { notifications: [], webhooks: [] });
  model.notifications = outgoing.notifications;
  model.webhooks = outgoing.webhooks;

  checkExpressions(model, bag);
  checkGuardFields(model, bag);
  checkUsage(model, scope);
  return finish(model, bag);
}

/** Type-checks every guard and rule condition, each against its entity (and field). */
function checkExpressions(model: Model, bag: DiagnosticBag): void {
  const items: ExpressionItem[] = [];
  for (const machine of model.machines) {
    for (const t of machine.transitions) {
      if (t.guard !== null && t.guardSpan) {
        items.push({
          source: t.guard,
          span: t.guardSpan,
          entity: machine.entity,
          field: null,
          what: `The guard of "${t.name}"`,
        });
      }
    }
  }
  for (const rule of model.rules) {
    if (rule.condition.kind !== 'expression') continue;
    const { entity, field } = rule.appliesTo;
    items.push({ source: rule.condition.source, span: rule.conditionSpan, entity, field, what: `Rule "${rule.name}"` });
  }
  new ExpressionChecker(model).checkAll(items, bag);
}

function finish(model: Model, bag: DiagnosticBag): CheckResult {
  const diagnostics = bag.sorted();
  return { model, diagnostics, ok: !diagnostics.some((d) => d.severity === 'error') };
}

function emptyModel(): Model {
  return {
    version: 1,
    product: { name: 'Untitled product', summary: '', audience: '', description: '', span: null },
    points: POINTS.map((key, i) => ({
      key,
      number: i + 1,
      title: POINT_TITLES[key],
      shown: false,
      span: null,
      prose: '',
    })),
    screens: [],
    entities: [],
    machines: [],
    rules: [],
    roles: [],
    permissions: [],
    calls: [],
    notifications: [],
    webhooks: [],
    errors: [],
    constants: [],
  };
}
