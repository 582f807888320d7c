import { type Diagnostic, DiagnosticBag } from './diagnostics.ts';
import { type Model, POINTS, type Point } from './model.ts';
import { POINT_TITLES, parseSections, type Section } from './parse-sections.ts';
import { readCalls } from './read-calls.ts';
import { readHooks } from './read-code.ts';
import { readConstants } from './read-constants.ts';
import { readEntities } from './read-entities.ts';
import { readErrors } from './read-errors.ts';
import { readOutgoing } from './read-outgoing.ts';
import { readProduct } from './read-product.ts';
import { readRoles } from './read-roles.ts';
import { readRules } from './read-rules.ts';
import { readScreens } from './read-screens.ts';
import { readStates } from './read-states.ts';
import { Scope } from './scope.ts';
import { START } from './spans.ts';
import { specLinesOf } from './spec-lines.ts';
import { validateCalls } from './validate/calls.ts';
import { validateConstants } from './validate/constants.ts';
import { validateDocument } from './validate/document.ts';
import { validateErrors } from './validate/errors.ts';
import { validateExpressions } from './validate/expressions.ts';
import { validateReveals } from './validate/reveals.ts';
import { validateOwnChains, validateRoles } from './validate/roles.ts';
import { validateRules } from './validate/rules.ts';
import { validateScreens } from './validate/screens.ts';
import { validateStates } from './validate/states.ts';
import { validateThreads } from './validate/threads.ts';

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
 * Reads and checks a spec in stages: Markdown → sections; each point read into the model, its
 * names linked through the `Scope` as it goes; then each point's checks on the whole model
 * (`validate/<point>.ts`). Never throws on user input; every problem is a diagnostic.
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

  // Read and link. Order matters: each point is read after the points it refers to.
  const model = emptyModel();
  model.points = POINTS.map(
    (key, i): Point => ({
      key,
      number: i + 1,
      title: POINT_TITLES[key],
      shown: sections[key]?.shown ?? false,
      span: sections[key]?.span ?? null,
      prose: sections[key]?.prose ?? '',
    }),
  );
  model.product = readProduct(parsed.title, shown('product'));
  model.constants = read('constants', readConstants, []);
  model.errors = read('errors', readErrors, []);
  model.entities = read('entities', readEntities, []);
  scope.rolesShown = Boolean(shown('roles'));
  const roles = read('roles', readRoles, { roles: [], permissions: [] });
  model.roles = roles.roles;
  model.permissions = roles.permissions;
  model.machines = read('states', readStates, []);
  for (const link of scope.afterMachines) link();
  const rules = read('rules', readRules, { rules: [], periods: [] });
  const screens = read('screens', readScreens, []);
  model.calls = read('calls', readCalls, []);
  const outgoing = read('calls', readOutgoing, { notifications: [], webhooks: [], schedules: [] });
  model.schedules = outgoing.schedules;
  model.hooks = read('calls', (section, scope) => readHooks(section, scope, outgoing.schedules), []);

  // Validate: each point's checks on what was read. Errors before constants: a message's
  // placeholders mark the constants they name as used.
  validateDocument(sections, bag);
  model.screens = validateScreens(screens, model, bag);
  model.rules = validateRules(rules, model, bag);
  validateStates(model, bag);
  validateThreads(model, bag);
  validateRoles(model, bag);
  validateOwnChains(scope);
  validateExpressions(model, bag);
  validateReveals(model, bag);
  const checked = validateCalls(outgoing, scope);
  model.notifications = checked.notifications;
  model.webhooks = checked.webhooks;
  validateErrors(model, scope);
  validateConstants(model, scope);
  model.lines = specLinesOf(source, model);
  return finish(model, bag);
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
    schedules: [],
    hooks: [],
    errors: [],
    constants: [],
  };
}
